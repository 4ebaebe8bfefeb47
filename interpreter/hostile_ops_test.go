package interpreter

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Hostile single-operator models for the CNN, data-movement and selection
// kernels of package ops/builtin: valid models with one thing broken each (a
// zero stride, a filter of the wrong rank or depth, a per-channel scale
// count that does not match, an axis or permutation out of range, a
// split that does not divide, an index that is out of range only at run
// time). Each must fail to load, allocate or invoke with an error naming
// the operator and what is wrong, never panic.

// hTensor describes one tensor of a single-operator model: a constant
// when data is non-nil, else a graph input (for operator inputs) or a
// plain output. An hTensor with an empty name stands for an omitted
// optional input (index -1).
type hTensor struct {
	name  string
	typ   schema.TensorType
	shape []int32
	data  []byte
	quant *schema.QuantizationParametersT
}

// singleOpModel builds a model with one operator op (version v, options
// opts) reading ins and writing outs.
func singleOpModel(op schema.BuiltinOperator, v int32, opts *schema.BuiltinOptionsT, ins, outs []hTensor) *schema.ModelT {
	dep := int8(127)
	if op < 127 {
		dep = int8(op)
	}
	m := &schema.ModelT{
		Version:       3,
		OperatorCodes: []*schema.OperatorCodeT{{BuiltinCode: op, DeprecatedBuiltinCode: dep, Version: v}},
		Buffers:       []*schema.BufferT{{}},
	}
	sg := &schema.SubGraphT{}
	add := func(h hTensor) int32 {
		if h.name == "" {
			return -1
		}
		t := &schema.TensorT{Name: h.name, Shape: h.shape, Type: h.typ, Quantization: h.quant}
		if h.data != nil {
			t.Buffer = uint32(len(m.Buffers))
			m.Buffers = append(m.Buffers, &schema.BufferT{Data: h.data})
		}
		sg.Tensors = append(sg.Tensors, t)
		return int32(len(sg.Tensors) - 1)
	}
	o := &schema.OperatorT{BuiltinOptions: opts}
	for _, h := range ins {
		i := add(h)
		o.Inputs = append(o.Inputs, i)
		if i >= 0 && h.data == nil {
			sg.Inputs = append(sg.Inputs, i)
		}
	}
	for _, h := range outs {
		i := add(h)
		o.Outputs = append(o.Outputs, i)
		sg.Outputs = append(sg.Outputs, i)
	}
	sg.Operators = []*schema.OperatorT{o}
	m.Subgraphs = []*schema.SubGraphT{sg}
	return m
}

// i32s is the little-endian bytes of v as constant data.
func i32s(v ...int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

// zerosF32 is n float32 zeros as constant data.
func zerosF32(n int) []byte { return make([]byte, 4*n) }

func f32t(name string, data []byte, shape ...int32) hTensor {
	return hTensor{name: name, typ: schema.TensorTypeFLOAT32, shape: shape, data: data}
}

func i32t(name string, data []byte, shape ...int32) hTensor {
	return hTensor{name: name, typ: schema.TensorTypeINT32, shape: shape, data: data}
}

// The valid bases, one per kernel.

func hostileConv() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorCONV_2D, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{
			Padding: schema.PaddingSAME, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}},
		[]hTensor{f32t("in", nil, 1, 5, 5, 2), f32t("filter", zerosF32(54), 3, 3, 3, 2), f32t("bias", zerosF32(3), 3)},
		[]hTensor{f32t("out", nil, 1, 5, 5, 3)})
}

func hostileConvInt8() *schema.ModelT {
	q := func(scales ...float32) *schema.QuantizationParametersT {
		z := make([]int64, len(scales))
		return &schema.QuantizationParametersT{Scale: scales, ZeroPoint: z, QuantizedDimension: 0}
	}
	return singleOpModel(schema.BuiltinOperatorCONV_2D, 3,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{
			Padding: schema.PaddingVALID, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}},
		[]hTensor{
			{name: "in", typ: schema.TensorTypeINT8, shape: []int32{1, 3, 3, 2}, quant: q(0.5)},
			{name: "filter", typ: schema.TensorTypeINT8, shape: []int32{3, 1, 1, 2}, data: make([]byte, 6), quant: q(0.1, 0.2, 0.3)},
			{name: "bias", typ: schema.TensorTypeINT32, shape: []int32{3}, data: i32s(1, 2, 3), quant: q(0.05, 0.1, 0.15)},
		},
		[]hTensor{{name: "out", typ: schema.TensorTypeINT8, shape: []int32{1, 3, 3, 3}, quant: q(0.25)}})
}

