// Package quantize applies post-training weight quantisation to a
// converted (legalised) function, as TensorFlow Lite's converter does with
// Optimize.DEFAULT and no representative dataset ("dynamic range") or with
// float16 as the target type.
//
// Dynamic range (Mode Dynamic), following TFLite's MLIR dynamic-range
// quantiser (prepare_quantize_dynamic_range.cc) and operator versions
// (tools/versioning/op_version.cc):
//
//   - A constant float32 weight with at least MinElements elements (1024
//     by default, TFLite's minimum_elements_for_weights) is stored as int8,
//     symmetric (zero point 0) in the narrow range [-127, 127]: scale =
//     max|w| / 127 per tensor, or per output channel where TFLite's
//     operator takes per-channel weights, q = round(w / scale) (half away
//     from zero).
//   - FULLY_CONNECTED (weights, per channel along dimension 0, as TFLite's
//     converter does for dense layers since per-channel dense
//     quantisation became its default) and CONV_2D (filter, per channel
//     along dimension 0) then run their hybrid kernels: float32 input,
//     int8 weights, float32 output. FULLY_CONNECTED gets
//     asymmetric_quantize_inputs, as TFLite sets it.
//   - UNIDIRECTIONAL_SEQUENCE_LSTM, LSTM (full kernel),
//     BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN,
//     BIDIRECTIONAL_SEQUENCE_RNN and SVDF quantise their weight matrices
//     (and LSTM peephole and projection weights) per tensor and run their
//     hybrid kernels with asymmetric_quantize_inputs. Their kernels need
//     every weight of one type, so — as TFLite does for
//     UNIDIRECTIONAL_SEQUENCE_LSTM — an operator is quantised only when
//     all its weights reach MinElements, else left float.
//   - tflrun's custom UNIDIRECTIONAL_SEQUENCE_GRU quantises its gate and
//     candidate weights per row (dimension 0; per tensor with Legacy),
//     both or neither, and runs its hybrid kernel (fused package; TFLite
//     has no hybrid GRU, the arithmetic is its hybrid LSTM's, activations
//     quantised asymmetrically per batch row).
//   - EMBEDDING_LOOKUP's table is quantised per tensor (its hybrid lookup
//     dequantises the rows it reads).
//   - DEPTHWISE_CONV_2D's filter is quantised per channel along dimension
//     3 and, since tflrun's depthwise kernel has no hybrid path, read
//     through a DEQUANTIZE operator (weight-only quantisation; TFLite would
//     run its hybrid depthwise kernel, version 6).
//
// Operator versions are set as op_version.cc assigns them (hybrid
// FULLY_CONNECTED 3 / 9 with asymmetric inputs / 12 per channel, CONV_2D
// 2 / 5 per channel, LSTM family 2–4, RNN family 2 / 3, SVDF 2 / 4,
// DEQUANTIZE 2 / 5 per channel / 3 for float16).
//
// Options.Legacy reproduces the older converter instead (TensorFlow 2.2–
// 2.4, and the TF1 --post_training_quantize flag): every weight per tensor
// and symmetric input quantisation, as in the DTLN model_quant_*.tflite
// files TensorFlow produced.
//
// Float16 (Mode Float16): every constant float32 operand of an operator
// is stored as IEEE float16 (values clamped to ±65504) and read through a
// DEQUANTIZE operator (version 3), as TFLite's float16 quantisation does,
// the recurrent operators' weights included (tflrun's interpreter computes
// a DEQUANTIZE of a constant once, before the operators reading it are
// prepared, so the LSTM and GRU kernels still pack them).
package quantize

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Mode selects the quantisation.
type Mode int

// The quantisation modes.
const (
	// None leaves the model float32.
	None Mode = iota
	// Dynamic stores weights as int8 and runs hybrid kernels.
	Dynamic
	// Float16 stores weights as float16 behind DEQUANTIZE operators.
	Float16
)

