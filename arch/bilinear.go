package arch

import (
	"fmt"
	"math"
	"slices"
)

// Bilinear blending: the innermost loops of TFLite's float and uint8
// RESIZE_BILINEAR (one output pixel's channels from the four source
// pixels around it; for uint8 also a whole output row). Portable code in
// bilinear_generic.go, assembly twins in bilinear_avx2_amd64.s and
// bilinear_neon_arm64.s (float), bilinear_u8_avx2_amd64.s,
// bilinear_u8_avx512_amd64.s and bilinear_u8_neon_arm64.s (uint8).

var (
	bilinearF32      func(dst, p00, p01, p10, p11 []float32, w *[4]float32)
	bilinearF32Impls = newImpls("BilinearF32", &bilinearF32, bilinearF32Generic)
)

// BilinearF32 sets, for i < len(dst),
//
//	dst[i] = (((0 + p00[i]·w[0]) + p01[i]·w[1]) + p10[i]·w[2]) + p11[i]·w[3]
//
// with every product and sum rounded to float32 on its own (no fused
// multiply-add): the order of TFLite's ResizeBilinearGeneric, which zeroes
// the output and adds the four scaled corners (y0,x0), (y0,x1), (y1,x0),
// (y1,x1) in turn. The leading 0 + makes a -0 product +0, as there. The
// four sources must be at least as long as dst; dst must not overlap
// them. Every implementation gives identical bits (the same IEEE
// operations in the same order, lane by lane), except which payload a NaN
// result carries when two NaNs meet in a sum.
func BilinearF32(dst, p00, p01, p10, p11 []float32, w *[4]float32) {
	n := len(dst)
	_, _, _, _ = p00[:n], p01[:n], p10[:n], p11[:n]
	bilinearF32(dst, p00, p01, p10, p11, w)
}

var (
	bilinearU8      func(dst, p00, p01, p10, p11 []byte, w *[4]float32)
	bilinearU8Impls = newImpls("BilinearU8", &bilinearU8, bilinearU8Generic)
)

// BilinearU8 sets, for i < len(dst),
//
//	dst[i] = uint8(int32(((p00[i]·w[0] + p01[i]·w[1]) + p10[i]·w[2]) + p11[i]·w[3] + 0.5))
//
// in float32, every product and sum rounded on its own (no fused
// multiply-add), the conversion to int32 truncating toward zero and the
// one to uint8 keeping the low byte: TFLite's uint8
// ResizeBilinearGenericSmallChannel (its static_cast<uint8_t> of the float
// compiles to CVTTSS2SI and the low byte). The four sources must be at
// least as long as dst; dst must not overlap them. Every implementation
// gives identical bytes when each sum + 0.5 is within the int32 range,
// which holds whenever |w[0]| + |w[1]| + |w[2]| + |w[3]| < 2^23 (a
// resize's weights are below 3 in magnitude; beyond, the byte of an
// out-of-range sum depends on the CPU's conversion).
func BilinearU8(dst, p00, p01, p10, p11 []byte, w *[4]float32) {
	n := len(dst)
	_, _, _, _ = p00[:n], p01[:n], p10[:n], p11[:n]
	bilinearU8(dst, p00, p01, p10, p11, w)
}

// BilinearTaps is the horizontal half of a bilinear resize, shared by
// every output row: for each output column, the offsets in an input row
// (in elements: bytes for uint8, float32s for float) of its left and
// right source pixels and the fraction of the right one (TFLite's
// input_x − x0), for pixels of depth channels.
type BilinearTaps struct {
	off    []int32 // left, right element offset of each column, interleaved
	fx     []float32
	depth  int
	maxOff int // the largest offset
}

