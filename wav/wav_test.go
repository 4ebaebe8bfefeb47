package wav

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

func encode(t testing.TB, a *Audio) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, a); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestConversions decodes one stereo frame pair of every sample format
// and checks both conversions against values worked by hand.
func TestConversions(t *testing.T) {
	f32 := func(vs ...float32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b
	}
	for _, c := range []struct {
		name   string
		format Format
		bits   int
		data   []byte
		floats []float32
		ints   []int16
	}{
		{"u8", PCM, 8, []byte{0, 128, 255, 64}, []float32{-1, 0, 127.0 / 128, -0.5}, []int16{-32768, 0, 32512, -16384}},
		{"s16", PCM, 16, []byte{0x00, 0x80, 0xff, 0x7f, 0x01, 0x00, 0xff, 0xff}, []float32{-1, 32767.0 / 32768, 1.0 / 32768, -1.0 / 32768}, []int16{-32768, 32767, 1, -1}},
		{"s24", PCM, 24, []byte{0x00, 0x00, 0x80, 0xff, 0xff, 0x7f, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff}, []float32{-1, float32(8388607.0 / 8388608), 256.0 / 8388608, -1.0 / 8388608}, []int16{-32768, 32767, 1, -1}},
		{"s32", PCM, 32, []byte{0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff}, []float32{-1, 1, 65536.0 / 2147483648, float32(-1.0 / 2147483648)}, []int16{-32768, 32767, 1, -1}},
		{"f32", Float, 32, f32(-1, 0.5, 2, float32(math.NaN())), nil, []int16{-32768, 16384, 32767, 0}},
	} {
		a, err := Decode(bytes.NewReader(encode(t, &Audio{SampleRate: 16000, Channels: 2, BitsPerSample: c.bits, Format: c.format, Frames: 2, Data: c.data})), 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if a.Frames != 2 || a.Channels != 2 || a.SampleRate != 16000 || a.Samples() != 4 || a.Duration() != 2.0/16000 {
			t.Errorf("%s: %+v", c.name, a)
		}
		if c.floats != nil && !reflect.DeepEqual(a.Float32(), c.floats) {
			t.Errorf("%s: Float32 %v, want %v", c.name, a.Float32(), c.floats)
		}
		if got := a.Int16(); !reflect.DeepEqual(got, c.ints) {
			t.Errorf("%s: Int16 %v, want %v", c.name, got, c.ints)
		}
	}
}

// riff builds a RIFF WAVE file from raw chunks.
func riff(chunks ...[]byte) []byte {
	body := []byte("WAVE")
	for _, c := range chunks {
		body = append(body, c...)
	}
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

func chunk(id string, size uint32, body []byte) []byte {
	return append(append([]byte(id), binary.LittleEndian.AppendUint32(nil, size)...), body...)
}

func fmtBody(tag, channels uint16, rate uint32, block, bits uint16) []byte {
	b := binary.LittleEndian.AppendUint16(nil, tag)
	b = binary.LittleEndian.AppendUint16(b, channels)
	b = binary.LittleEndian.AppendUint32(b, rate)
	b = binary.LittleEndian.AppendUint32(b, rate*uint32(block))
	b = binary.LittleEndian.AppendUint16(b, block)
	return binary.LittleEndian.AppendUint16(b, bits)
}

// TestChunksAndExtensible: unknown chunks (odd-sized, padded) are skipped
// and WAVE_FORMAT_EXTENSIBLE with the PCM sub-format reads like PCM.
func TestChunksAndExtensible(t *testing.T) {
	ext := fmtBody(0xfffe, 1, 8000, 2, 16)
	ext = binary.LittleEndian.AppendUint16(ext, 22)     // cbSize
	ext = binary.LittleEndian.AppendUint16(ext, 16)     // valid bits
	ext = binary.LittleEndian.AppendUint32(ext, 0x4)    // channel mask
	ext = append(ext, "\x01\x00"+extensibleGUIDTail...) // PCM
	file := riff(chunk("LIST", 3, []byte{1, 2, 3, 0}), chunk("fmt ", 40, ext), chunk("fact", 4, make([]byte, 4)), chunk("data", 4, []byte{1, 0, 2, 0}))
	a, err := Decode(bytes.NewReader(file), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Format != PCM || !reflect.DeepEqual(a.Int16(), []int16{1, 2}) {
		t.Errorf("%+v %v", a, a.Int16())
	}
}

func TestErrors(t *testing.T) {
	good := fmtBody(1, 1, 16000, 2, 16)
	for _, c := range []struct {
		name string
		file []byte
		max  int64
		want string
	}{
		{"empty", nil, 0, "empty input"},
		{"not riff", []byte("RIFX\x00\x00\x00\x00WAVE"), 0, "not a RIFF WAVE"},
		{"short header", []byte("RIFF\x00"), 0, "truncated RIFF header"},
		{"no fmt", riff(), 0, `no "fmt " chunk`},
		{"no data", riff(chunk("fmt ", 16, good)), 0, `no "data" chunk`},
		{"data first", riff(chunk("data", 2, []byte{0, 0}), chunk("fmt ", 16, good)), 0, `"data" chunk before the "fmt " chunk`},
		{"alaw", riff(chunk("fmt ", 16, fmtBody(6, 1, 8000, 1, 8))), 0, "unsupported format tag 0x0006"},
		{"f64", riff(chunk("fmt ", 16, fmtBody(3, 1, 8000, 8, 64))), 0, "unsupported float sample size of 64 bits"},
		{"pcm12", riff(chunk("fmt ", 16, fmtBody(1, 1, 8000, 2, 12))), 0, "unsupported PCM sample size of 12 bits"},
		{"zero channels", riff(chunk("fmt ", 16, fmtBody(1, 0, 8000, 0, 16))), 0, "0 channels"},
		{"zero rate", riff(chunk("fmt ", 16, fmtBody(1, 1, 0, 2, 16))), 0, "sample rate 0"},
		{"block align", riff(chunk("fmt ", 16, fmtBody(1, 2, 8000, 2, 16))), 0, "block align 2, but 2 channels of 16 bits need 4"},
		{"short fmt", riff(chunk("fmt ", 14, good[:14])), 0, `"fmt " chunk of 14 bytes`},
		{"fmt past end", riff(chunk("fmt ", 16, good[:10])), 0, "runs past the end"},
		{"two fmt", riff(chunk("fmt ", 16, good), chunk("fmt ", 16, good)), 0, `a second "fmt " chunk`},
		{"partial frame", riff(chunk("fmt ", 16, good), chunk("data", 3, []byte{0, 0, 0, 0})), 0, "not a whole number of 2-byte frames"},
		{"data past end", riff(chunk("fmt ", 16, good), chunk("data", 0x3ffffffe, []byte{0, 0})), 0, "runs past the end of the input (2 present)"},
		{"over budget", riff(chunk("fmt ", 16, good), chunk("data", 8, make([]byte, 8))), 6, "over the budget of 6 bytes"},
		{"list past end", riff(chunk("fmt ", 16, good), chunk("LIST", 100, []byte{1})), 0, `"LIST" chunk of 100 bytes`},
		{"extensible other", riff(chunk("fmt ", 40, append(fmtBody(0xfffe, 1, 8000, 2, 16), make([]byte, 24)...))), 0, "unsupported WAVE_FORMAT_EXTENSIBLE sub-format"},
	} {
		_, err := Decode(bytes.NewReader(c.file), c.max)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if err := Encode(&bytes.Buffer{}, &Audio{SampleRate: 1, Channels: 1, BitsPerSample: 16, Format: PCM, Frames: 2, Data: []byte{1}}); err == nil {
		t.Error("Encode accepted a short Data")
	}
}

// FuzzDecode: no panic, no output larger than the input, and what decodes
// re-encodes to a file that decodes to the same samples.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, &Audio{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Format: PCM, Frames: 3, Data: []byte{1, 0, 2, 0, 3, 0}}))
	f.Add(encode(f, &Audio{SampleRate: 44100, Channels: 3, BitsPerSample: 24, Format: PCM, Frames: 1, Data: make([]byte, 9)}))
	f.Add(encode(f, &Audio{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Format: PCM, Frames: 1, Data: []byte{7}}))
	f.Add(encode(f, &Audio{SampleRate: 48000, Channels: 2, BitsPerSample: 32, Format: Float, Frames: 1, Data: make([]byte, 8)}))
	f.Add(riff(chunk("LIST", 1, []byte{0, 0}), chunk("fmt ", 16, fmtBody(1, 1, 8000, 2, 16)), chunk("data", 0xffffffff, nil)))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := Decode(bytes.NewReader(in), 1<<20)
		if err != nil {
			return
		}
		if len(a.Data) > len(in) || len(a.Data) != a.Samples()*a.BitsPerSample/8 {
			t.Fatalf("%d data bytes from %d input bytes (%+v)", len(a.Data), len(in), a)
		}
		if len(a.Float32()) != a.Samples() || len(a.Int16()) != a.Samples() {
			t.Fatal("conversions have the wrong length")
		}
		var out bytes.Buffer
		if err := Encode(&out, a); err != nil {
			t.Fatalf("cannot encode what was decoded: %v", err)
		}
		b, err := Decode(&out, 1<<20)
		if err != nil || !bytes.Equal(a.Data, b.Data) || a.Frames != b.Frames || a.Channels != b.Channels || a.Format != b.Format {
			t.Fatalf("round trip changed the audio: %v", err)
		}
	})
}