// String is the flag spelling ("none", "dynamic", "float16").
func (m Mode) String() string {
	switch m {
	case None:
		return "none"
	case Dynamic:
		return "dynamic"
	case Float16:
		return "float16"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a --quantize value: "" or "none", "dynamic" (also
// "dynamic_range"), "float16" (also "fp16"). "int8" is refused with an
// explanation: it usually means full-integer quantisation (int8
// activations too, from calibration data), which this converter does not
// do; dynamic gives int8 weights with float activations.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "none":
		return None, nil
	case "dynamic", "dynamic_range":
		return Dynamic, nil
	case "float16", "fp16":
		return Float16, nil
	case "int8", "full_integer", "integer":
		return None, fmt.Errorf("%q (full-integer quantisation, int8 activations from calibration data) is not supported; dynamic stores int8 weights and keeps float activations", s)
	}
	return None, fmt.Errorf("unknown quantization %q (want none, dynamic or float16)", s)
}

// DefaultMinElements is TFLite's minimum_elements_for_weights.
const DefaultMinElements = 1024

// Options configure Apply.
type Options struct {
	Mode Mode
	// MinElements is the smallest weight tensor quantised in Dynamic mode
	// (0 means DefaultMinElements).
	MinElements int
	// Legacy quantises every weight per tensor with symmetric input
	// quantisation, as TensorFlow's converter did before per-channel
	// dynamic range and asymmetric inputs (TF 2.2–2.4).
	Legacy bool
	// Scales are per-tensor scales the weights were quantised with
	// before (a re-fused dynamic-range .tflite loop's int8 weights,
	// dequantised for fusion). In Dynamic mode a float32 weight of a
	// per-tensor operand whose every value is an integer multiple k·s of
	// one of them (|k| ≤ 127, within float rounding) is quantised with
	// that scale, to those integers, whatever its size: the operator then
	// computes with the very int8 values and scale the model had.
	Scales []float32
}

// Summary says what Apply did.
type Summary struct {
	// Weights lists each quantised weight tensor once.
	Weights []Weight
	// Skipped lists operators and weight tensors left float and why:
	// weights below MinElements (for the LSTM, RNN and GRU families, one
	// small weight keeps the whole operator float), operators without a
	// hybrid form reading large float32 constants, and
	// operators whose activations are not float32.
	Skipped []string
	// BytesBefore and BytesAfter are the constant bytes of the quantised
	// tensors before and after.
	BytesBefore, BytesAfter int
}

// Weight is one quantised tensor.
type Weight struct {
	Name string
	// Op is the first operator reading it and Input the operand index.
	Op    string
	Input int
	// DType is int8 or float16; PerChannel tells whether scales are per
	// channel (along Dim).
	DType      ir.DType
	PerChannel bool
	Dim        int
	// DequantizeOp tells whether it is read through a DEQUANTIZE operator.
	DequantizeOp bool
}

// Apply quantises f (legalised: TFLite operators and constants only) in
// place. Errors name the operator and operand (a weight whose values are
// not finite).
func Apply(f *ir.Function, opts Options) (*Summary, error) {
	q := &quantizer{f: f, opts: opts, sum: &Summary{}, cache: map[cacheKey]*ir.Value{}}
	if q.opts.MinElements <= 0 {
		q.opts.MinElements = DefaultMinElements
	}
	var err error
	switch opts.Mode {
	case None:
		return q.sum, nil
	case Dynamic:
		err = q.dynamic()
	case Float16:
		err = q.float16()
	default:
		return nil, fmt.Errorf("unknown quantization mode %d", int(opts.Mode))
	}
	if err != nil {
		return nil, err
	}
	f.RemoveUnused()
	return q.sum, nil
}

type cacheKey struct {
	v    *ir.Value
	dim  int // -1 per tensor
	kind int // 0 int8 operand, 1 int8 behind DEQUANTIZE, 2 float16 behind DEQUANTIZE
}

type quantizer struct {
	f     *ir.Function
	opts  Options
	sum   *Summary
	cache map[cacheKey]*ir.Value
}

// weightSpec says how one operator's weights are quantised.
type weightSpec struct {
	inputs []int
	// dim is the per-channel dimension (-1: per tensor).
	dim int
	// allOrNothing: quantise only when every present weight qualifies.
	allOrNothing bool
	// dequantize: read the int8 weight through a DEQUANTIZE operator.
	dequantize bool
}

func span(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// lstmWeights are the quantisable operands of LSTM and
// UNIDIRECTIONAL_SEQUENCE_LSTM: input and recurrent weights, peepholes,
// projection weights.
var lstmWeights = append(span(1, 11), 16)

// bilstmWeights add the backward direction and the auxiliary weights.
var bilstmWeights = append(append(append(append(span(1, 11), 16), span(18, 28)...), 33), span(40, 47)...)

// spec returns how n's weights are quantised in Dynamic mode (ok false
// for operators without a hybrid or weight-only form here).
func (q *quantizer) spec(n *ir.Node) (weightSpec, bool) {
	perChannel := func(d int) int {
		if q.opts.Legacy {
			return -1
		}
		return d
	}
	switch n.TFL.Builtin {
	case schema.BuiltinOperatorFULLY_CONNECTED:
		return weightSpec{inputs: []int{1}, dim: perChannel(0)}, true
	case schema.BuiltinOperatorCONV_2D:
		return weightSpec{inputs: []int{1}, dim: perChannel(0)}, true
	case schema.BuiltinOperatorDEPTHWISE_CONV_2D:
		return weightSpec{inputs: []int{1}, dim: perChannel(3), dequantize: true}, true
	case schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM:
		in := lstmWeights
		if o, ok := optionsValue(n.TFL).(*schema.UnidirectionalSequenceLSTMOptionsT); ok && o != nil && o.DiagonalRecurrentTensors {
			// Diagonal recurrent weights stay float32 in TFLite's hybrid
			// kernel.
			in = []int{1, 2, 3, 4, 9, 10, 11, 16}
		}
		return weightSpec{inputs: in, dim: -1, allOrNothing: true}, true
	case schema.BuiltinOperatorLSTM:
		if o, ok := optionsValue(n.TFL).(*schema.LSTMOptionsT); ok && o != nil && o.KernelType == schema.LSTMKernelTypeBASIC {
			return weightSpec{}, false // the basic kernel has no hybrid form
		}
		return weightSpec{inputs: lstmWeights, dim: -1, allOrNothing: true}, true
	case schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM:
		return weightSpec{inputs: bilstmWeights, dim: -1, allOrNothing: true}, true
	case schema.BuiltinOperatorRNN, schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN, schema.BuiltinOperatorSVDF:
		return weightSpec{inputs: []int{1, 2}, dim: -1, allOrNothing: true}, true
	case schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_RNN:
		return weightSpec{inputs: []int{1, 2, 5, 6, 10, 11}, dim: -1, allOrNothing: true}, true
	case schema.BuiltinOperatorEMBEDDING_LOOKUP:
		return weightSpec{inputs: []int{1}, dim: -1}, true
	case schema.BuiltinOperatorCUSTOM:
		if n.TFL.Custom == "UNIDIRECTIONAL_SEQUENCE_GRU" {
			// tflrun's hybrid GRU: gate and candidate weights, one scale
			// per row (per tensor with Legacy); both or neither.
			return weightSpec{inputs: []int{2, 4}, dim: perChannel(0), allOrNothing: true}, true
		}
	}
	return weightSpec{}, false
}

// floatConst reports whether v is a float32 constant weight.
func floatConst(v *ir.Value) bool {
	return v != nil && v.Const != nil && v.DType == ir.Float32 && v.Const.DType == ir.Float32 && !v.IsVariableTensor && v.Quant == nil
}

func (q *quantizer) dynamic() error {
	for _, n := range append([]*ir.Node(nil), q.f.Nodes...) {
		if n.TFL == nil {
			continue
		}
		sp, ok := q.spec(n)
		if !ok {
			q.noHybrid(n)
			continue
		}
		// Hybrid kernels take float32 activations.
		if n.TFL.Builtin != schema.BuiltinOperatorEMBEDDING_LOOKUP && (len(n.Inputs) == 0 || n.Inputs[0] == nil || n.Inputs[0].DType != ir.Float32) {
			if len(n.Inputs) > 0 && n.Inputs[0] != nil && q.hasLargeFloatWeight(n, sp.inputs) {
				q.sum.Skipped = append(q.sum.Skipped, fmt.Sprintf("%s: left float32: its input is %s, and the hybrid kernel takes float32 activations", n, n.Inputs[0].DType))
			}
			continue
		}
		var chosen []int
		reason := ""
		for _, i := range sp.inputs {
			if i >= len(n.Inputs) || n.Inputs[i] == nil {
				continue
			}
			v := n.Inputs[i]
			switch {
			case !floatConst(v):
				if v.DType == ir.Float32 && v.Const == nil {
					reason = fmt.Sprintf("operand %d (%q) is not a constant", i, v.Name)
				}
			case v.Const.NumElements() < q.opts.MinElements && !(sp.dim < 0 && q.knownScale(v.Const) > 0):
				reason = fmt.Sprintf("operand %d (%q) has %d elements, fewer than %d", i, v.Name, v.Const.NumElements(), q.opts.MinElements)
			default:
				chosen = append(chosen, i)
				continue
			}
			if sp.allOrNothing {
				chosen = nil
				break
			}
			if floatConst(v) {
				q.sum.Skipped = append(q.sum.Skipped, fmt.Sprintf("%s: left float32: %s (TFLite's minimum_elements_for_weights)", n, reason))
			}
		}
		if sp.allOrNothing && reason != "" {
			q.sum.Skipped = append(q.sum.Skipped, fmt.Sprintf("%s: left float32: %s, and the operator's weights must all be quantised or none", n, reason))
			continue
		}
		if len(chosen) == 0 {
			continue
		}
		for _, i := range chosen {
			dim := sp.dim
			if dim >= 0 && dim >= n.Inputs[i].Shape.Rank() {
				dim = -1
			}
			qv, err := q.int8Weight(n, i, dim, sp.dequantize)
			if err != nil {
				return err
			}
			n.Inputs[i] = qv
		}
		if !sp.dequantize {
			q.setHybridOptions(n)
		}
		setVersion(n)
	}
	return nil
}

// noHybrid records, for an operator without a hybrid or weight-only form
// here, each float32 constant operand of at least MinElements elements
// (those a reader would expect dynamic-range quantisation to take) as
// left float, and why.
func (q *quantizer) noHybrid(n *ir.Node) {
	why := fmt.Sprintf("%s has no hybrid or weight-only form in dynamic-range quantisation", n.OpName())
	if n.TFL.Builtin == schema.BuiltinOperatorLSTM {
		why = "the basic LSTM kernel has no hybrid form"
	}
	for i, v := range n.Inputs {
		if floatConst(v) && v.Const.NumElements() >= q.opts.MinElements {
			q.sum.Skipped = append(q.sum.Skipped, fmt.Sprintf("%s: operand %d (%q, %d elements) left float32: %s", n, i, v.Name, v.Const.NumElements(), why))
		}
	}
}

// hasLargeFloatWeight reports whether one of n's operands at the given
// positions is a float32 constant of at least MinElements elements.
func (q *quantizer) hasLargeFloatWeight(n *ir.Node, inputs []int) bool {
	for _, i := range inputs {
		if i < len(n.Inputs) && floatConst(n.Inputs[i]) && n.Inputs[i].Const.NumElements() >= q.opts.MinElements {
			return true
		}
	}
	return false
}

// int8Weight returns the int8 version of n's operand i (behind a
// DEQUANTIZE when asked), shared by every operator reading the same
// constant the same way.
func (q *quantizer) int8Weight(n *ir.Node, i, dim int, dequantize bool) (*ir.Value, error) {
	v := n.Inputs[i]
	kind := 0
	if dequantize {
		kind = 1
	}
	key := cacheKey{v, dim, kind}
	if w, ok := q.cache[key]; ok {
		return w, nil
	}
	var qt *ir.Tensor
	var quant *ir.Quantization
	var err error
	if sc := q.knownScale(v.Const); dim < 0 && sc > 0 {
		qt, quant, err = quantizeWithScale(v.Const, sc)
	} else {
		qt, quant, err = quantizeInt8(v.Const, dim)
	}
	if err != nil {
		return nil, n.Errorf("operand %d (%q): %v", i, v.Name, err)
	}
	c := q.f.NewConst(v.Name, qt)
	c.Quant = quant
	q.sum.BytesBefore += len(v.Const.Data)
	q.sum.BytesAfter += len(qt.Data)
	out := c
	if dequantize {
		ver := int32(2)
		if dim >= 0 {
			ver = 5
		}
		dq := q.f.NewTFL(v.Name+"/dequantize", &ir.TFLOp{Builtin: schema.BuiltinOperatorDEQUANTIZE, Version: ver}, []*ir.Value{c},
			ir.TypeShape{DType: ir.Float32, Shape: v.Shape})
		out = dq.Outputs[0]
	}
	q.cache[key] = out
	q.sum.Weights = append(q.sum.Weights, Weight{Name: v.Name, Op: n.OpName(), Input: i, DType: ir.Int8, PerChannel: dim >= 0, Dim: max(dim, 0), DequantizeOp: dequantize})
	return out, nil
}

// knownScale returns the first of Options.Scales of which every value
// of t is an integer multiple in [-127, 127] (to 1e-3 of a step), 0 when
// none is.
func (q *quantizer) knownScale(t *ir.Tensor) float32 {
	if t.DType != ir.Float32 || len(q.opts.Scales) == 0 {
		return 0
	}
	w := t.Float32s()
next:
	for _, s := range q.opts.Scales {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			continue
		}
		for _, x := range w {
			r := float64(x) / float64(s)
			k := math.Round(r)
			if math.Abs(r-k) > 1e-3 || math.Abs(k) > 127 {
				continue next
			}
		}
		return s
	}
	return 0
}

// quantizeWithScale quantises t per tensor with scale s (see
// knownScale), zero point 0.
func quantizeWithScale(t *ir.Tensor, s float32) (*ir.Tensor, *ir.Quantization, error) {
	w := t.Float32s()
	data := make([]byte, len(w))
	for k, x := range w {
		r := math.Round(float64(x) / float64(s))
		data[k] = byte(int8(max(-127, min(127, r))))
	}
	qt, err := ir.NewTensor(ir.Int8, t.Shape.Clone(), data)
	if err != nil {
		return nil, nil, err
	}
	return qt, &ir.Quantization{Scale: []float32{s}, ZeroPoint: []int64{0}}, nil
}

// quantizeInt8 quantises t symmetrically to int8 in [-127, 127], per
// tensor (dim < 0) or per slice along dim.
func quantizeInt8(t *ir.Tensor, dim int) (*ir.Tensor, *ir.Quantization, error) {
	w := t.Float32s()
	for k, x := range w {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, nil, fmt.Errorf("element %d is %v; only finite weights can be quantised", k, x)
		}
	}
	// Element k belongs to channel (k / inner) % channels.
	channels, inner := 1, len(w)
	if dim >= 0 {
		channels = t.Shape[dim]
		inner = 1
		for _, d := range t.Shape[dim+1:] {
			inner *= d
		}
	}
	if channels == 0 {
		channels = 1
	}
	maxAbs := make([]float64, channels)
	for k, x := range w {
		c := 0
		if dim >= 0 {
			c = (k / inner) % channels
		}
		maxAbs[c] = math.Max(maxAbs[c], math.Abs(float64(x)))
	}
	scales := make([]float32, channels)
	for c, m := range maxAbs {
		if m == 0 {
			scales[c] = 1 // an all-zero channel: any scale represents it
		} else {
			scales[c] = float32(m / 127)
		}
	}
	data := make([]byte, len(w))
	for k, x := range w {
		c := 0
		if dim >= 0 {
			c = (k / inner) % channels
		}
		r := math.Round(float64(x) / float64(scales[c]))
		data[k] = byte(int8(max(-127, min(127, r))))
	}
	qt, err := ir.NewTensor(ir.Int8, t.Shape.Clone(), data)
	if err != nil {
		return nil, nil, err
	}
	quant := &ir.Quantization{Scale: scales, ZeroPoint: make([]int64, channels)}
	if dim >= 0 {
		quant.Dim = dim
	}
	return qt, quant, nil
}

