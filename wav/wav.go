// Package wav decodes WAV (RIFF WAVE) audio into the sample frames an
// audio model takes: float32 in [-1, 1] or int16, interleaved by frame
// (frame 0 channel 0, frame 0 channel 1, ..., the [frames, channels]
// layout of TensorFlow's DecodeWav).
//
// Accepted: integer PCM of 8 (unsigned, offset 128), 16, 24 and 32 bits
// (signed), and IEEE float of 32 bits, in the plain format tags
// (WAVE_FORMAT_PCM 1, WAVE_FORMAT_IEEE_FLOAT 3) or WAVE_FORMAT_EXTENSIBLE
// (0xFFFE) with the PCM or float sub-format; any number of channels from
// 1 to 1024. Chunks other than "fmt " and "data" (LIST, fact, cue, ...)
// are skipped, with RIFF's pad byte after an odd-sized chunk. Everything
// else — another format (A-law, µ-law, ADPCM, 64-bit float), a "data"
// chunk before "fmt ", a chunk running past the end, a data size that is
// not a whole number of frames, more data than the budget — is an error
// naming the problem.
//
// Conversions (Audio.Float32, Audio.Int16): an n-bit signed sample s
// becomes s / 2^(n-1) as float32 (TensorFlow's DecodeWav divides 16-bit
// samples by 32768), 8-bit u becomes (u - 128) / 128; float samples are
// kept as they are. For int16, 8-bit samples are (u - 128) << 8, 24- and
// 32-bit ones keep their top 16 bits (an arithmetic shift), and float
// samples are x * 32768 rounded half to even and clamped to the int16
// range (NaN gives 0).
package wav

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// DefaultMaxBytes is the largest "data" chunk Decode reads when given a
// budget of 0: 1 GiB (about 3 hours of 16-bit stereo at 48 kHz).
const DefaultMaxBytes = 1 << 30

// MaxChannels is the most channels a file may declare.
const MaxChannels = 1024

// Format is the sample encoding.
type Format int

const (
	// PCM is integer linear PCM.
	PCM Format = 1
	// Float is IEEE 754 floating point.
	Float Format = 3
)