// NewBilinearTaps returns the taps of output columns whose source pixels
// are lo[x] and hi[x] (input column indices) with fraction frac[x], for
// pixels of depth channels. It fails unless the three slices have the
// same length, depth > 0, the indices are ≥ 0 and every element offset
// (index+1)·depth fits an int32.
func NewBilinearTaps(lo, hi []int, frac []float32, depth int) (*BilinearTaps, error) {
	if len(lo) != len(frac) || len(hi) != len(frac) {
		return nil, fmt.Errorf("arch: bilinear taps of %d, %d and %d columns", len(lo), len(hi), len(frac))
	}
	if depth <= 0 || depth > math.MaxInt32 {
		return nil, fmt.Errorf("arch: bilinear taps of depth %d", depth)
	}
	t := &BilinearTaps{off: make([]int32, 2*len(frac)), fx: slices.Clone(frac), depth: depth}
	for x := range frac {
		for j, i := range [2]int{lo[x], hi[x]} {
			if i < 0 || i >= (math.MaxInt32-depth)/depth {
				return nil, fmt.Errorf("arch: bilinear tap %d of column %d at depth %d", i, x, depth)
			}
			t.off[2*x+j] = int32(i * depth)
			t.maxOff = max(t.maxOff, i*depth)
		}
	}
	return t, nil
}

// Len returns the number of output columns.
func (t *BilinearTaps) Len() int { return len(t.fx) }

var (
	bilinearRowU8      func(dst, row0, row1 []byte, t *BilinearTaps, fy float32)
	bilinearRowU8Impls = newImpls("BilinearRowU8", &bilinearRowU8, bilinearRowU8Generic)
)

// BilinearRowU8 computes one output row of a uint8 bilinear resize from
// the input rows row0 (TFLite's y0) and row1 (y1) at vertical fraction fy:
// for each column x < t.Len() and channel c < depth, with lo and hi the
// column's byte offsets and fx its fraction,
//
//	dst[x·depth+c] = BilinearU8 of row0[lo+c], row0[hi+c], row1[lo+c], row1[hi+c]
//
// with the weights (1−fy)(1−fx), (1−fy)·fx, fy·(1−fx), fy·fx, each a
// float32 product of float32 differences, as ResizeBilinearGenericSmallChannel
// forms them. dst must hold t.Len()·depth bytes and not overlap the rows;
// each row must reach every offset + depth. Every implementation gives
// identical bytes for fractions of magnitude below 2^10 (BilinearU8's
// condition on the weights).
func BilinearRowU8(dst, row0, row1 []byte, t *BilinearTaps, fy float32) {
	if len(t.fx) == 0 {
		return
	}
	_ = dst[len(t.fx)*t.depth-1]
	_, _ = row0[t.maxOff+t.depth-1], row1[t.maxOff+t.depth-1]
	bilinearRowU8(dst, row0, row1, t, fy)
}

var (
	bilinearRowF32      func(dst, row0, row1 []float32, t *BilinearTaps, fy float32)
	bilinearRowF32Impls = newImpls("BilinearRowF32", &bilinearRowF32, bilinearRowF32Generic)
)

// BilinearRowF32 computes one output row of a float32 bilinear resize
// from the input rows row0 (TFLite's y0) and row1 (y1) at vertical
// fraction fy: for each column x < t.Len() and channel c < depth, with lo
// and hi the column's element offsets and fx its fraction,
//
//	dst[x·depth+c] = BilinearF32 of row0[lo+c], row0[hi+c], row1[lo+c], row1[hi+c]
//
// with the weights (1−fy)(1−fx), (1−fy)·fx, fy·(1−fx), fy·fx, each a
// float32 product of float32 differences: TFLite's ResizeBilinearGeneric
// (optimized_ops), which forms the four weights per pixel and adds the
// scaled corners to a zeroed output in that order. dst must hold
// t.Len()·depth elements and not overlap the rows; each row must reach
// every offset + depth (it panics otherwise). Every implementation gives
// identical bits, except which payload a NaN result carries when two
// NaNs meet in a sum (as BilinearF32).
func BilinearRowF32(dst, row0, row1 []float32, t *BilinearTaps, fy float32) {
	if len(t.fx) == 0 {
		return
	}
	_ = dst[len(t.fx)*t.depth-1]
	_, _ = row0[t.maxOff+t.depth-1], row1[t.maxOff+t.depth-1]
	bilinearRowF32(dst, row0, row1, t, fy)
}
