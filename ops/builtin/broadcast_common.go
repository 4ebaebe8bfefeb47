package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// maxBroadcastRank is the largest rank TFLite's binary kernels broadcast
// (BroadcastAdd6DSlow and friends).
const maxBroadcastRank = 6

// broadcast holds, for a binary elementwise node, the output shape padded
// to six dimensions and each input's element strides (0 along broadcast
// dimensions), computed at Prepare so Eval walks the inputs without
// allocating. Every output element depends only on its two input
// elements, so visiting order does not affect results.
type broadcast struct {
	needed   bool
	count    int
	dims     [maxBroadcastRank]int
	strideA  [maxBroadcastRank]int
	strideB  [maxBroadcastRank]int
	outShape []int
}

// binaryInputs is the common Prepare of ADD, SUB and MUL: two inputs of
// one type, one output of that type, and the broadcast output shape
// (TFLite's CalculateShapeForBroadcast: trailing dimensions must match or
// be 1; a 0 against 1 gives 0).
func binaryInputs(n *ops.Node, bc *broadcast) (a, b, out *ops.Tensor, err error) {
	if err := n.CheckIO(2, 2, 1); err != nil {
		return nil, nil, nil, err
	}
	if a, err = n.RequireInput(0); err != nil {
		return nil, nil, nil, err
	}
	if b, err = n.RequireInput(1); err != nil {
		return nil, nil, nil, err
	}
	if out = n.Output(0); out == nil {
		return nil, nil, nil, errors.New("output 0 is missing")
	}
	if a.Type != b.Type {
		return nil, nil, nil, fmt.Errorf("input 1: type %s differs from input 0 type %s", b.Type, a.Type)
	}
	if out.Type != a.Type {
		return nil, nil, nil, fmt.Errorf("output 0: type %s differs from input type %s", out.Type, a.Type)
	}
	if _, err := numElementsChecked(a, "input 0"); err != nil {
		return nil, nil, nil, err
	}
	if _, err := numElementsChecked(b, "input 1"); err != nil {
		return nil, nil, nil, err
	}
	if err := bc.prepare(a.Shape, b.Shape); err != nil {
		return nil, nil, nil, err
	}
	out.Shape = bc.outShape
	return a, b, out, nil
}

func (bc *broadcast) prepare(sa, sb []int) error {
	*bc = broadcast{}
	rank := max(len(sa), len(sb))
	bc.outShape = make([]int, rank)
	bc.needed = !ops.SameShape(sa, sb)
	for i := 0; i < rank; i++ {
		da, db := 1, 1
		if j := len(sa) - rank + i; j >= 0 {
			da = sa[j]
		}
		if j := len(sb) - rank + i; j >= 0 {
			db = sb[j]
		}
		if da != db && da != 1 && db != 1 {
			return fmt.Errorf("input shapes %v and %v are not broadcastable", sa, sb)
		}
		d := max(da, db)
		if da == 0 || db == 0 {
			d = 0
		}
		bc.outShape[i] = d
	}
	// Walk the output dimensions, dropping those of size 1 and merging
	// neighbours that broadcast the same way (both inputs step, or one of
	// them repeats), so a loop of at most six dimensions covers any rank
	// whose broadcast pattern changes at most five times; then pad to six
	// with leading 1s and give each input its element strides (0 where it
	// repeats).
	type dim struct {
		n          int
		aRep, bRep bool
	}
	var merged [maxBroadcastRank]dim
	m := 0
	for i := 0; i < rank; i++ {
		d := bc.outShape[i]
		if d == 1 {
			continue
		}
		da, db := 1, 1
		if j := len(sa) - rank + i; j >= 0 {
			da = sa[j]
		}
		if j := len(sb) - rank + i; j >= 0 {
			db = sb[j]
		}
		cur := dim{n: d, aRep: da == 1, bRep: db == 1}
		if m > 0 && merged[m-1].aRep == cur.aRep && merged[m-1].bRep == cur.bRep {
			merged[m-1].n *= d
			continue
		}
		if m == maxBroadcastRank {
			return fmt.Errorf("input shapes %v and %v: broadcasting them needs more than %d dimensions", sa, sb, maxBroadcastRank)
		}
		merged[m] = cur
		m++
	}
	off := maxBroadcastRank - m
	for i := range bc.dims {
		bc.dims[i] = 1
	}
	sA, sB := 1, 1
	for i := m - 1; i >= 0; i-- {
		e := merged[i]
		bc.dims[off+i] = e.n
		if !e.aRep {
			bc.strideA[off+i] = sA
			sA *= e.n
		}
		if !e.bRep {
			bc.strideB[off+i] = sB
			sB *= e.n
		}
	}
	n, err := ops.ShapeElements(bc.outShape, 0)
	if err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	bc.count = n
	return nil
}

