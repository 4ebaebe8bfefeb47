package testmodels

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// WriteBlankPNG streams a valid w×h PNG of black pixels to out, 8 bits
// per sample, gray (colorType 0) or RGBA (colorType 6), without holding
// the image in memory: a few megabytes of file for hundreds of megapixels,
// the kind of image that once made `tflrun run` decode 2.2 GB.
func WriteBlankPNG(out io.Writer, w, h uint32, colorType byte) error {
	bw := bufio.NewWriter(out)
	chunk := func(typ string, data []byte) {
		var l [4]byte
		binary.BigEndian.PutUint32(l[:], uint32(len(data)))
		bw.Write(l[:])
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		bw.WriteString(typ)
		bw.Write(data)
		binary.BigEndian.PutUint32(l[:], c.Sum32())
		bw.Write(l[:])
	}
	bw.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	chunk("IHDR", append(ihdr, 8, colorType, 0, 0, 0))
	channels := uint32(1)
	if colorType == 6 {
		channels = 4
	}
	// Compress the rows (filter byte 0, then zeros) into IDAT chunks of
	// at most 1 MiB.
	idat := &chunker{emit: func(b []byte) { chunk("IDAT", b) }}
	zw, err := zlib.NewWriterLevel(idat, zlib.BestCompression)
	if err != nil {
		return err
	}
	row := make([]byte, 1+w*channels)
	for y := uint32(0); y < h; y++ {
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	idat.flush()
	chunk("IEND", nil)
	return bw.Flush()
}

// chunker cuts a stream into IDAT payloads.
type chunker struct {
	buf  []byte
	emit func([]byte)
}

func (c *chunker) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for len(c.buf) >= 1<<20 {
		c.emit(c.buf[:1<<20])
		c.buf = append([]byte(nil), c.buf[1<<20:]...)
	}
	return len(p), nil
}

func (c *chunker) flush() {
	if len(c.buf) > 0 {
		c.emit(c.buf)
		c.buf = nil
	}
}
