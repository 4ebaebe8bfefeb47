package builtin

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// PRelu is the kernel of TFLite's PRELU operator: y = x for x ≥ 0,
// alpha·x otherwise, with alpha (input 1) broadcast against the input
// numpy-style (TFLite's BroadcastPrelu4DSlow; up to 6 merged dimensions
// here). The output has the input's shape (TFLite refuses an alpha that
// would broadcast it larger).
//
// Types, as TFLite's PreluEval:
//   - float32 input, alpha and output;
//   - int8 or uint8 input, alpha and output, per-tensor quantisation:
//     TFLite's reference Prelu, with x = q_in − zp_in:
//     y = MultiplyByQuantizedMultiplier(x, in_scale/out_scale) for x ≥ 0,
//     MultiplyByQuantizedMultiplier(x·(q_alpha − zp_alpha),
//     in_scale·alpha_scale/out_scale) otherwise, plus zp_out, clamped to
//     the type (the multipliers from float32 quotients, as TFLite). Eval
//     runs arch.PReluQuantInt8/PReluQuantUint8 over vectorRuns' runs
//     where arch has an assembly kernel for them; otherwise (purego,
//     CPUs without one) the result depends on the input and alpha bytes
//     alone, so Prepare tabulates all 65536 pairs and Eval looks them
//     up;
//   - int16 input and output with int8 alpha: the same arithmetic,
//     computed per element.
type PRelu struct {
	bc        broadcast
	typ       ops.DataType
	inOffset  int32 // -input zero point
	aOffset   int32 // -alpha zero point
	outOffset int32
	m1, m2    int32
	s1, s2    int
	// qp holds the same parameters for arch.PReluQuantInt8/Uint8.
	qp arch.QuantPRelu
	// lut[alpha byte<<8 | input byte] is the 8-bit result, built only
	// when arch.PReluQuantVector is false at Prepare.
	lut []uint8
	// rep8 is preluRuns' scratch for the 8-bit kernels (allocated by
	// Prepare when they are used).
	rep8 []uint8
	// rep is vectorRuns' scratch for arch.PReluF32 (a repeated alpha,
	// a tiled alpha row, or both operands gathered), preluRepF32 per
	// thread; rep8 holds preluTile per thread.
	rep []float32
	// The float32, int8 and uint8 paths split the output over threads
	// (evalPart); run holds the tensors during Eval.
	run    elementwiseRun
	partFn func(worker, lo, hi int)
}

// preluRepF32 is the length of each thread's float32 scratch.
const preluRepF32 = 256

// preluF32Run is arch.PReluF32 in vectorRuns' form.
func preluF32Run(dst, x, alpha []float32, _ *struct{}) { arch.PReluF32(dst, x, alpha) }

// NewPRelu returns a PRELU kernel for one node.
func NewPRelu() ops.Kernel { return &PRelu{} }

func init() {
	register(ops.OpPRelu, NewPRelu, [2]int{1, 1})
}

