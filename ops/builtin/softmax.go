package builtin

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Softmax is the kernel of TFLite's SOFTMAX operator: along the last
// dimension, y_i = e^(β(x_i − max x)) / Σ_j e^(β(x_j − max x)). The
// output has the input's shape.
//
// Type paths (input → output):
//
//   - float32 → float32: TFLite's x86 builtin kernel bit for bit
//     (optimized_ops::Softmax through Eigen; see softmaxFloatEigen);
//
//   - float16 → float16 (op version 4): TFLite's reference kernel with
//     tflite::half, float32 arithmetic and two roundings to half
//     (softmax_float16.go);
//
//   - int8 → int8, uint8 → uint8, int8 → int16, uint8 → int16: TFLite's
//     builtin kernel on x86 (optimized_ops::Softmax with the float table of
//     PopulateSoftmaxLookupTable, not the uint16 LUT that is ARM64-only):
//     table[255−d] = expf(−in_scale·β·d) for d = max − x in [0, 255], a
//     float32 row sum, probabilities scaled by 1/(sum·out_scale) and
//     rounded half away from zero (uint8 output: +0.5 and truncation, and
//     its zero point is ignored, exactly as TFLite's specialisation).
//
//   - int16 → int16 (op version 3): TFLite's reference SoftmaxInt16
//     (the only int16 kernel): x − max rescaled by β·in_scale so that
//     65535 steps span [−10, 0], e^x from a 513-entry interpolated table,
//     an int32 row sum normalised by its leading zeros, 1/(1+x) from a
//     second table, the products rounded back to Q0.15.
//
// As TFLite requires, an int8 → int8 output has zero point −128 and a
// scale within 0.1% of 1/256; int16 needs zero points 0 and an output
// scale within 0.1% of 2^-15.
type Softmax struct {
	beta     float32
	table    [256]float32
	outScale float32
	outZP    int32
	rows     int
	depth    int
	// int16: the rescaling multiplier and the two tables.
	mult16  int32
	shift16 int
	exp16   *[513]int16
	recip16 *[513]int16
	// Rows are split over threads (ops.Node.Parallel); rowsFn reads
	// the tensors in in and out during Eval.
	in, out *ops.Tensor
	rowsFn  func(worker, lo, hi int)
}

// NewSoftmax returns a SOFTMAX kernel for one node.
func NewSoftmax() ops.Kernel { return &Softmax{} }

// SoftmaxOptions is TFLite's SoftmaxOptions.
type SoftmaxOptions struct {
	Beta float32
}

func init() {
	// TFLite 1-4; 3 is int16, 4 float16.
	register(ops.OpSoftmax, NewSoftmax, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsSoftmaxOptions, decodeSoftmaxOptions)
}

// decodeSoftmaxOptions decodes TFLite's SoftmaxOptions table.
func decodeSoftmaxOptions(t ops.OptionsTable) (any, error) {
	var o schema.SoftmaxOptions
	initTable(&o, t)
	return &SoftmaxOptions{Beta: o.Beta()}, nil
}

// Prepare checks types and quantisation and builds the exp table.
func (k *Softmax) Prepare(n *ops.Node) error {
	*k = Softmax{}
	k.rowsFn = k.evalRows
	if o, ok := n.Options.(*SoftmaxOptions); ok && o != nil {
		k.beta = o.Beta
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SoftmaxOptions", n.Options)
	}
	in, out, err := elementwiseUnary(n)
	if err != nil {
		return err
	}
	if in.Rank() < 1 {
		return errors.New("input 0: rank 0, SOFTMAX needs at least 1 dimension")
	}
	out.Shape = copyShape(in.Shape)
	k.depth = in.Shape[in.Rank()-1]
	if k.depth > 0 {
		k.rows = in.NumElements() / k.depth
	}
	switch {
	case in.Type == ops.Float32 && out.Type == ops.Float32,
		in.Type == ops.Float16 && out.Type == ops.Float16:
		return nil
	case (in.Type == ops.Int8 || in.Type == ops.Uint8) && (out.Type == in.Type || out.Type == ops.Int16):
	case in.Type == ops.Int16 && out.Type == ops.Int16:
		return k.prepare16(in, out)
	default:
		return fmt.Errorf("output 0: type %s not supported with input type %s (float32→float32, float16→float16, int8→int8/int16, uint8→uint8/int16, int16→int16)", out.Type, in.Type)
	}
	inScale, _, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	if k.outScale, k.outZP, err = perTensorQuant(out, "output 0"); err != nil {
		return err
	}
	if in.Type == ops.Int8 && out.Type == ops.Int8 {
		if k.outZP != -128 {
			return fmt.Errorf("output 0: zero point %d, int8 SOFTMAX needs -128", k.outZP)
		}
		if math.Abs(float64(k.outScale)-1.0/256) > 0.001/256 {
			return fmt.Errorf("output 0: scale %g, int8 SOFTMAX needs 1/256", k.outScale)
		}
	}
	// PopulateSoftmaxLookupTable, in float32 arithmetic.
	scale := float32(-inScale * k.beta)
	for d := 0; d <= 255; d++ {
		k.table[255-d] = expf(float32(scale * float32(d)))
	}
	return nil
}

