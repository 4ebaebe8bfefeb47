package metadata

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxFileBytes bounds the size of one associated file that
// Archive.ReadFile returns: 256 MiB.
const DefaultMaxFileBytes = 256 << 20

// Archive is the zip archive of associated files appended to a model.
type Archive struct {
	zr *zip.Reader
	// MaxFileBytes bounds the uncompressed size ReadFile reads (0 means
	// DefaultMaxFileBytes).
	MaxFileBytes int64
}

// OpenArchive opens the zip archive at the end of a model file of size
// bytes read through r (the whole file: offsets in the archive count
// from the file's start or from the archive's, both are found). It
// returns nil and no error when the file has no zip archive.
func OpenArchive(r io.ReaderAt, size int64) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	switch {
	case errors.Is(err, zip.ErrFormat):
		return nil, nil
	case errors.Is(err, zip.ErrInsecurePath):
		// Names such as "../x" matter only when extracting to disk, which
		// this package never does.
	case err != nil:
		return nil, fmt.Errorf("metadata: associated files archive: %w", err)
	}
	return &Archive{zr: zr}, nil
}

// Names lists the files in the archive, in archive order.
func (a *Archive) Names() []string {
	if a == nil {
		return nil
	}
	names := make([]string, 0, len(a.zr.File))
	for _, f := range a.zr.File {
		names = append(names, f.Name)
	}
	return names
}

// Size returns the uncompressed size of the named file and whether the
// archive has it.
func (a *Archive) Size(name string) (int64, bool) {
	if f := a.find(name); f != nil {
		return int64(min(f.UncompressedSize64, 1<<62)), true
	}
	return 0, false
}

func (a *Archive) find(name string) *zip.File {
	if a == nil {
		return nil
	}
	for _, f := range a.zr.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// ReadFile returns the contents of the named file. It fails when the
// archive lacks it, when it is (or decompresses to) more than
// MaxFileBytes, or when its data or checksum is bad.
func (a *Archive) ReadFile(name string) ([]byte, error) {
	f := a.find(name)
	if f == nil {
		return nil, fmt.Errorf("metadata: associated file %q is not in the model's archive", name)
	}
	limit := a.MaxFileBytes
	if limit <= 0 {
		limit = DefaultMaxFileBytes
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("metadata: associated file %q is %d bytes, over the limit of %d", name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("metadata: associated file %q: %w", name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("metadata: associated file %q: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("metadata: associated file %q decompresses to more than the limit of %d bytes", name, limit)
	}
	return data, nil
}

// ParseLabels splits a label file into labels the way TensorFlow Lite's
// Task Library does (BuildLabelMapFromFiles): one label per line, split
// at '\n' only, with the empty string after a final newline dropped.
// Empty lines inside the file are labels too, so positions stay aligned
// with the tensor's.
func ParseLabels(data []byte) []string {
	labels := strings.Split(string(data), "\n")
	if labels[len(labels)-1] == "" {
		labels = labels[:len(labels)-1]
	}
	return labels
}