// Prepare checks the types, sets the output shape and derives the
// quantised multipliers.
func (k *PRelu) Prepare(n *ops.Node) error {
	*k = PRelu{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	x, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	alpha, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(x, "input 0", ops.Float32, ops.Int8, ops.Uint8, ops.Int16); err != nil {
		return err
	}
	wantAlpha := x.Type
	if x.Type == ops.Int16 {
		wantAlpha = ops.Int8
	}
	if err := requireType(alpha, "input 1 (alpha)", wantAlpha); err != nil {
		return fmt.Errorf("%v with %s input", err, x.Type)
	}
	if out.Type != x.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, x.Type)
	}
	if _, err := numElementsChecked(x, "input 0"); err != nil {
		return err
	}
	if _, err := numElementsChecked(alpha, "input 1 (alpha)"); err != nil {
		return err
	}
	if err := k.bc.prepare(x.Shape, alpha.Shape); err != nil {
		return err
	}
	if !ops.SameShape(k.bc.outShape, x.Shape) {
		return fmt.Errorf("input 1 (alpha): shape %v would broadcast the input %v to %v; the output must keep the input's shape", alpha.Shape, x.Shape, k.bc.outShape)
	}
	out.Shape = copyShape(x.Shape)
	k.typ = x.Type
	k.partFn = k.evalPart
	if x.Type == ops.Float32 {
		k.rep = make([]float32, preluRepF32*n.Threads())
		return nil
	}
	inScale, inZP, err := perTensorQuant(x, "input 0")
	if err != nil {
		return err
	}
	aScale, aZP, err := perTensorQuant(alpha, "input 1 (alpha)")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	k.inOffset, k.aOffset, k.outOffset = -inZP, -aZP, outZP
	// TFLite forms both quotients in float32 before widening them.
	k.m1, k.s1 = ops.QuantizeMultiplier(float64(inScale / outScale))
	k.m2, k.s2 = ops.QuantizeMultiplier(float64(float32(inScale*aScale) / outScale))
	if x.Type == ops.Int16 {
		return nil
	}
	lo, hi := int32(0), int32(255)
	if x.Type == ops.Int8 {
		lo, hi = -128, 127
	}
	k.qp = arch.QuantPRelu{
		InOffset: k.inOffset, AlphaOffset: k.aOffset,
		PosMult: k.m1, PosShift: k.s1, NegMult: k.m2, NegShift: k.s2,
		OutOffset: k.outOffset, Lo: lo, Hi: hi,
	}
	if !arch.PReluQuantVector() {
		k.buildTable()
		return nil
	}
	k.rep8 = make([]uint8, preluTile*n.Threads())
	return nil
}

// preluTile is the length of the 8-bit kernels' scratch: a per-channel
// alpha row is tiled into it, so that one kernel call covers up to
// preluTile elements however short the row.
const preluTile = 4096

// preluRuns is vectorRuns for the 8-bit PRELU kernels, except that an
// alpha row shorter than half of rep repeating over the input's outer
// dimensions (the per-channel alpha of Keras' PReLU with shared axes) is
// always tiled: vectorRuns would hand a row of 32 or more elements to
// the kernel one row at a time, and each call broadcasts the kernel's
// parameters anew.
func preluRuns[T int8 | uint8](bc *broadcast, x, alpha, out []T, p *arch.QuantPRelu, f func(dst, x, alpha []T, p *arch.QuantPRelu), rep []T) {
	n := bc.dims[5]
	if bc.needed && bc.count > 0 && 2*n <= len(rep) && bc.strideA[5] == 1 && bc.strideB[5] == 1 &&
		bc.dims[4] > 1 && bc.strideA[4] == n && bc.strideB[4] == 0 {
		tiledRuns(bc, x, alpha, out, p, f, rep)
		return
	}
	vectorRuns(bc, x, alpha, out, p, f, rep)
}

// buildTable tabulates the 8-bit results of all 65536 input and alpha
// bytes into k.lut, which Eval then uses instead of the arch kernels.
func (k *PRelu) buildTable() {
	lo, hi := k.qp.Lo, k.qp.Hi
	k.lut = make([]uint8, 1<<16)
	for a := lo; a <= hi; a++ {
		for v := lo; v <= hi; v++ {
			k.lut[int(uint8(a))<<8|int(uint8(v))] = uint8(k.quantized(v, a, lo, hi))
		}
	}
}

// quantized is TFLite's quantised PRELU of input value v and alpha value
// a, clamped to [lo, hi].
func (k *PRelu) quantized(v, a, lo, hi int32) int32 {
	x := v + k.inOffset
	var y int32
	if x >= 0 {
		y = ops.MultiplyByQuantizedMultiplier(x, k.m1, k.s1)
	} else {
		y = ops.MultiplyByQuantizedMultiplier(x*(a+k.aOffset), k.m2, k.s2)
	}
	return min(max(y+k.outOffset, lo), hi)
}