// softmaxTables16 are SoftmaxPrepare's two int16 tables, the same for
// every node: e^x over [−10, 0] and 1/(1+x) over [0, 1], both to a
// symmetric [−1, 1] output range.
var softmaxTables16 = sync.OnceValues(func() (*[513]int16, *[513]int16) {
	const r = math.MaxInt16 - math.MinInt16
	var e, inv [513]int16
	lutPopulate16Double(&e, 10.0/r, math.MaxInt16, 2.0/r, 0, math.Exp)
	lutPopulate16Double(&inv, 1.0/r, math.MinInt16, 2.0/r, 0, func(x float64) float64 { return 1 / (1 + x) })
	return &e, &inv
})

// prepare16 checks the int16 quantisation and derives the multiplier.
func (k *Softmax) prepare16(in, out *ops.Tensor) error {
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	if k.outScale, k.outZP, err = perTensorQuant(out, "output 0"); err != nil {
		return err
	}
	if inZP != 0 || k.outZP != 0 {
		return fmt.Errorf("input 0: int16 SOFTMAX needs zero points 0, have %d (input) and %d (output)", inZP, k.outZP)
	}
	// TF_LITE_ENSURE_NEAR, in float32.
	if d := k.outScale - float32(1.0/32768); d > 0.001/32768 || -d > 0.001/32768 {
		return fmt.Errorf("output 0: scale %g, int16 SOFTMAX needs 2^-15", k.outScale)
	}
	// input_scale·β is a float32 product; the quotient is double.
	m := float64(inScale*k.beta) / (10.0 / 65535.0)
	if !(m > 0) || math.IsInf(m, 0) || m >= 1<<31 {
		return fmt.Errorf("input 0: scale %g × beta %g gives the rescaling multiplier %g, outside (0, 2^31)", inScale, k.beta, m)
	}
	k.mult16, k.shift16 = ops.QuantizeMultiplier(m)
	k.exp16, k.recip16 = softmaxTables16()
	return nil
}

// softmax16 is TFLite's reference SoftmaxInt16 over the rows [lo, hi).
func (k *Softmax) softmax16(x, y []int16, lo, hi int) {
	d := k.depth
	for r := lo; r < hi; r++ {
		xr, yr := x[r*d:r*d+d], y[r*d:r*d+d]
		mx := int16(math.MinInt16)
		for _, v := range xr {
			mx = max(mx, v)
		}
		// The exponentials go into the output first, as TFLite keeps them.
		var sum int32 // Q16.15
		for i, v := range xr {
			s := ops.MultiplyByQuantizedMultiplier(int32(v)-int32(mx), k.mult16, k.shift16) + 32767
			e := lutLookup16(int16(min(max(s, math.MinInt16), math.MaxInt16)), k.exp16)
			yr[i] = e
			sum += int32(e)
		}
		h := bits.LeadingZeros32(uint32(sum)) // headroom + 1
		shifted := int32((int64(sum)<<(h-1) + 1<<13) >> 14)
		sym := shifted - (1<<15 + 1<<16)
		recip := int64(lutLookup16(int16(min(max(sym, math.MinInt16), math.MaxInt16)), k.recip16))
		rs := 31 - h
		round := int64(1) << (rs - 1)
		for i, e := range yr {
			v := int32((int64(e)*recip + round) >> rs)
			yr[i] = int16(min(max(v, 0), math.MaxInt16))
		}
	}
}

// Eval computes the softmax of every row.
func (k *Softmax) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("SOFTMAX: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cost := 4
	if in.Type == ops.Float32 || in.Type == ops.Float16 {
		cost = 32 // an exp and a division per value
	}
	k.in, k.out = in, out
	n.Parallel(k.rows, k.rows*k.depth*cost, k.rowsFn)
	k.in, k.out = nil, nil
	return nil
}

