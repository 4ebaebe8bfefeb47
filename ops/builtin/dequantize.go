package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Dequantize is the kernel of TFLite's DEQUANTIZE operator: a float32
// output of the input's shape.
//
// uint8, int8 and int16 (zero point 0, as TFLite requires) per-tensor:
// y = float32(scale · (q − zero_point)) with the product in float64
// (TFLite's Dequantize holds the scale as a double). Per-channel
// quantisation (more than one scale) along QuantizedDimension: y =
// float32(scale_c · float32(q − zp_c)) in float32, as TFLite's
// PerChannelDequantize. float16 input converts exactly to float32.
// Packed int4, uint4 and int2 inputs (versions 6 to 8) are unpacked (low
// bits first, int4 and int2 sign-extended) and dequantised as int8, as
// TFLite's kernel does after UnpackPackedIntToInt8. float8_e4m3fn and
// float8_e5m2 inputs (version 9) convert exactly to float32 (ml_dtypes;
// TFLite compiles that path into builds with
// TFLITE_ENABLE_EXTRA_REFERENCE_KERNELS only and refuses float8 in other
// builds).
//
// When the input is a ConstTensor the interpreter makes the output a
// PrecomputedTensor and calls Eval once, at AllocateTensors, instead of at
// every Invoke (TFLite's dequantize kernel does the same through a
// kTfLiteArenaRwPersistent output).
type Dequantize struct {
	scale    float64
	zp       int32
	chScales []float32
	chZPs    []int32
	chDim    int
	inner    int
	// lut8 is the per-tensor int8/uint8 result of each input byte
	// (lut8ok when it is filled).
	lut8   [256]float32
	lut8ok bool
	split  unarySplit // threads over parts of the output (part)
}

// NewDequantize returns a DEQUANTIZE kernel for one node.
func NewDequantize() ops.Kernel { return &Dequantize{} }

func init() {
	// TFLite registers 1-9 with one kernel that never reads the version.
	// 4 is produced by no rule of op_version.cc (runtime_version.cc dates
	// it to TF 2.2) and runs as the others; 6 to 9 are int4, int2, uint4
	// and float8 inputs.
	register(ops.OpDequantize, NewDequantize, [2]int{1, 9})
}

// Prepare checks the types and the quantisation.
func (k *Dequantize) Prepare(n *ops.Node) error {
	*k = Dequantize{}
	k.split.init(k.part)
	in, out, err := elementwiseUnary(n)
	if err != nil {
		return err
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	out.Shape = copyShape(in.Shape)
	switch in.Type {
	case ops.Float16, ops.Float8E4M3FN, ops.Float8E5M2:
		return nil
	case ops.Uint8, ops.Int8, ops.Int16, ops.Int4, ops.Uint4, ops.Int2:
	default:
		return fmt.Errorf("input 0: type %s not supported (uint8, int8, int16, int4, uint4, int2, float16, float8_e4m3fn, float8_e5m2)", in.Type)
	}
	if isPerChannel(in) {
		qd := in.Quant.QuantizedDimension
		if qd < 0 || qd >= in.Rank() {
			return fmt.Errorf("input 0: quantized dimension %d outside rank %d", qd, in.Rank())
		}
		nch := in.Shape[qd]
		if len(in.Quant.Scale) != nch || len(in.Quant.ZeroPoint) != nch {
			return fmt.Errorf("input 0: %d scales and %d zero points for %d channels along dimension %d", len(in.Quant.Scale), len(in.Quant.ZeroPoint), nch, qd)
		}
		k.chScales = in.Quant.Scale
		var err error
		if k.chZPs, err = ops.Alloc[int32](n, nch, "per-channel zero points"); err != nil {
			return err
		}
		for c, z := range in.Quant.ZeroPoint {
			if z < math.MinInt32 || z > math.MaxInt32 {
				return fmt.Errorf("input 0: channel %d zero point %d overflows int32", c, z)
			}
			k.chZPs[c] = int32(z)
		}
		k.chDim = nch
		k.inner = 1
		for _, d := range in.Shape[qd+1:] {
			k.inner *= d
		}
		return nil
	}
	s, zp, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	if in.Type == ops.Int16 && zp != 0 {
		return fmt.Errorf("input 0: int16 needs zero point 0, have %d", zp)
	}
	k.scale, k.zp = float64(s), zp
	if in.Type == ops.Int8 || in.Type == ops.Uint8 {
		for i := range k.lut8 {
			v := int32(i)
			if in.Type == ops.Int8 {
				v = int32(int8(i))
			}
			k.lut8[i] = float32(k.scale * float64(v-k.zp))
		}
		k.lut8ok = true
	}
	return nil
}

// Eval converts to float32.
func (k *Dequantize) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("DEQUANTIZE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	cost := 2
	if k.lut8ok {
		cost = 1
	}
	k.split.run(n, in, out, cnt, cost)
	return nil
}

// part computes the output elements [lo, hi).
func (k *Dequantize) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	y := out.Float32s()[lo:hi]
	if in.Type == ops.Float16 {
		for i, h := range in.Uint16s()[lo:hi] {
			y[i] = halfToFloat32(h)
		}
		return
	}
	if f, ok := float8FormatOf(in.Type); ok {
		for i, b := range in.Data[lo:hi] {
			y[i] = f.toFloat32(b)
		}
		return
	}
	if k.lut8ok && k.zp >= -1<<16 && k.zp <= 1<<16 {
		// float32(scale·(v − zp)) with the product in float64 is the
		// float32 product of float32(v − zp) and the float32 scale: the
		// float64 product of a 24-bit and a 17-bit integer is exact, so
		// both round the exact product once. Two vector passes.
		if in.Type == ops.Int8 {
			arch.Int8ToF32(y, in.Int8s()[lo:hi], -k.zp)
		} else {
			arch.Uint8ToF32(y, in.Data[lo:hi], -k.zp)
		}
		arch.VecScalarF32(y, y, float32(k.scale), arch.ScalarMul)
		return
	}
	if k.lut8ok {
		lut := &k.lut8
		for i, b := range in.Data[lo:hi] {
			y[i] = lut[b]
		}
		return
	}
	for i := range y {
		v := loadInt(in, lo+i)
		if k.chScales != nil {
			c := ((lo + i) / k.inner) % k.chDim
			y[i] = float32(k.chScales[c] * float32(v-k.chZPs[c]))
		} else {
			y[i] = float32(k.scale * float64(v-k.zp))
		}
	}
}