// String returns "PCM", "float" or "Format(n)".
func (f Format) String() string {
	switch f {
	case PCM:
		return "PCM"
	case Float:
		return "float"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Audio is a decoded WAV file.
type Audio struct {
	// SampleRate is in frames per second.
	SampleRate int
	// Channels is the number of samples per frame.
	Channels int
	// BitsPerSample is 8, 16, 24 or 32.
	BitsPerSample int
	Format        Format
	// Frames is the number of frames (samples per channel).
	Frames int
	// Data holds the samples as the file stores them: little-endian,
	// interleaved, Frames × Channels × BitsPerSample/8 bytes.
	Data []byte
}

// Duration is the length of the audio in seconds.
func (a *Audio) Duration() float64 { return float64(a.Frames) / float64(a.SampleRate) }

// extensibleGUIDTail is the part of the KSDATAFORMAT_SUBTYPE GUIDs after
// the 2-byte format tag (PCM 0x0001, IEEE float 0x0003).
const extensibleGUIDTail = "\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"

// ReadFile decodes the WAV file at path within DefaultMaxBytes; errors
// name the file.
func ReadFile(path string) (*Audio, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := Decode(f, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Decode reads a WAV file from r. maxBytes bounds the "data" chunk (0
// means DefaultMaxBytes, a negative value no bound); the samples are read
// as they arrive, so a size field larger than the input allocates no more
// than the input holds.
func Decode(r io.Reader, maxBytes int64) (*Audio, error) {
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	var hdr [12]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if n == 0 {
			return nil, errors.New("wav: empty input (not a WAV file)")
		}
		return nil, fmt.Errorf("wav: truncated RIFF header (%d of 12 bytes)", n)
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return nil, fmt.Errorf("wav: not a RIFF WAVE file (starts with %q)", hdr[:4])
	}
	var a *Audio
	offset := int64(12)
	for {
		var ch [8]byte
		n, err := io.ReadFull(r, ch[:])
		if err != nil {
			if n == 0 && a != nil {
				return nil, errors.New(`wav: no "data" chunk`)
			}
			if n == 0 {
				return nil, errors.New(`wav: no "fmt " chunk`)
			}
			return nil, fmt.Errorf("wav: truncated chunk header at byte %d", offset)
		}
		id, size := string(ch[0:4]), int64(binary.LittleEndian.Uint32(ch[4:8]))
		offset += 8
		switch id {
		case "fmt ":
			if a != nil {
				return nil, fmt.Errorf(`wav: a second "fmt " chunk at byte %d`, offset-8)
			}
			if size < 16 || size > 1024 {
				return nil, fmt.Errorf(`wav: "fmt " chunk of %d bytes (want 16 to 1024)`, size)
			}
			body := make([]byte, size)
			if _, err := io.ReadFull(r, body); err != nil {
				return nil, fmt.Errorf(`wav: "fmt " chunk of %d bytes runs past the end of the input`, size)
			}
			if a, err = parseFormat(body); err != nil {
				return nil, err
			}
		case "data":
			if a == nil {
				return nil, errors.New(`wav: "data" chunk before the "fmt " chunk`)
			}
			if maxBytes > 0 && size > maxBytes {
				return nil, fmt.Errorf("wav: data chunk of %d bytes is over the budget of %d bytes", size, maxBytes)
			}
			frame := int64(a.Channels * a.BitsPerSample / 8)
			if size%frame != 0 {
				return nil, fmt.Errorf("wav: data chunk of %d bytes is not a whole number of %d-byte frames", size, frame)
			}
			data, err := io.ReadAll(io.LimitReader(r, size))
			if err != nil {
				return nil, fmt.Errorf("wav: reading data: %w", err)
			}
			if int64(len(data)) < size {
				return nil, fmt.Errorf("wav: data chunk of %d bytes runs past the end of the input (%d present)", size, len(data))
			}
			a.Data, a.Frames = data, int(size/frame)
			return a, nil
		default:
			// Skip the chunk and its pad byte.
			skip := size + size%2
			if n, err := io.CopyN(io.Discard, r, skip); err != nil {
				return nil, fmt.Errorf("wav: %q chunk of %d bytes at byte %d runs past the end of the input (%d present)", id, size, offset-8, n)
			}
		}
		offset += size + size%2
		if id == "fmt " && size%2 == 1 {
			if _, err := io.CopyN(io.Discard, r, 1); err != nil {
				return nil, errors.New(`wav: truncated after the "fmt " chunk`)
			}
		}
	}
}

// parseFormat checks a "fmt " chunk body.
func parseFormat(b []byte) (*Audio, error) {
	tag := binary.LittleEndian.Uint16(b[0:])
	channels := int(binary.LittleEndian.Uint16(b[2:]))
	rate := binary.LittleEndian.Uint32(b[4:])
	blockAlign := int(binary.LittleEndian.Uint16(b[12:]))
	bits := int(binary.LittleEndian.Uint16(b[14:]))
	if tag == 0xfffe {
		if len(b) < 40 {
			return nil, fmt.Errorf(`wav: WAVE_FORMAT_EXTENSIBLE "fmt " chunk of %d bytes (want 40)`, len(b))
		}
		guid := b[24:40]
		if string(guid[2:]) != extensibleGUIDTail {
			return nil, fmt.Errorf("wav: unsupported WAVE_FORMAT_EXTENSIBLE sub-format % x", guid)
		}
		tag = binary.LittleEndian.Uint16(guid)
	}
	a := &Audio{SampleRate: int(rate), Channels: channels, BitsPerSample: bits, Format: Format(tag)}
	switch {
	case tag == 1 && (bits == 8 || bits == 16 || bits == 24 || bits == 32):
	case tag == 3 && bits == 32:
	case tag == 1 || tag == 3:
		return nil, fmt.Errorf("wav: unsupported %s sample size of %d bits (supported: PCM 8, 16, 24, 32; float 32)", Format(tag), bits)
	default:
		return nil, fmt.Errorf("wav: unsupported format tag 0x%04x (supported: PCM 1, IEEE float 3, and WAVE_FORMAT_EXTENSIBLE of those)", tag)
	}
	if channels < 1 || channels > MaxChannels {
		return nil, fmt.Errorf("wav: %d channels (want 1 to %d)", channels, MaxChannels)
	}
	if rate == 0 || rate > math.MaxInt32 {
		return nil, fmt.Errorf("wav: sample rate %d", rate)
	}
	if want := channels * bits / 8; blockAlign != want {
		return nil, fmt.Errorf("wav: block align %d, but %d channels of %d bits need %d", blockAlign, channels, bits, want)
	}
	return a, nil
}

// sample returns sample i (frame × channels + channel) as a signed
// integer of the file's width, for PCM.
func (a *Audio) sample(i int) int32 {
	switch a.BitsPerSample {
	case 8:
		return int32(a.Data[i]) - 128
	case 16:
		return int32(int16(binary.LittleEndian.Uint16(a.Data[2*i:])))
	case 24:
		p := a.Data[3*i:]
		return int32(uint32(p[0])<<8|uint32(p[1])<<16|uint32(p[2])<<24) >> 8
	default:
		return int32(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
}

// Samples is the number of samples, Frames × Channels.
func (a *Audio) Samples() int { return a.Frames * a.Channels }

// Float32 returns the samples as float32, interleaved by frame (see the
// package doc for the scaling).
func (a *Audio) Float32() []float32 {
	out := make([]float32, a.Samples())
	if a.Format == Float {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
		}
		return out
	}
	scale := 1 / float64(int64(1)<<(a.BitsPerSample-1))
	for i := range out {
		out[i] = float32(float64(a.sample(i)) * scale)
	}
	return out
}

// Int16 returns the samples as int16, interleaved by frame (see the
// package doc for the conversions).
func (a *Audio) Int16() []int16 {
	out := make([]int16, a.Samples())
	if a.Format == Float {
		for i := range out {
			x := float64(math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:])))
			if math.IsNaN(x) {
				continue
			}
			out[i] = int16(max(math.MinInt16, min(math.MaxInt16, math.RoundToEven(x*32768))))
		}
		return out
	}
	for i := range out {
		s := a.sample(i)
		switch a.BitsPerSample {
		case 8:
			out[i] = int16(s << 8)
		case 16:
			out[i] = int16(s)
		default:
			out[i] = int16(s >> (a.BitsPerSample - 16))
		}
	}
	return out
}

// Encode writes a as a WAV file: a RIFF header, a 16-byte "fmt " chunk
// with format tag 1 (PCM) or 3 (float), and the "data" chunk (with a pad
// byte when its size is odd). The fields are checked as Decode checks
// them, and len(Data) must be Frames × Channels × BitsPerSample/8.
func Encode(w io.Writer, a *Audio) error {
	if a.Channels < 1 || a.Channels > MaxChannels || a.BitsPerSample < 8 || a.BitsPerSample%8 != 0 || a.BitsPerSample > 32 {
		return fmt.Errorf("wav: cannot encode %d channels of %d bits", a.Channels, a.BitsPerSample)
	}
	var fmtChunk [24]byte
	copy(fmtChunk[0:], "fmt ")
	binary.LittleEndian.PutUint32(fmtChunk[4:], 16)
	binary.LittleEndian.PutUint16(fmtChunk[8:], uint16(a.Format))
	binary.LittleEndian.PutUint16(fmtChunk[10:], uint16(a.Channels))
	binary.LittleEndian.PutUint32(fmtChunk[12:], uint32(a.SampleRate))
	block := a.Channels * a.BitsPerSample / 8
	binary.LittleEndian.PutUint32(fmtChunk[16:], uint32(a.SampleRate*block))
	binary.LittleEndian.PutUint16(fmtChunk[20:], uint16(block))
	binary.LittleEndian.PutUint16(fmtChunk[22:], uint16(a.BitsPerSample))
	if _, err := parseFormat(fmtChunk[8:]); err != nil {
		return err
	}
	if a.Frames < 0 || len(a.Data) != a.Frames*block {
		return fmt.Errorf("wav: %d data bytes for %d frames of %d bytes", len(a.Data), a.Frames, block)
	}
	if int64(len(a.Data)) > math.MaxUint32-64 {
		return fmt.Errorf("wav: %d data bytes do not fit a RIFF file", len(a.Data))
	}
	pad := len(a.Data) % 2
	var hdr [12]byte
	copy(hdr[0:], "RIFF")
	binary.LittleEndian.PutUint32(hdr[4:], uint32(4+len(fmtChunk)+8+len(a.Data)+pad))
	copy(hdr[8:], "WAVE")
	var dataHdr [8]byte
	copy(dataHdr[0:], "data")
	binary.LittleEndian.PutUint32(dataHdr[4:], uint32(len(a.Data)))
	for _, b := range [][]byte{hdr[:], fmtChunk[:], dataHdr[:], a.Data, make([]byte, pad)} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
