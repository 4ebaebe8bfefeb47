package ir

import (
	"math"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// Shape is a static tensor shape, outermost dimension first. A nil Shape
// means the rank is unknown; a dimension of -1 is unknown. A scalar is the
// empty, non-nil Shape{}.
type Shape []int

// Unknown is the shape of a value nothing is known about.
var Unknown Shape

// Scalar returns the shape of a scalar.
func Scalar() Shape { return Shape{} }

// RankKnown reports whether the number of dimensions is known.
func (s Shape) RankKnown() bool { return s != nil }

// Rank is the number of dimensions, or -1 when unknown.
func (s Shape) Rank() int {
	if s == nil {
		return -1
	}
	return len(s)
}

// Static reports whether the rank and every dimension are known.
func (s Shape) Static() bool {
	if s == nil {
		return false
	}
	for _, d := range s {
		if d < 0 {
			return false
		}
	}
	return true
}

// maxElements bounds element counts: 2^53 (exact in a float64), or the
// largest int where int has 32 bits.
const maxElements = min(1<<53, math.MaxInt)

// NumElements is the product of the dimensions; ok is false when the
// shape is not static or the product exceeds maxElements (2^53, or
// MaxInt32 on 32-bit platforms).
func (s Shape) NumElements() (n int, ok bool) {
	if !s.Static() {
		return 0, false
	}
	n = 1
	for _, d := range s {
		if d != 0 && n > maxElements/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// Clone returns a copy (nil stays nil).
func (s Shape) Clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape{}, s...)
}

// Equal reports identical shapes (unknown rank equals only unknown rank).
func (s Shape) Equal(t Shape) bool {
	if (s == nil) != (t == nil) || len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// String formats the shape as "[1 49 10 1]", "[? 12]" or "[*]" (unknown
// rank).
func (s Shape) String() string {
	if s == nil {
		return "[*]"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.Itoa(d)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// ShapeFromTF converts a TensorShapeProto (nil or unknown_rank → unknown;
// sizes below -1 are rejected as malformed).
func ShapeFromTF(p *tfpb.TensorShapeProto) (Shape, error) {
	if p == nil || p.UnknownRank {
		return nil, nil
	}
	s := make(Shape, len(p.Dim))
	for i, d := range p.Dim {
		if d.Size < -1 || d.Size > min(1<<40, math.MaxInt) {
			return nil, &FormatError{What: "shape", Detail: "dimension " + strconv.Itoa(i) + " has size " + strconv.FormatInt(d.Size, 10)}
		}
		s[i] = int(d.Size)
	}
	return s, nil
}

// TF converts s back to a TensorShapeProto.
func (s Shape) TF() *tfpb.TensorShapeProto {
	if s == nil {
		return &tfpb.TensorShapeProto{UnknownRank: true}
	}
	p := &tfpb.TensorShapeProto{Dim: make([]*tfpb.TensorShapeProto_Dim, len(s))}
	for i, d := range s {
		p.Dim[i] = &tfpb.TensorShapeProto_Dim{Size: int64(d)}
	}
	return p
}

// Merge combines two descriptions of one shape, keeping every known
// dimension; ok is false when they contradict each other.
func Merge(a, b Shape) (Shape, bool) {
	if a == nil {
		return b.Clone(), true
	}
	if b == nil {
		return a.Clone(), true
	}
	if len(a) != len(b) {
		return nil, false
	}
	out := make(Shape, len(a))
	for i := range a {
		switch {
		case a[i] < 0:
			out[i] = b[i]
		case b[i] < 0 || a[i] == b[i]:
			out[i] = a[i]
		default:
			return nil, false
		}
	}
	return out, true
}
