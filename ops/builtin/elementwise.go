package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Unary is the kernel of TFLite's one-input element-wise math operators
// ABS, NEG, SQUARE, SQRT, RSQRT, EXP, LOG, SIN, COS, FLOOR, CEIL, ROUND,
// SIGN and LOGICAL_NOT: out[i] = f(in[i]), the output having the input's
// shape and type. They share one kernel as they share TFLite's
// elementwise.cc machinery; each operator's semantics are one case of
// Eval's switch.
//
// Type paths, as TFLite's kernels (elementwise.cc, neg.cc, exp.cc,
// floor.cc, ceil.cc, round.cc, sign.cc):
//   - float32 for all but LOGICAL_NOT, in float32 arithmetic (sinf, cosf,
//     logf, sqrtf, 1/sqrtf, expf: computed in float64 and rounded, which
//     agrees with a correctly rounded float32 libm); ROUND rounds half to
//     even (TFLite's RoundToNearest); SIGN maps NaN to NaN and ±0 to +0;
//   - ABS: int32; int16 without quantisation; int8 and quantised int16
//     (zero points 0) requantised as TFLite: |q − in_zp|, rescaled by
//     in_scale/out_scale with MultiplyByQuantizedMultiplier when the
//     scales differ, plus out_zp, saturated;
//   - NEG: int8, int16, int32, int64 (wrapping negation of the raw value);
//   - EXP and LOG: int8 through a 256-entry table built as TFLite's
//     LUTPopulate (LOG maps inputs ≤ 0 to the output's lowest value);
//   - SIGN: float64 and int32;
//   - LOGICAL_NOT: bool.
//
// Quantised int16 EXP/LOG/RSQRT and int8 RSQRT are not supported.
type Unary struct {
	op      ops.BuiltinOperator
	typ     ops.DataType
	quant   bool // ABS on int8 / quantised int16
	rescale bool
	inZP    int32
	outZP   int32
	mult    int32
	shift   int
	lut     [256]uint8 // EXP and LOG on int8
	useLUT  bool
}

var unaryNames = map[ops.BuiltinOperator]string{
	ops.OpAbs: "ABS", ops.OpNeg: "NEG", ops.OpSquare: "SQUARE", ops.OpSqrt: "SQRT", ops.OpRsqrt: "RSQRT", ops.OpExp: "EXP",
	ops.OpLog: "LOG", ops.OpSin: "SIN", ops.OpCos: "COS", ops.OpFloor: "FLOOR", ops.OpCeil: "CEIL", ops.OpRound: "ROUND",
	ops.OpSign: "SIGN", ops.OpLogicalNot: "LOGICAL_NOT",
}

// unaryTypes lists each operator's supported input types.
var unaryTypes = map[ops.BuiltinOperator][]ops.DataType{
	ops.OpAbs:        {ops.Float32, ops.Int8, ops.Int16, ops.Int32},
	ops.OpNeg:        {ops.Float32, ops.Int8, ops.Int16, ops.Int32, ops.Int64},
	ops.OpSquare:     {ops.Float32},
	ops.OpSqrt:       {ops.Float32},
	ops.OpRsqrt:      {ops.Float32},
	ops.OpExp:        {ops.Float32, ops.Int8},
	ops.OpLog:        {ops.Float32, ops.Int8},
	ops.OpSin:        {ops.Float32},
	ops.OpCos:        {ops.Float32},
	ops.OpFloor:      {ops.Float32},
	ops.OpCeil:       {ops.Float32},
	ops.OpRound:      {ops.Float32},
	ops.OpSign:       {ops.Float32, ops.Float64, ops.Int32},
	ops.OpLogicalNot: {ops.Bool},
}

// NewAbs returns an ABS kernel for one node.
func NewAbs() ops.Kernel { return &Unary{op: ops.OpAbs} }

// NewNeg returns a NEG kernel for one node.
func NewNeg() ops.Kernel { return &Unary{op: ops.OpNeg} }

// NewSquare returns a SQUARE kernel for one node.
func NewSquare() ops.Kernel { return &Unary{op: ops.OpSquare} }