// broadcastApply computes out[i] = f(a[ia], b[ib]) over the broadcast
// output (broadcastMap with one element type).
func broadcastApply[T any](bc *broadcast, a, b, out []T, f func(x, y T) T) {
	broadcastMap(bc, a, b, out, f)
}

// eachRun calls run for every run of the innermost merged dimension of a
// broadcast that is needed (bc.needed), in output order: o is the output
// offset of the run's first element and ia, ib those of its operands. A
// run has bc.dims[5] elements; its operands step by bc.strideA[5] and
// bc.strideB[5] (0 where one repeats).
func (bc *broadcast) eachRun(run func(o, ia, ib int)) {
	d := &bc.dims
	bc.eachBlock(func(o, ia, ib int) {
		for i4 := 0; i4 < d[4]; i4++ {
			run(o, ia+i4*bc.strideA[4], ib+i4*bc.strideB[4])
			o += d[5]
		}
	})
}

// eachBlock is eachRun one level out (eachRun runs through it): it calls
// block for every run of the second-innermost merged dimension, with the offsets of its first
// element; the block holds bc.dims[4] runs of bc.dims[5] elements, its
// operands' runs bc.strideA[4] and bc.strideB[4] apart.
func (bc *broadcast) eachBlock(block func(o, ia, ib int)) {
	if bc.count == 0 {
		return
	}
	d := &bc.dims
	o := 0
	for i0 := 0; i0 < d[0]; i0++ {
		a0, b0 := i0*bc.strideA[0], i0*bc.strideB[0]
		for i1 := 0; i1 < d[1]; i1++ {
			a1, b1 := a0+i1*bc.strideA[1], b0+i1*bc.strideB[1]
			for i2 := 0; i2 < d[2]; i2++ {
				a2, b2 := a1+i2*bc.strideA[2], b1+i2*bc.strideB[2]
				for i3 := 0; i3 < d[3]; i3++ {
					block(o, a2+i3*bc.strideA[3], b2+i3*bc.strideB[3])
					o += d[4] * d[5]
				}
			}
		}
	}
}

// checkedLog2 is TFLite's CheckedLog2: in float32, log2(x) rounded, and
// whether x is a power of two to within 1e-3 in the exponent.
func checkedLog2(x float32) (int, bool) {
	l := float32(float32(math.Log(float64(x))) * float32(1/float32(math.Log(2))))
	r := roundf(l)
	return int(r), math.Abs(float64(l-r)) < 1e-3
}

// saturatingAdd16 adds two int16 values, clamping to the int16 range
// (gemmlowp's SaturatingAdd for int16).
func saturatingAdd16(a, b int16) int16 { return ops.SaturateInt16(int32(a) + int32(b)) }

// quantAddParams are the multipliers of TFLite's general 8-bit (left
// shift 20) and 16-bit (left shift 15) quantised ADD and SUB.
type quantAddParams struct {
	leftShift          int
	in1Off, in2Off     int32
	outOff             int32
	in1Mult, in2Mult   int32
	in1Shift, in2Shift int
	outMult            int32
	outShift           int
	actMin, actMax     int32
}