func hostileDepthwise() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorDEPTHWISE_CONV_2D, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: &schema.DepthwiseConv2DOptionsT{
			Padding: schema.PaddingSAME, StrideW: 1, StrideH: 1, DepthMultiplier: 2, DilationWFactor: 1, DilationHFactor: 1}},
		[]hTensor{f32t("in", nil, 1, 5, 5, 2), f32t("filter", zerosF32(36), 1, 3, 3, 4), f32t("bias", zerosF32(4), 4)},
		[]hTensor{f32t("out", nil, 1, 5, 5, 4)})
}

func hostileMaxPool() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorMAX_POOL_2D, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPool2DOptions, Value: &schema.Pool2DOptionsT{
			Padding: schema.PaddingVALID, StrideW: 2, StrideH: 2, FilterWidth: 2, FilterHeight: 2}},
		[]hTensor{f32t("in", nil, 1, 4, 4, 2)}, []hTensor{f32t("out", nil, 1, 2, 2, 2)})
}

func hostileGather() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorGATHER, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsGatherOptions, Value: &schema.GatherOptionsT{Axis: 0}},
		[]hTensor{f32t("params", zerosF32(12), 4, 3), i32t("indices", nil, 2)}, []hTensor{f32t("out", nil, 2, 3)})
}

func hostileEmbedding() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorEMBEDDING_LOOKUP, 1, nil,
		[]hTensor{i32t("ids", nil, 2), f32t("table", zerosF32(12), 4, 3)}, []hTensor{f32t("out", nil, 2, 3)})
}

func hostileStridedSlice() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorSTRIDED_SLICE, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsStridedSliceOptions, Value: &schema.StridedSliceOptionsT{}},
		[]hTensor{f32t("in", nil, 4), i32t("begin", i32s(1), 1), i32t("end", i32s(3), 1), i32t("strides", i32s(1), 1)},
		[]hTensor{f32t("out", nil, 2)})
}

func hostileTranspose() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorTRANSPOSE, 1, nil,
		[]hTensor{f32t("in", nil, 2, 3), i32t("perm", i32s(1, 0), 2)}, []hTensor{f32t("out", nil, 3, 2)})
}

func hostileConcat() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorCONCATENATION, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions, Value: &schema.ConcatenationOptionsT{Axis: 0}},
		[]hTensor{f32t("a", nil, 2, 3), f32t("b", nil, 2, 3)}, []hTensor{f32t("out", nil, 4, 3)})
}

func hostilePad() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorPAD, 1, nil,
		[]hTensor{f32t("in", nil, 2, 2), i32t("paddings", i32s(1, 1, 1, 1), 2, 2)}, []hTensor{f32t("out", nil, 4, 4)})
}

func hostileSplit() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorSPLIT, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSplitOptions, Value: &schema.SplitOptionsT{NumSplits: 2}},
		[]hTensor{i32t("axis", i32s(0)), f32t("in", nil, 4, 2)}, []hTensor{f32t("a", nil, 2, 2), f32t("b", nil, 2, 2)})
}

func hostileTopK() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorTOPK_V2, 1, nil,
		[]hTensor{f32t("in", nil, 5), i32t("k", i32s(2))}, []hTensor{f32t("values", nil, 2), i32t("indices", nil, 2)})
}

func hostileMean() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorMEAN, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReducerOptions, Value: &schema.ReducerOptionsT{}},
		[]hTensor{f32t("in", nil, 2, 3), i32t("axes", i32s(1), 1)}, []hTensor{f32t("out", nil, 2)})
}

func hostileDivInt() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorDIV, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDivOptions, Value: &schema.DivOptionsT{}},
		[]hTensor{i32t("a", nil, 3), i32t("b", nil, 3)}, []hTensor{i32t("out", nil, 3)})
}