// NewSqrt returns a SQRT kernel for one node.
func NewSqrt() ops.Kernel { return &Unary{op: ops.OpSqrt} }

// NewRsqrt returns an RSQRT kernel for one node.
func NewRsqrt() ops.Kernel { return &Unary{op: ops.OpRsqrt} }

// NewExp returns an EXP kernel for one node.
func NewExp() ops.Kernel { return &Unary{op: ops.OpExp} }

// NewLog returns a LOG kernel for one node.
func NewLog() ops.Kernel { return &Unary{op: ops.OpLog} }

// NewSin returns a SIN kernel for one node.
func NewSin() ops.Kernel { return &Unary{op: ops.OpSin} }

// NewCos returns a COS kernel for one node.
func NewCos() ops.Kernel { return &Unary{op: ops.OpCos} }

// NewFloor returns a FLOOR kernel for one node.
func NewFloor() ops.Kernel { return &Unary{op: ops.OpFloor} }

// NewCeil returns a CEIL kernel for one node.
func NewCeil() ops.Kernel { return &Unary{op: ops.OpCeil} }

// NewRound returns a ROUND kernel for one node.
func NewRound() ops.Kernel { return &Unary{op: ops.OpRound} }

// NewSign returns a SIGN kernel for one node.
func NewSign() ops.Kernel { return &Unary{op: ops.OpSign} }

// NewLogicalNot returns a LOGICAL_NOT kernel for one node.
func NewLogicalNot() ops.Kernel { return &Unary{op: ops.OpLogicalNot} }

// Prepare checks the types and builds the quantised tables.
func (k *Unary) Prepare(n *ops.Node) error {
	op := k.op
	*k = Unary{op: op}
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", unaryTypes[op]...); err != nil {
		return fmt.Errorf("%v for %s", err, unaryNames[op])
	}
	k.typ = in.Type
	switch {
	case op == ops.OpAbs && (in.Type == ops.Int8 || in.Type == ops.Int16 && isQuantized(in)):
		return k.prepareQuantAbs(in, out)
	case (op == ops.OpExp || op == ops.OpLog) && in.Type == ops.Int8:
		inScale, inZP, err := perTensorQuant(in, "input 0")
		if err != nil {
			return err
		}
		outScale, outZP, err := perTensorQuant(out, "output 0")
		if err != nil {
			return err
		}
		f := expf
		if op == ops.OpLog {
			// TFLite's table maps x ≤ 0 to the real value of the output's
			// lowest code.
			lowest := float32(-128-outZP) * outScale
			f = func(x float32) float32 {
				if x <= 0 {
					return lowest
				}
				return float32(math.Log(float64(x)))
			}
		}
		lutPopulate8(ops.Int8, inScale, inZP, outScale, outZP, f, &k.lut)
		k.useLUT = true
	}
	return nil
}

func (k *Unary) prepareQuantAbs(in, out *ops.Tensor) error {
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if in.Type == ops.Int16 && (inZP != 0 || outZP != 0) {
		return fmt.Errorf("input 0: quantised int16 ABS needs zero points 0, have input %d, output %d", inZP, outZP)
	}
	k.quant = true
	k.inZP, k.outZP = inZP, outZP
	k.rescale = inScale != outScale
	if k.rescale {
		k.mult, k.shift = ops.QuantizeMultiplier(float64(inScale / outScale))
	}
	return nil
}

