package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// NumericVerifyName is the custom operator name of TFLite's debugging
// operator that compares a quantised tensor with its float reference.
const NumericVerifyName = "NumericVerify"

// NumericVerify is the kernel of TFLite's custom NumericVerify operator
// (LiteRT tflite/kernels/numeric_verify.cc, the reference kernel x86
// builds register). Input 0 is uint8, int8, int16 or float16; input 1 is
// the float32 reference with at least as many elements. Output 0 is
// float32 of input 0's shape: output[i] = dequant(input[i]) − ref[i] in
// float32, where dequant is DEQUANTIZE's arithmetic (per-tensor
// float32(double(scale)·(q − zp)), per-channel float32(scale_c ·
// float(q − zp_c)), float16 exactly), with TFLite's legacy parameters: a
// tensor without quantisation dequantises with scale 0 and zero point 0.
//
// Options, a FlexBuffers map read as TFLite's Init: tolerance (AsFloat,
// narrowed to float32) and log_if_failed (AsBool); missing keys read as
// 0 and false.
//
// With log_if_failed set and tolerance ≥ 0.1 the kernel checks each
// element in order: |output[i]| > tolerance·scale (the per-tensor legacy
// scale, 0 for per-channel and float16 tensors) fails the Invoke with
// TFLite's message ("Mismatch: … (tolerance) range percentage …"), the
// elements after it left unwritten. Otherwise it computes, in float64,
// the mean, the largest absolute difference and the population standard
// deviation of the differences, which TFLite logs and the kernel keeps in
// Stats (tflrun has no kernel log). A constant input is dequantised once:
// TFLite returns at once from every later Eval, leaving its persistent
// output as the first Eval wrote it, which the kernel reproduces by
// keeping that output.
type NumericVerify struct {
	tolerance float32
	logFailed bool
	// Stats is the last Eval's statistics (the non-checking mode).
	Stats NumericVerifyStats

	typ      ops.DataType
	scale    float32 // legacy per-tensor params
	zp       int32
	chScales []float32
	chZPs    []int32
	chDim    int
	inner    int
	count    int
	// Constant input: the output after the first Eval.
	constIn bool
	done    bool
	cache   []float32
}

// NumericVerifyStats are the statistics TFLite's NumericVerify logs:
// "std: %f, mean: %f, max_diff: %f (scale: %f, zero_point: %d)".
type NumericVerifyStats struct {
	Std, Mean, MaxDiff float64
	Scale              float32
	ZeroPoint          int32
}

// NewNumericVerify returns a NumericVerify kernel for one node.
func NewNumericVerify() ops.Kernel { return &NumericVerify{} }

func init() { registerCustom(NumericVerifyName, NewNumericVerify) }

// decodeNumericVerifyOptions reads tolerance and log_if_failed.
func decodeNumericVerifyOptions(b []byte) (float32, bool, error) {
	if len(b) == 0 {
		return 0, false, errors.New("custom_options are missing (NumericVerify reads tolerance and log_if_failed from a FlexBuffer map)")
	}
	m, err := flexbuffers.RootMap(b)
	if err != nil {
		return 0, false, fmt.Errorf("custom_options: %v", err)
	}
	tol, err := m.Float("tolerance")
	if err != nil {
		return 0, false, fmt.Errorf("custom_options: %v", err)
	}
	logFailed, err := m.Bool("log_if_failed")
	if err != nil {
		return 0, false, fmt.Errorf("custom_options: %v", err)
	}
	return float32(tol), logFailed, nil
}