// hostileDivFloat is DIV on float32 (a zero divisor is no error there, so
// the base model invokes on zeroed inputs).
func hostileDivFloat() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorDIV, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDivOptions, Value: &schema.DivOptionsT{}},
		[]hTensor{f32t("a", nil, 3), f32t("b", nil, 3)}, []hTensor{f32t("out", nil, 3)})
}

func hostileSlice() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorSLICE, 1, nil,
		[]hTensor{f32t("in", nil, 4, 2), i32t("begin", i32s(1, 0), 2), i32t("size", i32s(2, -1), 2)},
		[]hTensor{f32t("out", nil, 2, 2)})
}

func hostileMirrorPad() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorMIRROR_PAD, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMirrorPadOptions, Value: &schema.MirrorPadOptionsT{Mode: schema.MirrorPadModeREFLECT}},
		[]hTensor{f32t("in", nil, 3), i32t("paddings", i32s(2, 2), 1, 2)}, []hTensor{f32t("out", nil, 7)})
}

func hostileResize() *schema.ModelT {
	return singleOpModel(schema.BuiltinOperatorRESIZE_BILINEAR, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsResizeBilinearOptions, Value: &schema.ResizeBilinearOptionsT{}},
		[]hTensor{f32t("in", nil, 1, 2, 2, 1), i32t("size", i32s(4, 4), 2)}, []hTensor{f32t("out", nil, 1, 4, 4, 1)})
}