// prepareQuantAdd derives the parameters; allowOutAboveOne permits an
// output multiplier ≥ 1 (SUB does, ADD does not).
func (p *quantAddParams) prepare(a, b, out *ops.Tensor, act ops.Activation, int16General, allowOutAboveOne bool) error {
	s1, z1, err := perTensorQuant(a, "input 0")
	if err != nil {
		return err
	}
	s2, z2, err := perTensorQuant(b, "input 1")
	if err != nil {
		return err
	}
	so, zo, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	p.in1Off, p.in2Off, p.outOff = -z1, -z2, zo
	p.leftShift = 20
	if int16General {
		p.leftShift = 15
	}
	twiceMax := 2 * float64(max(s1, s2))
	p.in1Mult, p.in1Shift = ops.QuantizeMultiplier(float64(s1) / twiceMax)
	p.in2Mult, p.in2Shift = ops.QuantizeMultiplier(float64(s2) / twiceMax)
	realOut := twiceMax / (float64(int64(1)<<p.leftShift) * float64(so))
	if realOut >= 1 && !allowOutAboveOne {
		return fmt.Errorf("output 0: scale %g is too small for input scales %g and %g (rescale factor %g must be < 1)", so, s1, s2, realOut)
	}
	p.outMult, p.outShift = ops.QuantizeMultiplier(realOut)
	p.actMin, p.actMax, err = ActivationRangeQuantized(act, out)
	return err
}

// scaledInputs returns the two inputs brought to the common fixed-point
// scale (TFLite's AddFunc/SubFunc first half).
func (p *quantAddParams) scaledInputs(x, y int32) (int32, int32) {
	sx := ops.MultiplyByQuantizedMultiplierSmallerThanOneExp((p.in1Off+x)*(int32(1)<<p.leftShift), p.in1Mult, p.in1Shift)
	sy := ops.MultiplyByQuantizedMultiplierSmallerThanOneExp((p.in2Off+y)*(int32(1)<<p.leftShift), p.in2Mult, p.in2Shift)
	return sx, sy
}

// arch returns the parameters for arch.AddQuantInt8 and AddQuantUint8,
// which compute scaledInputs and finish in one pass:
// MultiplyByQuantizedMultiplierSmallerThanOneExp of the inputs is
// MultiplyByQuantizedMultiplier at the non-positive shifts prepare
// derives (input multipliers are at most one half), and finish picks the
// form of the output shift's sign as MultiplyByQuantizedMultiplier does.
func (p *quantAddParams) arch() arch.QuantAdd {
	return arch.QuantAdd{
		In1Offset: p.in1Off, In2Offset: p.in2Off, LeftShift: p.leftShift,
		In1Mult: p.in1Mult, In1Shift: p.in1Shift, In2Mult: p.in2Mult, In2Shift: p.in2Shift,
		OutMult: p.outMult, OutShift: p.outShift, OutOffset: p.outOff,
		Lo: p.actMin, Hi: p.actMax,
	}
}

// finish rescales a raw sum or difference to the output.
func (p *quantAddParams) finish(raw int32) int32 {
	var v int32
	if p.outShift <= 0 {
		v = ops.MultiplyByQuantizedMultiplierSmallerThanOneExp(raw, p.outMult, p.outShift)
	} else {
		v = ops.MultiplyByQuantizedMultiplier(raw, p.outMult, p.outShift)
	}
	return ops.ClampInt32(v+p.outOff, p.actMin, p.actMax)
}

// broadcastMap computes out[i] = f(a[ia], b[ib]) over the broadcast
// output, like broadcastApply but with a result type of its own.
func broadcastMap[A, O any](bc *broadcast, a, b []A, out []O, f func(x, y A) O) {
	if !bc.needed {
		a, b, out = a[:bc.count], b[:bc.count], out[:bc.count]
		for i := range out {
			out[i] = f(a[i], b[i])
		}
		return
	}
	n, sa, sb := bc.dims[5], bc.strideA[5], bc.strideB[5]
	bc.eachRun(func(o, ia, ib int) {
		dst := out[o : o+n]
		for i := range dst {
			dst[i] = f(a[ia+i*sa], b[ib+i*sb])
		}
	})
}