// Prepare decodes the options and checks the node.
func (k *NumericVerify) Prepare(n *ops.Node) error {
	prev := *k
	*k = NumericVerify{}
	var err error
	if k.tolerance, k.logFailed, err = decodeNumericVerifyOptions(n.CustomOptions); err != nil {
		return err
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	ref, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Uint8, ops.Int8, ops.Int16, ops.Float16); err != nil {
		return err
	}
	if err := requireType(ref, "input 1 (reference)", ops.Float32); err != nil {
		return err
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, NumericVerify's output is float32", out.Type)
	}
	if k.count, err = numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	rc, err := numElementsChecked(ref, "input 1 (reference)")
	if err != nil {
		return err
	}
	if rc < k.count {
		return fmt.Errorf("input 1 (reference): %d elements for the %d of input 0 (TFLite would read past it)", rc, k.count)
	}
	k.typ = in.Type
	out.Shape = copyShape(in.Shape)
	if in.Quant != nil && len(in.Quant.Scale) == 1 {
		k.scale = in.Quant.Scale[0]
		if len(in.Quant.ZeroPoint) > 0 {
			k.zp = int32(in.Quant.ZeroPoint[0])
		}
	}
	if isPerChannel(in) {
		if in.Type == ops.Int16 || in.Type == ops.Float16 {
			return fmt.Errorf("input 0: per-channel %s is not supported (TFLite's dequantisation takes uint8 and int8 per channel)", in.Type)
		}
		q := in.Quant
		qd := q.QuantizedDimension
		if qd < 0 || qd >= in.Rank() {
			return fmt.Errorf("input 0: quantized dimension %d outside rank %d", qd, in.Rank())
		}
		nch := in.Shape[qd]
		if len(q.Scale) != nch {
			return fmt.Errorf("input 0: %d scales for %d channels along dimension %d", len(q.Scale), nch, qd)
		}
		if len(q.ZeroPoint) != nch && len(q.ZeroPoint) < 1 {
			return fmt.Errorf("input 0: %d zero points for %d channels", len(q.ZeroPoint), nch)
		}
		k.chScales = q.Scale
		if k.chZPs, err = ops.Alloc[int32](n, nch, "per-channel zero points"); err != nil {
			return err
		}
		for c := range k.chZPs {
			z := q.ZeroPoint[0]
			if len(q.ZeroPoint) == nch {
				z = q.ZeroPoint[c]
			}
			k.chZPs[c] = int32(z)
		}
		k.chDim, k.inner = nch, 1
		for _, d := range in.Shape[qd+1:] {
			k.inner *= d
		}
	}
	if in.Kind == ops.ConstTensor {
		k.constIn = true
		// TFLite's flag survives a new Prepare: keep the first output.
		if prev.done && len(prev.cache) == k.count {
			k.done, k.cache = true, prev.cache
		} else if k.cache, err = ops.Alloc[float32](n, k.count, "the constant input's output"); err != nil {
			return err
		}
	}
	return nil
}

// dequant is element i of input 0 as TFLite's DequantizeImpl computes it.
func (k *NumericVerify) dequant(in *ops.Tensor, i int) float32 {
	if k.typ == ops.Float16 {
		return halfToFloat32(in.Uint16s()[i])
	}
	v := loadInt(in, i)
	if k.chScales != nil {
		c := (i / k.inner) % k.chDim
		return k.chScales[c] * float32(v-k.chZPs[c])
	}
	return float32(float64(k.scale) * float64(v-k.zp))
}

// quantValue is TFLite's GetQuantizedValue (0 for float16).
func (k *NumericVerify) quantValue(in *ops.Tensor, i int) int32 {
	if k.typ == ops.Float16 {
		return 0
	}
	return loadInt(in, i)
}

// Eval computes the differences and checks or summarises them.
func (k *NumericVerify) Eval(n *ops.Node) error {
	in, ref, out := n.Input(0), n.Input(1), n.Output(0)
	if in == nil || ref == nil || out == nil {
		return errors.New("NumericVerify: an input or the output is missing at Eval")
	}
	if err := checkData(in, ref, out); err != nil {
		return err
	}
	y := out.Float32s()[:k.count]
	if k.constIn && k.done {
		copy(y, k.cache)
		return nil
	}
	r := ref.Float32s()[:k.count]
	err := k.compute(in, r, y)
	if k.constIn {
		// TFLite sets its flag before comparing, so even a failed first
		// Eval leaves the output later Evals return.
		k.done = true
		copy(k.cache, y)
	}
	return err
}

func (k *NumericVerify) compute(in *ops.Tensor, r, y []float32) error {
	if k.logFailed && float64(k.tolerance) >= 0.1 {
		maxDiff := k.tolerance * k.scale
		for i := range y {
			d := k.dequant(in, i)
			y[i] = d - r[i]
			diff := float32(math.Abs(float64(y[i])))
			if diff > maxDiff {
				return fmt.Errorf("Mismatch: %f is quantized to %d with (%f, %d). abs(%f - %f) = %f > %f (tolerance) range percentage %f",
					r[i], k.quantValue(in, i), k.scale, k.zp, r[i], d, diff, maxDiff, k.tolerance)
			}
		}
		return nil
	}
	// std::accumulate, then the max of |x| and the centred squares in
	// one pass each, as TFLite's transform and inner_product.
	sum := 0.0
	for i := range y {
		y[i] = k.dequant(in, i) - r[i]
		sum += float64(y[i])
	}
	cnt := float64(len(y))
	mean := sum / cnt
	maxDiff, sq := 0.0, 0.0
	for _, v := range y {
		x := float64(v)
		if a := math.Abs(x); maxDiff < a { // std::max(max_diff, |x|)
			maxDiff = a
		}
		c := x - mean
		sq += float64(c * c) // no fused multiply-add, as x86's SSE2
	}
	k.Stats = NumericVerifyStats{Std: math.Sqrt(sq / cnt), Mean: mean, MaxDiff: maxDiff, Scale: k.scale, ZeroPoint: k.zp}
	return nil
}