// evalRows computes the softmax of the rows [lo, hi).
func (k *Softmax) evalRows(worker, lo, hi int) {
	in, out, d := k.in, k.out, k.depth
	switch in.Type {
	case ops.Float32:
		softmaxFloatEigen(in.Float32s(), out.Float32s(), k.rows*d, d, k.beta, lo, hi)
	case ops.Float16:
		softmaxHalfRows(in.Uint16s(), out.Uint16s(), d, k.beta, lo, hi)
	case ops.Int8:
		softmaxQuant(k, in.Int8s(), out, lo, hi)
	case ops.Uint8:
		softmaxQuant(k, in.Uint8s(), out, lo, hi)
	case ops.Int16:
		k.softmax16(in.Int16s(), out.Int16s(), lo, hi)
	}
}

// softmaxQuant is the quantised row loop shared by int8 and uint8 inputs,
// TFLite's optimized_ops Softmax with its float table: the row's maximum,
// the float32 sum of its table entries in order, one reciprocal, then each
// value's entry times it, rounded and offset. It gives softmaxQuantRef's
// bits with less work per value: rows go four at a time through the sums
// (four independent float32 chains, each row's still summed in order),
// table indices are bytes (no bounds check) and, since every rescaled
// probability p of the row lies in [0, inv] (the largest entry is e^0 =
// 1), a row with inv < 2^23 rounds p half away from zero (std::round,
// roundf) as ⌊float64(p) + 1/2⌋ (exact there: p has 24 bits and is below
// 2^23), with no range checks; other rows go to softmaxQuantRef.
func softmaxQuant[T int8 | uint8](k *Softmax, x []T, out *ops.Tensor, lo, hi int) {
	d := k.depth
	var o8 []int8
	var u8 []uint8
	var o16 []int16
	switch out.Type {
	case ops.Int8:
		o8 = out.Int8s()
	case ops.Uint8:
		u8 = out.Uint8s()
	default:
		o16 = out.Int16s()
	}
	tab, zp := &k.table, k.outZP
	var offs [4]int32
	var sums [4]float32
	for r := lo; r < hi; {
		nb := min(4, hi-r)
		// off + v is in [0, 255] for every v of the row.
		if nb == 4 {
			softmaxOffs4(x[r*d:(r+4)*d], d, &offs)
			softmaxSums4(tab, x[r*d:(r+4)*d], d, &offs, &sums)
		} else {
			for i := range nb {
				offs[i] = 255 - softmaxRowMax(x[(r+i)*d:(r+i+1)*d])
				sums[i] = softmaxRowSum(tab, x[(r+i)*d:(r+i+1)*d], offs[i])
			}
		}
		for i := range nb {
			row := r + i
			xr := x[row*d : row*d+d]
			inv := float32(1) / float32(sums[i]*k.outScale)
			if !(inv < 1<<23) {
				softmaxQuantRef(k, x, out, row, row+1)
				continue
			}
			off := offs[i]
			switch {
			case u8 != nil:
				// TFLite's uint8 output truncates p + 0.5 (in float32).
				dst := u8[row*d : row*d+d]
				for j, v := range xr {
					p := float32(tab[uint8(off+int32(v))] * inv)
					dst[j] = uint8(min(int32(float32(p+0.5)), 255))
				}
			case o8 != nil:
				softmaxRowInt8(o8[row*d:row*d+d], xr, tab, off, inv, zp)
			default:
				dst := o16[row*d : row*d+d]
				for j, v := range xr {
					q := roundPosF32(float32(tab[uint8(off+int32(v))]*inv)) + zp
					dst[j] = int16(ops.ClampInt32(q, math.MinInt16, math.MaxInt16))
				}
			}
		}
		r += nb
	}
}

// softmaxRowMax is the largest value of a non-empty row. The maximum is
// taken without branches (the compiler branches on max of bytes, and
// random rows mispredict).
func softmaxRowMax[T int8 | uint8](xr []T) int32 {
	m := int32(xr[0])
	for _, v := range xr {
		m = maxNoBranch(m, int32(v))
	}
	return m
}

// maxNoBranch is max(a, b) for a − b within int32.
func maxNoBranch(a, b int32) int32 {
	d := a - b
	return a - d&(d>>31)
}

// softmaxOffs4 sets offs[i] to 255 minus the largest value of row i of
// the four rows of length d ≥ 1 in x.
func softmaxOffs4[T int8 | uint8](x []T, d int, offs *[4]int32) {
	x0, x1, x2, x3 := x[:d], x[d:2*d], x[2*d:3*d], x[3*d:4*d]
	m0, m1, m2, m3 := int32(x0[0]), int32(x1[0]), int32(x2[0]), int32(x3[0])
	for j := range x0 {
		m0 = maxNoBranch(m0, int32(x0[j]))
		m1 = maxNoBranch(m1, int32(x1[j]))
		m2 = maxNoBranch(m2, int32(x2[j]))
		m3 = maxNoBranch(m3, int32(x3[j]))
	}
	offs[0], offs[1], offs[2], offs[3] = 255-m0, 255-m1, 255-m2, 255-m3
}