// Eval applies the activation.
func (k *PRelu) Eval(n *ops.Node) error {
	x, alpha, out := n.Input(0), n.Input(1), n.Output(0)
	if x == nil || alpha == nil || out == nil {
		return errors.New("PRELU: input or output missing at Eval")
	}
	if err := checkData(x, alpha, out); err != nil {
		return err
	}
	switch k.typ {
	case ops.Float32, ops.Int8, ops.Uint8:
		// Threaded over parts of the output (evalPart).
		units, _ := k.bc.splitUnits()
		cost := 1
		if k.typ != ops.Float32 && k.lut == nil {
			cost = 4 // the requantisation
		}
		k.run = elementwiseRun{x, alpha, out}
		n.Parallel(units, k.bc.count*cost, k.partFn)
		k.run = elementwiseRun{}
	case ops.Int16:
		o := out.Int16s()
		a8 := alpha.Int8s()
		x16 := x.Int16s()
		if !k.bc.needed {
			for i := range o[:k.bc.count] {
				o[i] = int16(k.quantized(int32(x16[i]), int32(a8[i]), -32768, 32767))
			}
			return nil
		}
		cnt, sa, sb := k.bc.dims[5], k.bc.strideA[5], k.bc.strideB[5]
		k.bc.eachRun(func(oi, ia, ib int) {
			for i := range cnt {
				o[oi+i] = int16(k.quantized(int32(x16[ia+i*sa]), int32(a8[ib+i*sb]), -32768, 32767))
			}
		})
	}
	return nil
}

// evalPart computes the output units [lo, hi) (broadcast.splitUnits) of
// the float32, int8 and uint8 paths on worker's scratch. Every float
// layout goes through the vector primitive (vectorRuns tiles or gathers
// the broadcasts that have no long runs); the 8-bit ones through the arch
// kernels, or the table where the CPU has no vector kernel.
func (k *PRelu) evalPart(worker, lo, hi int) {
	bc, xo, ao, oo := k.bc.part(lo, hi)
	x, alpha, out := k.run.a, k.run.b, k.run.out
	switch {
	case k.typ == ops.Float32:
		rep := k.rep[worker*preluRepF32 : (worker+1)*preluRepF32]
		vectorRuns(&bc, x.Float32s()[xo:], alpha.Float32s()[ao:], out.Float32s()[oo:], &struct{}{}, preluF32Run, rep)
	case k.lut != nil:
		k.lookup(&bc, x.Data[xo:], alpha.Data[ao:], out.Data[oo:])
	case k.typ == ops.Int8:
		r := k.rep8[worker*preluTile : (worker+1)*preluTile]
		rep := unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(r))), len(r))
		preluRuns(&bc, x.Int8s()[xo:], alpha.Int8s()[ao:], out.Int8s()[oo:], &k.qp, arch.PReluQuantInt8, rep)
	default:
		preluRuns(&bc, x.Data[xo:], alpha.Data[ao:], out.Data[oo:], &k.qp, arch.PReluQuantUint8, k.rep8[worker*preluTile:(worker+1)*preluTile])
	}
}

// lookup is the table form of the 8-bit PRELU, over bc, of the input
// bytes xb and alpha bytes ab into ob.
func (k *PRelu) lookup(bc *broadcast, xb, ab, ob []byte) {
	lut := k.lut
	if !bc.needed {
		for i := range ob[:bc.count] {
			ob[i] = lut[int(ab[i])<<8|int(xb[i])]
		}
		return
	}
	cnt, sa, sb := bc.dims[5], bc.strideA[5], bc.strideB[5]
	bc.eachRun(func(oi, ia, ib int) {
		for i := range cnt {
			ob[oi+i] = lut[int(ab[ib+i*sb])<<8|int(xb[ia+i*sa])]
		}
	})
}