func TestHostileOpsModels(t *testing.T) {
	bases := map[string]func() *schema.ModelT{
		"conv": hostileConv, "conv int8": hostileConvInt8, "depthwise": hostileDepthwise, "max pool": hostileMaxPool,
		"gather": hostileGather, "embedding": hostileEmbedding, "strided slice": hostileStridedSlice,
		"transpose": hostileTranspose, "concat": hostileConcat, "pad": hostilePad, "split": hostileSplit,
		"topk": hostileTopK, "mean": hostileMean, "div": hostileDivFloat, "slice": hostileSlice,
		"mirror pad": hostileMirrorPad, "resize": hostileResize,
	}
	for name, f := range bases {
		if err := loadAndAllocate(pack(f())); err != nil {
			t.Fatalf("base %s must be valid: %v", name, err)
		}
	}
	edit := func(base func() *schema.ModelT, f func(sg *schema.SubGraphT, m *schema.ModelT)) []byte {
		m := base()
		f(m.Subgraphs[0], m)
		return pack(m)
	}
	convOpts := func(sg *schema.SubGraphT) *schema.Conv2DOptionsT {
		return sg.Operators[0].BuiltinOptions.Value.(*schema.Conv2DOptionsT)
	}
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"conv zero stride", edit(hostileConv, func(sg *schema.SubGraphT, _ *schema.ModelT) { convOpts(sg).StrideW = 0 }),
			[]string{"CONV_2D", "stride"}},
		{"conv negative dilation", edit(hostileConv, func(sg *schema.SubGraphT, _ *schema.ModelT) { convOpts(sg).DilationHFactor = -2 }),
			[]string{"CONV_2D", "dilation"}},
		{"conv filter rank 3", edit(hostileConv, func(sg *schema.SubGraphT, m *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{3, 9, 2}
		}), []string{"CONV_2D", "filter"}},
		{"conv filter depth does not divide input depth", edit(hostileConv, func(sg *schema.SubGraphT, m *schema.ModelT) {
			sg.Tensors[0].Shape = []int32{1, 5, 5, 3}
		}), []string{"CONV_2D"}},
		{"conv bias of the wrong size", edit(hostileConv, func(sg *schema.SubGraphT, m *schema.ModelT) {
			sg.Tensors[2].Shape = []int32{2}
			m.Buffers[sg.Tensors[2].Buffer].Data = zerosF32(2)
		}), []string{"CONV_2D", "bias"}},
		{"conv int8 per-channel scale count", edit(hostileConvInt8, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Quantization.Scale = []float32{0.1, 0.2}
			sg.Tensors[1].Quantization.ZeroPoint = []int64{0, 0}
		}), []string{"filter", "per-channel scales"}},
		{"conv int8 nonzero filter zero point", edit(hostileConvInt8, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Quantization.ZeroPoint = []int64{0, 3, 0}
		}), []string{"CONV_2D", "zero point"}},
		{"conv int8 without quantisation", edit(hostileConvInt8, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[0].Quantization = nil
		}), []string{"CONV_2D"}},
		{"conv mixed types", edit(hostileConv, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[3].Type = schema.TensorTypeINT32
		}), []string{"CONV_2D"}},
		{"depthwise filter channels not a multiple of the input's", edit(hostileDepthwise, func(sg *schema.SubGraphT, m *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{1, 3, 3, 3}
			m.Buffers[sg.Tensors[1].Buffer].Data = zerosF32(27)
			sg.Tensors[2].Shape = []int32{3}
			m.Buffers[sg.Tensors[2].Buffer].Data = zerosF32(3)
		}), []string{"DEPTHWISE_CONV_2D"}},
		{"depthwise filter batch not 1", edit(hostileDepthwise, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{2, 3, 3, 2}
		}), []string{"DEPTHWISE_CONV_2D", "filter"}},
		{"max pool zero filter", edit(hostileMaxPool, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].BuiltinOptions.Value.(*schema.Pool2DOptionsT).FilterWidth = 0
		}), []string{"MAX_POOL_2D", "filter"}},
		{"max pool input rank 3", edit(hostileMaxPool, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[0].Shape = []int32{4, 4, 2}
		}), []string{"MAX_POOL_2D"}},
		{"gather axis out of range", edit(hostileGather, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].BuiltinOptions.Value.(*schema.GatherOptionsT).Axis = 2
		}), []string{"GATHER", "axis"}},
		{"gather float indices", edit(hostileGather, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Type = schema.TensorTypeFLOAT32
		}), []string{"GATHER", "indices"}},
		{"gather batch dims beyond the indices rank", edit(hostileGather, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].BuiltinOptions.Value.(*schema.GatherOptionsT).BatchDims = 2
		}), []string{"GATHER", "batch"}},
		{"strided slice zero stride", edit(hostileStridedSlice, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[3].Buffer].Data = i32s(0)
		}), []string{"STRIDED_SLICE", "stride"}},
		{"strided slice begin of the wrong length", edit(hostileStridedSlice, func(sg *schema.SubGraphT, m *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{2}
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(1, 1)
		}), []string{"STRIDED_SLICE"}},
		{"transpose repeated axis", edit(hostileTranspose, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(1, 1)
		}), []string{"TRANSPOSE"}},
		{"transpose axis out of range", edit(hostileTranspose, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(0, 5)
		}), []string{"TRANSPOSE"}},
		{"concatenation mismatched dimension", edit(hostileConcat, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{2, 4}
		}), []string{"CONCATENATION"}},
		{"concatenation axis out of range", edit(hostileConcat, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].BuiltinOptions.Value.(*schema.ConcatenationOptionsT).Axis = 3
		}), []string{"CONCATENATION", "axis"}},
		{"pad negative padding", edit(hostilePad, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(1, -1, 1, 1)
		}), []string{"PAD"}},
		{"pad paddings of the wrong shape", edit(hostilePad, func(sg *schema.SubGraphT, m *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{3, 2}
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(1, 1, 1, 1, 1, 1)
		}), []string{"PAD"}},
		{"split does not divide", edit(hostileSplit, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{3, 2}
		}), []string{"SPLIT", "3"}},
		{"split count differs from the outputs", edit(hostileSplit, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].BuiltinOptions.Value.(*schema.SplitOptionsT).NumSplits = 3
		}), []string{"SPLIT", "num_splits"}},
		{"split axis out of range", edit(hostileSplit, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[0].Buffer].Data = i32s(7)
		}), []string{"SPLIT", "axis"}},
		{"top-k larger than the row", edit(hostileTopK, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(9)
		}), []string{"TOPK_V2"}},
		{"top-k negative", edit(hostileTopK, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(-1)
		}), []string{"TOPK_V2"}},
		{"mean axis out of range", edit(hostileMean, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(4)
		}), []string{"MEAN", "axis"}},
		// Quantised DIV runs (TFLite's DivElementwise); the zeroed divisor
		// equals its zero point, a real zero.
		{"div quantised by zero", edit(hostileDivFloat, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			for _, t := range sg.Tensors {
				t.Type = schema.TensorTypeUINT8
				t.Quantization = &schema.QuantizationParametersT{Scale: []float32{0.5}, ZeroPoint: []int64{0}}
			}
		}), []string{"DIV", "division by zero"}},
		{"div quantised per channel", edit(hostileDivFloat, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			for _, t := range sg.Tensors {
				t.Type = schema.TensorTypeINT8
				t.Quantization = &schema.QuantizationParametersT{Scale: []float32{0.5}, ZeroPoint: []int64{0}}
			}
			sg.Tensors[1].Quantization = &schema.QuantizationParametersT{Scale: []float32{0.5, 0.25, 1}, ZeroPoint: []int64{0, 0, 0}}
		}), []string{"DIV", "per-tensor"}},
		{"slice past the end", edit(hostileSlice, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[2].Buffer].Data = i32s(4, 1)
		}), []string{"SLICE", "size"}},
		{"slice negative begin", edit(hostileSlice, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(-1, 0)
		}), []string{"SLICE", "begin"}},
		{"mirror pad wider than REFLECT allows", edit(hostileMirrorPad, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(3, 0)
		}), []string{"MIRROR_PAD", "REFLECT"}},
		{"resize to zero rows", edit(hostileResize, func(sg *schema.SubGraphT, m *schema.ModelT) {
			m.Buffers[sg.Tensors[1].Buffer].Data = i32s(0, 4)
		}), []string{"RESIZE_BILINEAR", "size"}},
		{"resize with both alignment options", edit(hostileResize, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			o := sg.Operators[0].BuiltinOptions.Value.(*schema.ResizeBilinearOptionsT)
			o.AlignCorners, o.HalfPixelCenters = true, true
		}), []string{"RESIZE_BILINEAR", "half_pixel_centers"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := loadAndAllocate(c.b)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestHostileOpsRuntimeDivisor feeds an int32 zero divisor at run time:
// DIV must fail Invoke naming the element (TFLite's Eval returns an error
// there), and a later valid Invoke must succeed.
func TestHostileOpsRuntimeDivisor(t *testing.T) {
	m := mustLoad(t, hostileDivInt())
	it, err := New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it.Input(0).Int32s(), []int32{7, -7, 9})
	copy(it.Input(1).Int32s(), []int32{2, 0, 3})
	if err := it.Invoke(); err == nil || !strings.Contains(err.Error(), "DIV") || !strings.Contains(err.Error(), "element 1 is 0") {
		t.Fatalf("zero divisor: err %v", err)
	}
	copy(it.Input(1).Int32s(), []int32{2, 2, 3})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got := it.Output(0).Int32s(); got[0] != 3 || got[1] != -3 || got[2] != 3 {
		t.Fatalf("DIV: %v, want [3 -3 3]", got)
	}
}

// TestHostileOpsRuntimeIndices feeds out-of-range indices at run time:
// GATHER and EMBEDDING_LOOKUP must fail Invoke with an error naming the
// index (TFLite returns kTfLiteError there), and a later valid Invoke
// must succeed.
func TestHostileOpsRuntimeIndices(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *schema.ModelT
		op   string
	}{{"gather", hostileGather(), "GATHER"}, {"embedding", hostileEmbedding(), "EMBEDDING_LOOKUP"}} {
		t.Run(c.name, func(t *testing.T) {
			m := mustLoad(t, c.m)
			it, err := New(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := it.AllocateTensors(); err != nil {
				t.Fatal(err)
			}
			idx := it.Input(0).Int32s()
			for _, bad := range [][2]int32{{0, 4}, {-1, 0}, {1 << 30, 2}} {
				copy(idx, bad[:])
				err := it.Invoke()
				if err == nil {
					t.Fatalf("indices %v accepted", bad)
				}
				if !strings.Contains(err.Error(), c.op) {
					t.Errorf("error %q does not name %s", err, c.op)
				}
			}
			copy(idx, []int32{3, 0})
			if err := it.Invoke(); err != nil {
				t.Fatalf("valid indices after a failure: %v", err)
			}
		})
	}
}
