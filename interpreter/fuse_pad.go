package interpreter

import (
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// Folding PAD into the convolution that reads it. Keras' ZeroPadding2D
// before a stride-2 VALID convolution (MediaPipe's pose, palm and face
// detectors, Keras MobileNet and ResNet exports) becomes PAD →
// CONV_2D or PAD → DEPTHWISE_CONV_2D, and PAD then writes a padded copy
// of the whole activation that the convolution reads once. TensorFlow
// Lite's XNNPACK delegate folds such a PAD into the convolution's
// padding; here the convolution is prepared with the PAD's amounts as
// explicit padding (Conv2DOptions.ExplicitPad, DepthwiseConv2DOptions.
// ExplicitPad) and reads PAD's input, and the PAD node is skipped: it is
// listed with no time in the profile and its output gets no arena
// memory.
//
// The kernels treat taps outside the input as the input zero point (0
// for float), which is what PAD writes there when its pad value is that
// value, so integer results are the unfused ones bit for bit. Float
// results are too, except that some paths (the depthwise kernels, the
// grouped convolution) skip taps outside the input where the unfused
// graph adds 0·w: they differ when such a weight is Inf or NaN (0·Inf is
// NaN), and in the sign of an all-zero sum.
//
// A PAD is folded when all of these hold: it is PAD or PADV2, its
// paddings are constant, zero on the batch and channel axes and ≥ 0 on
// height and width of a rank-4 float32, int8 or uint8 tensor; its pad
// value is +0 (float32) or the input zero point (int8, uint8: a PAD
// without a value pads a quantised tensor with its zero point, as
// TFLite's pad.cc); its input and output have the same quantisation and
// its input is an arena tensor; its output has no other reader, is not a
// subgraph input or output, and is input 0 of a CONV_2D or
// DEPTHWISE_CONV_2D with VALID padding and known shapes; and the
// convolution prepares with the explicit padding (its hybrid and int16
// paths refuse it, and the model keeps the PAD).

// foldPads is off only in tests that compare against the unfused graph.
var foldPads = true

// padFold is what the fusion needs of the graph's structure, computed
// once per AllocateTensors from the model's operators (not the nodes,
// whose inputs a previous fusion rerouted).
type padFold struct {
	readers  []int // per tensor: operators reading it, +1 for a subgraph output
	producer []int // per tensor: the operator writing it, -1 none, -2 several
	reader   []int // per tensor: the operator reading it, -1 none, -2 several
}

// newPadFold returns the structure for the current subgraph, or nil when
// the fusion is off (or while diagnosing).
func (it *Interpreter) newPadFold() *padFold {
	if !foldPads && !foldActs || it.diag != nil {
		return nil
	}
	sg := it.sg
	f := &padFold{readers: make([]int, len(sg.tensors)), producer: make([]int, len(sg.tensors)), reader: make([]int, len(sg.tensors))}
	for i := range f.producer {
		f.producer[i], f.reader[i] = -1, -1
	}
	for k := range sg.info.Operators {
		oi := &sg.info.Operators[k]
		for _, list := range [][]int{oi.Inputs, oi.Intermediates} {
			for _, t := range list {
				if t >= 0 && t < len(f.readers) {
					f.readers[t]++
					if f.reader[t] == -1 {
						f.reader[t] = k
					} else if f.reader[t] != k {
						f.reader[t] = -2
					}
				}
			}
		}
		for _, t := range oi.Outputs {
			if t >= 0 && t < len(f.producer) {
				if f.producer[t] == -1 {
					f.producer[t] = k
				} else {
					f.producer[t] = -2
				}
			}
		}
	}
	for _, o := range sg.outputs {
		f.readers[o]++
	}
	return f
}

// unfoldPads undoes the fusions of a previous AllocateTensors: every
// convolution reads its model input and options again, and every
// producer of a folded activation has its model options (fuse_act.go).
func (it *Interpreter) unfoldPads() {
	sg := it.sg
	for k := range sg.nodes {
		nd := &sg.nodes[k]
		nd.padFolded, nd.actFolded = false, false
		if nd.actRerouted {
			nd.Options = sg.info.Operators[k].Options
			nd.actRerouted = false
		}
		if !nd.padRerouted {
			continue
		}
		oi := &sg.info.Operators[k]
		nd.Options = oi.Options
		nd.Inputs[0] = &sg.tensors[oi.Inputs[0]]
		nd.padRerouted = false
	}
}

// foldable returns the PAD node whose output convolution node i reads
// and the options with its padding folded in, or -1.
func (f *padFold) foldable(it *Interpreter, i int, isInput []bool) (int, any) {
	if f == nil || !foldPads {
		return -1, nil
	}
	sg := it.sg
	nd := &sg.nodes[i]
	if nd.Op != ops.OpConv2D && nd.Op != ops.OpDepthwiseConv2D || len(nd.Inputs) < 2 || len(nd.Outputs) != 1 {
		return -1, nil
	}
	y := nd.Inputs[0]
	if y == nil || y.Kind != ops.ArenaTensor || isInput[y.Index] || f.readers[y.Index] != 1 {
		return -1, nil
	}
	for _, t := range nd.Inputs[1:] {
		if t != nil && (t == y || t.Kind == ops.DynamicTensor) {
			return -1, nil
		}
	}
	p := f.producer[y.Index]
	if p < 0 || p >= i {
		return -1, nil
	}
	pd := &sg.nodes[p]
	if pd.Op != ops.OpPad && pd.Op != ops.OpPadV2 || !fusable(pd) || len(pd.Outputs) != 1 || pd.Outputs[0] != y {
		return -1, nil
	}
	if len(pd.Inputs) < 2 || len(pd.Inputs) > 3 || pd.Inputs[0] == nil || pd.Inputs[1] == nil {
		return -1, nil
	}
	x, paddings := pd.Inputs[0], pd.Inputs[1]
	if x.Kind != ops.ArenaTensor || x == y || x.Type != y.Type || len(x.Shape) != 4 || len(y.Shape) != 4 || !sameQuant(x.Quant, y.Quant) {
		return -1, nil
	}
	if x.Type != ops.Float32 && x.Type != ops.Int8 && x.Type != ops.Uint8 {
		return -1, nil
	}
	amounts, ok := constPaddings(paddings)
	if !ok || amounts[0] != [2]int{} || amounts[3] != [2]int{} {
		return -1, nil
	}
	for d := range 4 {
		if x.Shape[d]+amounts[d][0]+amounts[d][1] != y.Shape[d] {
			return -1, nil
		}
	}
	if !padsWithZero(pd, x, y) {
		return -1, nil
	}
	pads := [4]int{amounts[1][0], amounts[1][1], amounts[2][0], amounts[2][1]}
	switch o := nd.Options.(type) {
	case *builtin.Conv2DOptions:
		if o == nil || nd.Op != ops.OpConv2D || o.Padding != ops.PaddingValid || o.ExplicitPad != [4]int{} {
			return -1, nil
		}
		c := *o
		c.ExplicitPad = pads
		return p, &c
	case *builtin.DepthwiseConv2DOptions:
		if o == nil || nd.Op != ops.OpDepthwiseConv2D || o.Padding != ops.PaddingValid || o.ExplicitPad != [4]int{} {
			return -1, nil
		}
		c := *o
		c.ExplicitPad = pads
		return p, &c
	}
	return -1, nil
}

// constPaddings reads a constant [4, 2] int32 or int64 paddings tensor
// whose values are in [0, 2^31).
func constPaddings(p *ops.Tensor) (a [4][2]int, ok bool) {
	if p.Kind != ops.ConstTensor || len(p.Shape) != 2 || p.Shape[0] != 4 || p.Shape[1] != 2 ||
		p.Type != ops.Int32 && p.Type != ops.Int64 || len(p.Data) < p.Bytes() {
		return a, false
	}
	for i := range 8 {
		var v int64
		if p.Type == ops.Int32 {
			v = int64(p.Int32s()[i])
		} else {
			v = p.Int64s()[i]
		}
		if v < 0 || v > 1<<31-1 {
			return a, false
		}
		a[i/2][i%2] = int(v)
	}
	return a, true
}

// padsWithZero reports whether the prepared PAD or PADV2 node pd fills
// with what the convolution's padding reads: +0 for float32, the input
// zero point for int8 and uint8 (PAD's value is its output's zero point
// when no constant is given, as TFLite's pad.cc; y's quantisation is
// x's).
func padsWithZero(pd *node, x, y *ops.Tensor) bool {
	var cv *ops.Tensor
	if len(pd.Inputs) == 3 {
		cv = pd.Inputs[2]
	}
	if cv == nil {
		// Float32: 0; uint8 and quantised int8: the zero point, which
		// the convolution pads with too. (An int8 tensor without
		// quantisation pads with 0, which is its zero point.)
		return true
	}
	if cv.Kind != ops.ConstTensor || cv.Type != x.Type || cv.NumElements() != 1 || len(cv.Data) < x.Type.Size() {
		return false
	}
	switch x.Type {
	case ops.Float32:
		return cv.Data[0] == 0 && cv.Data[1] == 0 && cv.Data[2] == 0 && cv.Data[3] == 0 // +0 only
	case ops.Int8:
		return int32(int8(cv.Data[0])) == y.ZeroPoint()
	case ops.Uint8:
		return int32(cv.Data[0]) == y.ZeroPoint()
	}
	return false
}

// sameQuant reports whether two tensors' quantisations are identical.
func sameQuant(a, b *ops.Quantization) bool {
	if a == nil || b == nil {
		return (a == nil || len(a.Scale) == 0 && len(a.ZeroPoint) == 0) && (b == nil || len(b.Scale) == 0 && len(b.ZeroPoint) == 0)
	}
	if len(a.Scale) != len(b.Scale) || len(a.ZeroPoint) != len(b.ZeroPoint) || a.QuantizedDimension != b.QuantizedDimension {
		return false
	}
	for i := range a.Scale {
		if a.Scale[i] != b.Scale[i] {
			return false
		}
	}
	for i := range a.ZeroPoint {
		if a.ZeroPoint[i] != b.ZeroPoint[i] {
			return false
		}
	}
	return true
}

// prepareFolded prepares convolution node i reading PAD node p's input
// with options opts (p's padding folded in). When that fails, or the
// node would not run as an ordinary kernel, or its output shape is not
// the unfused one, it is prepared as the model has it.
func (it *Interpreter) prepareFolded(i, p int, opts any, isInput []bool, writers []int) error {
	sg := it.sg
	nd, pd := &sg.nodes[i], &sg.nodes[p]
	y, out := nd.Inputs[0], nd.Outputs[0]
	before := it.budget.Used()
	origOpts := nd.Options
	nd.Options, nd.Inputs[0] = opts, pd.Inputs[0]
	err := it.prepareNode(i, isInput, writers)
	if err == nil && fusable(nd) && out != nil && slicesEqual(out.Shape, unfoldedShape(nd, y)) {
		nd.padRerouted = true
		pd.padFolded, pd.empty = true, true
		pd.ResetScratch()
		return nil
	}
	it.budget.SetUsed(before)
	nd.Options, nd.Inputs[0] = origOpts, y
	return it.prepareNode(i, isInput, writers)
}

// unfoldedShape is the output shape of convolution nd over the padded
// tensor y with VALID padding (nil when it is not defined).
func unfoldedShape(nd *node, y *ops.Tensor) []int {
	filter := nd.Input(1)
	if filter == nil || len(filter.Shape) != 4 || len(y.Shape) != 4 {
		return nil
	}
	var sh, sw, dh, dw int
	outC := filter.Shape[0]
	switch o := nd.Options.(type) {
	case *builtin.Conv2DOptions:
		sh, sw, dh, dw = o.StrideH, o.StrideW, o.DilationHFactor, o.DilationWFactor
	case *builtin.DepthwiseConv2DOptions:
		sh, sw, dh, dw = o.StrideH, o.StrideW, o.DilationHFactor, o.DilationWFactor
		outC = filter.Shape[3]
	default:
		return nil
	}
	size := func(in, f, s, d int) int {
		if s <= 0 || d <= 0 || f <= 0 {
			return -1
		}
		eff := int64(f-1)*int64(d) + 1
		return int((int64(in) + int64(s) - eff) / int64(s))
	}
	oh, ow := size(y.Shape[1], filter.Shape[1], sh, dh), size(y.Shape[2], filter.Shape[2], sw, dw)
	if oh < 0 || ow < 0 {
		return nil
	}
	return []int{y.Shape[0], oh, ow, outC}
}