// Eval applies the function.
func (k *Unary) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return fmt.Errorf("%s: input or output missing at Eval", unaryNames[k.op])
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	if k.useLUT {
		lookup8(in.Data[:cnt], out.Data[:cnt], &k.lut)
		return nil
	}
	if k.quant {
		if k.typ == ops.Int8 {
			absQuant(k, in.Int8s()[:cnt], out.Int8s()[:cnt], -128, 127)
		} else {
			absQuant(k, in.Int16s()[:cnt], out.Int16s()[:cnt], math.MinInt16, math.MaxInt16)
		}
		return nil
	}
	switch k.typ {
	case ops.Float32:
		unaryFloat32(k.op, in.Float32s()[:cnt], out.Float32s()[:cnt])
	case ops.Float64:
		o := out.Float64s()[:cnt]
		for i, x := range in.Float64s()[:cnt] {
			o[i] = signOf(x)
		}
	case ops.Int8:
		negate(in.Int8s()[:cnt], out.Int8s()[:cnt])
	case ops.Int16:
		if k.op == ops.OpNeg {
			negate(in.Int16s()[:cnt], out.Int16s()[:cnt])
			break
		}
		// ABS without quantisation: computed in int32 and truncated, so
		// |−32768| stays −32768 as in TFLite.
		o := out.Int16s()[:cnt]
		for i, x := range in.Int16s()[:cnt] {
			o[i] = int16(abs32(int32(x)))
		}
	case ops.Int32:
		o := out.Int32s()[:cnt]
		x := in.Int32s()[:cnt]
		switch k.op {
		case ops.OpAbs:
			for i, v := range x {
				o[i] = abs32(v)
			}
		case ops.OpNeg:
			negate(x, o)
		default: // SIGN
			for i, v := range x {
				o[i] = signOf(v)
			}
		}
	case ops.Int64:
		negate(in.Int64s()[:cnt], out.Int64s()[:cnt])
	case ops.Bool:
		o := out.Bools()[:cnt]
		for i, v := range in.Bools()[:cnt] {
			o[i] = !v
		}
	default:
		return errors.New("unary: type changed since Prepare")
	}
	return nil
}

// abs32 is |v| with −2^31 mapping to itself (two's-complement wrap).
func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func negate[T int8 | int16 | int32 | int64](in, out []T) {
	for i, v := range in {
		out[i] = -v
	}
}

// signOf is TFLite's SIGN: NaN stays NaN, positive → 1, negative → −1,
// zero → 0.
func signOf[T float32 | float64 | int32](x T) T {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x // NaN
}

func absQuant[T int8 | int16](k *Unary, in, out []T, lo, hi int32) {
	for i, q := range in {
		v := abs32(int32(q) - k.inZP)
		if k.rescale {
			v = ops.MultiplyByQuantizedMultiplier(v, k.mult, k.shift)
		}
		out[i] = T(ops.ClampInt32(v+k.outZP, lo, hi))
	}
}

// roundHalfEven is TFLite's RoundToNearest in float32: the floor, plus one
// when the fraction is above one half, or exactly one half with an odd
// floor.
func roundHalfEven(x float32) float32 {
	f := float32(math.Floor(float64(x)))
	d := x - f
	if d < 0.5 || d == 0.5 && math.Mod(float64(f), 2) == 0 {
		return f
	}
	return f + 1
}

func unaryFloat32(op ops.BuiltinOperator, in, out []float32) {
	switch op {
	case ops.OpAbs:
		for i, x := range in {
			out[i] = float32(math.Abs(float64(x)))
		}
	case ops.OpNeg:
		for i, x := range in {
			out[i] = -x
		}
	case ops.OpSquare:
		for i, x := range in {
			out[i] = x * x
		}
	case ops.OpSqrt:
		for i, x := range in {
			out[i] = float32(math.Sqrt(float64(x)))
		}
	case ops.OpRsqrt:
		for i, x := range in {
			out[i] = 1 / float32(math.Sqrt(float64(x)))
		}
	case ops.OpExp:
		for i, x := range in {
			out[i] = expf(x)
		}
	case ops.OpLog:
		for i, x := range in {
			out[i] = float32(math.Log(float64(x)))
		}
	case ops.OpSin:
		for i, x := range in {
			out[i] = float32(math.Sin(float64(x)))
		}
	case ops.OpCos:
		for i, x := range in {
			out[i] = float32(math.Cos(float64(x)))
		}
	case ops.OpFloor:
		for i, x := range in {
			out[i] = float32(math.Floor(float64(x)))
		}
	case ops.OpCeil:
		for i, x := range in {
			out[i] = float32(math.Ceil(float64(x)))
		}
	case ops.OpRound:
		for i, x := range in {
			out[i] = roundHalfEven(x)
		}
	case ops.OpSign:
		for i, x := range in {
			out[i] = signOf(x)
		}
	}
}