// setHybridOptions sets asymmetric_quantize_inputs on the operators
// TFLite's dynamic-range quantiser sets it on (not with Legacy).
func (q *quantizer) setHybridOptions(n *ir.Node) {
	if q.opts.Legacy || n.TFL.Options == nil {
		return
	}
	switch o := n.TFL.Options.Value.(type) {
	case *schema.FullyConnectedOptionsT:
		o.AsymmetricQuantizeInputs = true
	case *schema.UnidirectionalSequenceLSTMOptionsT:
		o.AsymmetricQuantizeInputs = true
	case *schema.LSTMOptionsT:
		o.AsymmetricQuantizeInputs = true
	case *schema.BidirectionalSequenceLSTMOptionsT:
		o.AsymmetricQuantizeInputs = true
	case *schema.RNNOptionsT:
		o.AsymmetricQuantizeInputs = true
	case *schema.SequenceRNNOptionsT:
		o.AsymmetricQuantizeInputs = true
	case *schema.BidirectionalSequenceRNNOptionsT:
		o.AsymmetricQuantizeInputs = true
	case *schema.SVDFOptionsT:
		o.AsymmetricQuantizeInputs = true
	}
}

// float16 stores constant float32 operands as float16 behind DEQUANTIZE.
func (q *quantizer) float16() error {
	for _, n := range append([]*ir.Node(nil), q.f.Nodes...) {
		if n.TFL == nil || n.TFL.Builtin == schema.BuiltinOperatorDEQUANTIZE {
			continue
		}
		for i, v := range n.Inputs {
			if !floatConst(v) {
				continue
			}
			key := cacheKey{v, -1, 2}
			out, ok := q.cache[key]
			if !ok {
				vals := v.Const.Float32s()
				h := make([]float64, len(vals))
				for k, x := range vals {
					if math.IsNaN(float64(x)) {
						return n.Errorf("operand %d (%q): element %d is NaN", i, v.Name, k)
					}
					h[k] = math.Max(-65504, math.Min(65504, float64(x)))
				}
				t, err := ir.FromFloat64s(ir.Float16, v.Const.Shape.Clone(), h)
				if err != nil {
					return n.Wrap(err)
				}
				c := q.f.NewConst(v.Name, t)
				dq := q.f.NewTFL(v.Name+"/dequantize", &ir.TFLOp{Builtin: schema.BuiltinOperatorDEQUANTIZE, Version: 3}, []*ir.Value{c},
					ir.TypeShape{DType: ir.Float32, Shape: v.Shape})
				out = dq.Outputs[0]
				q.cache[key] = out
				q.sum.BytesBefore += len(v.Const.Data)
				q.sum.BytesAfter += len(t.Data)
				q.sum.Weights = append(q.sum.Weights, Weight{Name: v.Name, Op: n.OpName(), Input: i, DType: ir.Float16, DequantizeOp: true})
			}
			n.Inputs[i] = out
		}
	}
	return nil
}

