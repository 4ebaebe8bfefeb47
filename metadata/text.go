package metadata

import "fmt"

// The enumerations marshal to JSON (and any text encoding) by their
// String names, so `tflrun inspect --json` says "image", not 2, and read
// those names back.

func unmarshalEnum[T ~int8 | ~uint8](name string, text []byte, v *T) error {
	for i := -128; i < 256; i++ {
		c := T(i)
		if int(c) != i {
			continue
		}
		if fmt.Sprint(c) == string(text) {
			*v = c
			return nil
		}
	}
	return fmt.Errorf("metadata: unknown %s %q", name, text)
}

// MarshalText encodes the ContentKind as its String name.
func (k ContentKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a ContentKind from its String name.
func (k *ContentKind) UnmarshalText(b []byte) error { return unmarshalEnum("content kind", b, k) }

// MarshalText encodes the ColorSpace as its String name.
func (c ColorSpace) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a ColorSpace from its String name.
func (c *ColorSpace) UnmarshalText(b []byte) error { return unmarshalEnum("colour space", b, c) }

// MarshalText encodes the BoundingBoxType as its String name.
func (b BoundingBoxType) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads a BoundingBoxType from its String name.
func (b *BoundingBoxType) UnmarshalText(t []byte) error {
	return unmarshalEnum("bounding box type", t, b)
}

// MarshalText encodes the CoordinateType as its String name.
func (c CoordinateType) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a CoordinateType from its String name.
func (c *CoordinateType) UnmarshalText(b []byte) error {
	return unmarshalEnum("coordinate type", b, c)
}

// MarshalText encodes the ProcessUnitType as its String name.
func (p ProcessUnitType) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a ProcessUnitType from its String name.
func (p *ProcessUnitType) UnmarshalText(b []byte) error {
	return unmarshalEnum("process unit type", b, p)
}

// MarshalText encodes the ScoreTransformation as its String name.
func (s ScoreTransformation) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a ScoreTransformation from its String name.
func (s *ScoreTransformation) UnmarshalText(b []byte) error {
	return unmarshalEnum("score transformation", b, s)
}

// MarshalText encodes the FileType as its String name.
func (f FileType) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads a FileType from its String name.
func (f *FileType) UnmarshalText(b []byte) error { return unmarshalEnum("file type", b, f) }