// vectorRuns computes a binary elementwise operator through the vector
// primitive f (with its parameters p) for every broadcast pattern. rep is the kernel's scratch (a stack array would escape
// through f), at least 2 elements and best a few hundred: f then always
// sees pieces long enough to vectorise.
//
//   - Equal shapes: one call over the whole output.
//   - Runs of the innermost merged dimension that are long (at least
//     vecMinRun) where each operand is contiguous along the run or
//     repeats one element along it (broadcasts that repeat whole rows,
//     scalars, columns): f run by run, a repeated element given as rep
//     filled with it.
//   - Short contiguous runs of both operands where one of them repeats a
//     whole row over the next dimension out (a [.., H, W, C] tensor and a
//     [C] row, C small): the row is tiled into rep a whole number of
//     times and f covers many rows per call.
//   - Anything else: both operands are gathered, in output order, into
//     the two halves of rep, and f runs on the gathered pieces.
func vectorRuns[T, P any](bc *broadcast, a, b, out []T, p *P, f func(dst, a, b []T, p *P), rep []T) {
	if !bc.needed {
		f(out[:bc.count], a[:bc.count], b[:bc.count], p)
		return
	}
	if bc.count == 0 {
		return
	}
	n, sa, sb := bc.dims[5], bc.strideA[5], bc.strideB[5]
	switch {
	case n >= vecMinRun && sa == 1 && sb == 1:
		bc.eachRun(func(o, ia, ib int) {
			f(out[o:o+n], a[ia:ia+n], b[ib:ib+n], p)
		})
	case n >= vecMinRun && sa+sb == 1:
		// One operand repeats one element along the run (a scalar, or
		// a [.., 1] column): it goes to f as rep (any length > 0)
		// holding that element, in pieces of rep's length.
		bc.eachRun(func(o, ia, ib int) {
			for s := 0; s < n; s += len(rep) {
				m := min(len(rep), n-s)
				r := rep[:m]
				if sb == 0 {
					fillValue(r, b[ib])
					f(out[o+s:o+s+m], a[ia+s:ia+s+m], r, p)
				} else {
					fillValue(r, a[ia])
					f(out[o+s:o+s+m], r, b[ib+s:ib+s+m], p)
				}
			}
		})
	case sa == 1 && sb == 1 && 2*n <= len(rep) && bc.dims[4] > 1 &&
		(bc.strideA[4] == n && bc.strideB[4] == 0 || bc.strideA[4] == 0 && bc.strideB[4] == n):
		tiledRuns(bc, a, b, out, p, f, rep)
	default:
		gatheredRuns(bc, a, b, out, p, f, rep)
	}
}

// vecMinRun is the shortest run vectorRuns hands to its primitive one
// by one; shorter runs are tiled or gathered into longer pieces.
const vecMinRun = 32

// tiledRuns is vectorRuns' case of short runs along which both operands
// are contiguous, one of them (the row) repeating over dimension 4 while
// the other steps on contiguously: the row, tiled into rep as many whole
// times as fit, is paired with the other operand over spans of
// dims[4]·dims[5] contiguous elements.
func tiledRuns[T, P any](bc *broadcast, a, b, out []T, p *P, f func(dst, a, b []T, p *P), rep []T) {
	d := &bc.dims
	n := d[5]
	span := d[4] * n
	rowIsB := bc.strideB[4] == 0
	tile := rep[:len(rep)/n*n]
	o := 0
	for i0 := 0; i0 < d[0]; i0++ {
		a0, b0 := i0*bc.strideA[0], i0*bc.strideB[0]
		for i1 := 0; i1 < d[1]; i1++ {
			a1, b1 := a0+i1*bc.strideA[1], b0+i1*bc.strideB[1]
			for i2 := 0; i2 < d[2]; i2++ {
				a2, b2 := a1+i2*bc.strideA[2], b1+i2*bc.strideB[2]
				for i3 := 0; i3 < d[3]; i3++ {
					ia, ib := a2+i3*bc.strideA[3], b2+i3*bc.strideB[3]
					var row, step []T
					if rowIsB {
						row, step = b[ib:ib+n], a[ia:ia+span]
					} else {
						row, step = a[ia:ia+n], b[ib:ib+span]
					}
					for j := 0; j < len(tile); j += n {
						copy(tile[j:j+n], row)
					}
					for s := 0; s < span; s += len(tile) {
						m := min(len(tile), span-s)
						if rowIsB {
							f(out[o+s:o+s+m], step[s:s+m], tile[:m], p)
						} else {
							f(out[o+s:o+s+m], tile[:m], step[s:s+m], p)
						}
					}
					o += span
				}
			}
		}
	}
}