// softmaxRowSum is the float32 sum, in order, of the row's table entries
// at off + v.
func softmaxRowSum[T int8 | uint8](tab *[256]float32, xr []T, off int32) float32 {
	var sum float32
	for _, v := range xr {
		sum += tab[uint8(off+int32(v))]
	}
	return sum
}

// softmaxSums4 is softmaxRowSum of the four rows of length d in x (with
// offsets offs) into sums, interleaved so that the four dependent chains
// of additions overlap.
func softmaxSums4[T int8 | uint8](tab *[256]float32, x []T, d int, offs *[4]int32, sums *[4]float32) {
	x0, x1, x2, x3 := x[:d], x[d:2*d], x[2*d:3*d], x[3*d:4*d]
	o0, o1, o2, o3 := offs[0], offs[1], offs[2], offs[3]
	var s0, s1, s2, s3 float32
	for j := range x0 {
		s0 += tab[uint8(o0+int32(x0[j]))]
		s1 += tab[uint8(o1+int32(x1[j]))]
		s2 += tab[uint8(o2+int32(x2[j]))]
		s3 += tab[uint8(o3+int32(x3[j]))]
	}
	sums[0], sums[1], sums[2], sums[3] = s0, s1, s2, s3
}

// softmaxRowInt8 writes one int8 output row: round(tab[off+v]·inv) + zp
// clamped to int8, for a row whose inv is below 2^23 (see softmaxQuant).
func softmaxRowInt8[T int8 | uint8](dst []int8, xr []T, tab *[256]float32, off int32, inv float32, zp int32) {
	dst = dst[:len(xr)]
	for j, v := range xr {
		p := float32(tab[uint8(off+int32(v))] * inv)
		q := int32(float64(p)+0.5) + zp
		dst[j] = int8(min(max(q, math.MinInt8), math.MaxInt8))
	}
}

// roundPosF32 is f32ToInt32(roundf(p)) for p in [0, 2^23): the truncation
// t and the remainder p - t are exact there, and p rounds up exactly when
// the remainder is at least 1/2 (half away from zero).
func roundPosF32(p float32) int32 {
	t := int32(p)
	if p-float32(t) >= 0.5 {
		t++
	}
	return t
}

// softmaxQuantRef is the quantised row loop of TFLite's optimized_ops
// Softmax (the float table) as written there, one row and one value at a
// time: the reference softmaxQuant is tested against, and softmaxQuant's
// path for a row whose largest rescaled probability is not below 2^23
// (an output scale far smaller than 1/256).
func softmaxQuantRef[T int8 | uint8](k *Softmax, x []T, out *ops.Tensor, lo, hi int) {
	d := k.depth
	var o8 []int8
	var u8 []uint8
	var o16 []int16
	switch out.Type {
	case ops.Int8:
		o8 = out.Int8s()
	case ops.Uint8:
		u8 = out.Uint8s()
	default:
		o16 = out.Int16s()
	}
	for r := lo; r < hi; r++ {
		xr := x[r*d : r*d+d]
		maxVal := int32(xr[0])
		for _, v := range xr {
			maxVal = max(maxVal, int32(v))
		}
		off := 255 - maxVal
		var sum float32
		for _, v := range xr {
			sum += k.table[off+int32(v)]
		}
		inv := float32(1) / float32(sum*k.outScale)
		// One loop per output type (the type test out of the loop).
		tab := &k.table
		switch {
		case u8 != nil:
			// TFLite's x86 uint8 specialisation: +0.5 and truncate, no
			// zero point.
			dst := u8[r*d : r*d+d]
			for i, v := range xr {
				p := float32(tab[off+int32(v)] * inv)
				dst[i] = uint8(ops.ClampInt32(f32ToInt32(float32(p+0.5)), 0, 255))
			}
		case o8 != nil:
			dst := o8[r*d : r*d+d]
			for i, v := range xr {
				p := float32(tab[off+int32(v)] * inv)
				dst[i] = int8(ops.ClampInt32(f32ToInt32(roundf(p))+k.outZP, -128, 127))
			}
		default:
			dst := o16[r*d : r*d+d]
			for i, v := range xr {
				p := float32(tab[off+int32(v)] * inv)
				dst[i] = int16(ops.ClampInt32(f32ToInt32(roundf(p))+k.outZP, math.MinInt16, math.MaxInt16))
			}
		}
	}
}