// setVersion sets the version op_version.cc assigns a hybrid operator.
func setVersion(n *ir.Node) {
	op := n.TFL
	in := func(i int) *ir.Value {
		if i < len(n.Inputs) {
			return n.Inputs[i]
		}
		return nil
	}
	hybrid := func(w int) bool {
		x := in(w)
		return in(0) != nil && in(0).DType == ir.Float32 && x != nil && x.DType == ir.Int8
	}
	perChannel := func(w int) bool {
		x := in(w)
		return x != nil && x.Quant != nil && len(x.Quant.Scale) > 1
	}
	asym := false
	if op.Options != nil {
		switch o := op.Options.Value.(type) {
		case *schema.FullyConnectedOptionsT:
			asym = o.AsymmetricQuantizeInputs
		case *schema.UnidirectionalSequenceLSTMOptionsT:
			asym = o.AsymmetricQuantizeInputs
			if o.DiagonalRecurrentTensors {
				op.Version = 4
				return
			}
		case *schema.LSTMOptionsT:
			asym = o.AsymmetricQuantizeInputs
		case *schema.BidirectionalSequenceLSTMOptionsT:
			asym = o.AsymmetricQuantizeInputs
		case *schema.RNNOptionsT:
			asym = o.AsymmetricQuantizeInputs
		case *schema.SequenceRNNOptionsT:
			asym = o.AsymmetricQuantizeInputs
		case *schema.BidirectionalSequenceRNNOptionsT:
			asym = o.AsymmetricQuantizeInputs
		case *schema.SVDFOptionsT:
			asym = o.AsymmetricQuantizeInputs
		}
	}
	pick := func(sym, asymV int32) {
		if asym {
			op.Version = asymV
		} else {
			op.Version = sym
		}
	}
	switch op.Builtin {
	case schema.BuiltinOperatorFULLY_CONNECTED:
		if !hybrid(1) {
			return
		}
		keep := false
		if o, ok := optionsValue(op).(*schema.FullyConnectedOptionsT); ok && o != nil {
			keep = o.KeepNumDims
		}
		switch {
		case perChannel(1):
			op.Version = 12
		case len(n.Inputs) == 2:
			op.Version = 6
		case keep:
			op.Version = 5
		default:
			pick(3, 9)
		}
	case schema.BuiltinOperatorCONV_2D:
		if hybrid(1) {
			op.Version = 2
			if perChannel(1) {
				op.Version = 5
			}
		}
	case schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM:
		if hybrid(2) {
			pick(2, 3)
		}
	case schema.BuiltinOperatorLSTM:
		if hybrid(2) {
			pick(3, 4)
		}
	case schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM, schema.BuiltinOperatorRNN,
		schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN, schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_RNN:
		if x := in(1); x != nil && x.DType == ir.Int8 {
			pick(2, 3)
		}
	case schema.BuiltinOperatorSVDF:
		if hybrid(1) {
			pick(2, 4)
		}
	case schema.BuiltinOperatorEMBEDDING_LOOKUP:
		if perChannel(1) {
			op.Version = 4
		}
	}
}

// Describe renders a summary for people.
func (s *Summary) Describe() string {
	if s == nil || len(s.Weights) == 0 && len(s.Skipped) == 0 {
		return "no weights quantised"
	}
	counts := map[string]int{}
	for _, w := range s.Weights {
		k := w.DType.String()
		if w.PerChannel {
			k += " per-channel"
		}
		if w.DequantizeOp {
			k += " via DEQUANTIZE"
		}
		counts[k]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	out := fmt.Sprintf("%d weight tensors quantised (%d → %d bytes): %s", len(s.Weights), s.BytesBefore, s.BytesAfter, strings.Join(parts, ", "))
	if len(s.Skipped) > 0 {
		out += fmt.Sprintf("; %d left float32:", len(s.Skipped))
		for _, k := range s.Skipped {
			out += "\n  " + k
		}
	}
	return out
}

// optionsValue is the operator's options table (nil when it has none).
func optionsValue(op *ir.TFLOp) any {
	if op == nil || op.Options == nil {
		return nil
	}
	return op.Options.Value
}