// gatheredRuns is vectorRuns' general case: the operands of consecutive
// output elements are copied into the two halves of rep and f computes
// each filled piece.
func gatheredRuns[T, P any](bc *broadcast, a, b, out []T, p *P, f func(dst, a, b []T, p *P), rep []T) {
	h := len(rep) / 2
	ga, gb := rep[:h], rep[h:2*h]
	n, sa, sb := bc.dims[5], bc.strideA[5], bc.strideB[5]
	fill, o0 := 0, 0
	bc.eachRun(func(o, ia, ib int) {
		for s := 0; s < n; {
			m := min(n-s, h-fill)
			gatherStrided(ga[fill:fill+m], a, ia+s*sa, sa)
			gatherStrided(gb[fill:fill+m], b, ib+s*sb, sb)
			fill += m
			s += m
			if fill == h {
				f(out[o0:o0+h], ga, gb, p)
				o0 += h
				fill = 0
			}
		}
	})
	if fill > 0 {
		f(out[o0:o0+fill], ga[:fill], gb[:fill], p)
	}
}

// gatherStrided sets dst[j] = src[i+j·stride].
func gatherStrided[T any](dst, src []T, i, stride int) {
	switch stride {
	case 1:
		copy(dst, src[i:i+len(dst)])
	case 0:
		fillValue(dst, src[i])
	default:
		for j := range dst {
			dst[j] = src[i+j*stride]
		}
	}
}

// splitUnits is how a binary elementwise node's output is cut for
// threads (ops.Node.Parallel): into units of inner consecutive output
// elements each, along the outermost merged dimension larger than 1 (or
// single elements for equal shapes). part gives the broadcast of a range
// of units; every output element is computed from its own operands
// alone, so any split gives the same bits.
func (bc *broadcast) splitUnits() (units, inner int) {
	if !bc.needed {
		return bc.count, 1
	}
	if bc.count == 0 {
		return 0, 0
	}
	for i, d := range bc.dims {
		if d > 1 {
			inner = 1
			for _, e := range bc.dims[i+1:] {
				inner *= e
			}
			return d, inner
		}
	}
	return 1, 1 // a single element
}

// part returns bc restricted to the units [lo, hi) of splitUnits and the
// element offsets in a, b and the output where that part starts: the
// operator then runs on a[ao:], b[bo:], out[oo:] with p.
func (bc *broadcast) part(lo, hi int) (p broadcast, ao, bo, oo int) {
	p = *bc
	if !bc.needed {
		p.count = hi - lo
		return p, lo, lo, lo
	}
	for i, d := range bc.dims {
		if d > 1 {
			_, inner := bc.splitUnits()
			p.dims[i] = hi - lo
			p.count = (hi - lo) * inner
			return p, lo * bc.strideA[i], lo * bc.strideB[i], lo * inner
		}
	}
	return p, 0, 0, 0
}

// elementwiseRun is what the range function of a threaded binary
// elementwise Eval reads: the node's tensors, cleared when Eval returns.
type elementwiseRun struct{ a, b, out *ops.Tensor }

// repStride is the length of each thread's vectorRuns scratch (a few
// hundred elements, see vectorRuns).
const repStride = 512
