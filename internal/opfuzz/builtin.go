package opfuzz

import (
	"github.com/tflrun/tflrun/schema"
)

// The builtin operator families. Each family function draws one model of
// one of its operators (the first configuration byte picks which, modulo
// the family's size) and returns it packed.

type (
	sch = schema.BuiltinOperator
	tt  = schema.TensorType
)

const (
	tF32  = schema.TensorTypeFLOAT32
	tI8   = schema.TensorTypeINT8
	tU8   = schema.TensorTypeUINT8
	tI16  = schema.TensorTypeINT16
	tI4   = schema.TensorTypeINT4
	tI32  = schema.TensorTypeINT32
	tI64  = schema.TensorTypeINT64
	tBool = schema.TensorTypeBOOL
)

func opts(t schema.BuiltinOptions, v any) *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: t, Value: v}
}

// dataType draws an element type, mostly float32 and the quantised ones.
func dataType(d *Draw) tt {
	return Pick(d, tF32, tI8, tU8, tI16, tF32, tI32, tI64, tBool)
}

// unaryOps take one tensor and give one of its type (or bool).
var unaryOps = []sch{
	schema.BuiltinOperatorRELU, schema.BuiltinOperatorRELU6, schema.BuiltinOperatorRELU_N1_TO_1, schema.BuiltinOperatorRELU_0_TO_1,
	schema.BuiltinOperatorLOGISTIC, schema.BuiltinOperatorTANH, schema.BuiltinOperatorABS, schema.BuiltinOperatorNEG,
	schema.BuiltinOperatorEXP, schema.BuiltinOperatorLOG, schema.BuiltinOperatorSQRT, schema.BuiltinOperatorRSQRT,
	schema.BuiltinOperatorSQUARE, schema.BuiltinOperatorSIN, schema.BuiltinOperatorCOS, schema.BuiltinOperatorFLOOR,
	schema.BuiltinOperatorCEIL, schema.BuiltinOperatorROUND, schema.BuiltinOperatorSIGN, schema.BuiltinOperatorELU,
	schema.BuiltinOperatorHARD_SWISH, schema.BuiltinOperatorZEROS_LIKE, schema.BuiltinOperatorLOGICAL_NOT,
	schema.BuiltinOperatorDEQUANTIZE, schema.BuiltinOperatorQUANTIZE, schema.BuiltinOperatorLOG_SOFTMAX,
	schema.BuiltinOperatorLEAKY_RELU, schema.BuiltinOperatorSOFTMAX, schema.BuiltinOperatorCAST, schema.BuiltinOperatorSHAPE,
}

// binaryOps take two broadcastable tensors.
var binaryOps = []sch{
	schema.BuiltinOperatorADD, schema.BuiltinOperatorSUB, schema.BuiltinOperatorMUL, schema.BuiltinOperatorDIV,
	schema.BuiltinOperatorMAXIMUM, schema.BuiltinOperatorMINIMUM, schema.BuiltinOperatorPOW, schema.BuiltinOperatorSQUARED_DIFFERENCE,
	schema.BuiltinOperatorFLOOR_DIV, schema.BuiltinOperatorFLOOR_MOD, schema.BuiltinOperatorEQUAL, schema.BuiltinOperatorNOT_EQUAL,
	schema.BuiltinOperatorLESS, schema.BuiltinOperatorLESS_EQUAL, schema.BuiltinOperatorGREATER, schema.BuiltinOperatorGREATER_EQUAL,
	schema.BuiltinOperatorLOGICAL_AND, schema.BuiltinOperatorLOGICAL_OR, schema.BuiltinOperatorPRELU,
	schema.BuiltinOperatorSELECT, schema.BuiltinOperatorSELECT_V2, schema.BuiltinOperatorADD_N,
	schema.BuiltinOperatorSTABLEHLO_ADD, schema.BuiltinOperatorSTABLEHLO_MULTIPLY, schema.BuiltinOperatorSTABLEHLO_MAXIMUM,
	schema.BuiltinOperatorSTABLEHLO_MINIMUM, schema.BuiltinOperatorSTABLEHLO_AND, schema.BuiltinOperatorSTABLEHLO_SHIFT_LEFT,
}

// ElementwiseOps is the number of operators Elementwise draws from.
var ElementwiseOps = len(unaryOps) + len(binaryOps)

// broadcastShape draws a shape compatible with s under broadcasting
// (sometimes not).
func broadcastShape(d *Draw, s []int32) []int32 {
	if d.Rare(8) {
		return d.Shape(d.N(6))
	}
	r := len(s) - d.N(len(s)+1)
	out := append([]int32(nil), s[len(s)-r:]...)
	for i := range out {
		if d.Rare(3) {
			out[i] = 1
		}
	}
	return out
}

// Elementwise draws a unary, binary or n-ary element-wise model.
func Elementwise(cfg []byte, seed uint64) []byte {
	m := NewModel(cfg, seed)
	d := m.D
	k := d.N(ElementwiseOps)
	typ := dataType(d)
	shape := d.Shape(d.N(6))
	q := m.Quant(typ, 1, 0)
	outTyp := typ
	if d.Rare(4) {
		outTyp = dataType(d)
	}
	if k < len(unaryOps) {
		op := unaryOps[k]
		var o *schema.BuiltinOptionsT
		switch op {
		case schema.BuiltinOperatorDEQUANTIZE:
			outTyp = tF32
		case schema.BuiltinOperatorQUANTIZE:
			outTyp = Pick(d, tI8, tU8, tI16)
		case schema.BuiltinOperatorLEAKY_RELU:
			o = opts(schema.BuiltinOptionsLeakyReluOptions, &schema.LeakyReluOptionsT{Alpha: Pick(d, float32(0.2), 0, -1, 3)})
		case schema.BuiltinOperatorSOFTMAX:
			o = opts(schema.BuiltinOptionsSoftmaxOptions, &schema.SoftmaxOptionsT{Beta: Pick(d, float32(1), 0.5, 0, -2)})
		case schema.BuiltinOperatorCAST:
			o = opts(schema.BuiltinOptionsCastOptions, &schema.CastOptionsT{InDataType: typ, OutDataType: outTyp})
		case schema.BuiltinOperatorSHAPE:
			outTyp = Pick(d, tI32, tI64)
			o = opts(schema.BuiltinOptionsShapeOptions, &schema.ShapeOptionsT{OutType: outTyp})
		case schema.BuiltinOperatorLOGICAL_NOT:
			typ, outTyp, q = tBool, tBool, nil
		}
		x := m.Data("x", typ, shape, q, false)
		y := m.Output("y", outTyp, m.Quant(outTyp, 1, 0))
		return m.Op(op, int32(1+d.N(3)), []int32{x}, []int32{y}, o)
	}
	op := binaryOps[k-len(unaryOps)]
	var o *schema.BuiltinOptionsT
	act := d.Activation()
	switch op {
	case schema.BuiltinOperatorADD:
		o = opts(schema.BuiltinOptionsAddOptions, &schema.AddOptionsT{FusedActivationFunction: act, PotScaleInt16: d.Flag()})
	case schema.BuiltinOperatorSUB:
		o = opts(schema.BuiltinOptionsSubOptions, &schema.SubOptionsT{FusedActivationFunction: act, PotScaleInt16: d.Flag()})
	case schema.BuiltinOperatorMUL:
		o = opts(schema.BuiltinOptionsMulOptions, &schema.MulOptionsT{FusedActivationFunction: act})
	case schema.BuiltinOperatorDIV:
		o = opts(schema.BuiltinOptionsDivOptions, &schema.DivOptionsT{FusedActivationFunction: act})
	case schema.BuiltinOperatorEQUAL, schema.BuiltinOperatorNOT_EQUAL, schema.BuiltinOperatorLESS, schema.BuiltinOperatorLESS_EQUAL,
		schema.BuiltinOperatorGREATER, schema.BuiltinOperatorGREATER_EQUAL:
		outTyp = tBool
	case schema.BuiltinOperatorLOGICAL_AND, schema.BuiltinOperatorLOGICAL_OR:
		typ, outTyp, q = tBool, tBool, nil
	}
	a := m.Data("a", typ, shape, q, false)
	var ins []int32
	switch op {
	case schema.BuiltinOperatorSELECT, schema.BuiltinOperatorSELECT_V2:
		c := m.Data("cond", tBool, broadcastShape(d, shape), nil, false)
		b := m.Data("b", typ, broadcastShape(d, shape), q, false)
		ins = []int32{c, a, b}
	case schema.BuiltinOperatorADD_N:
		ins = []int32{a}
		for range 1 + d.N(4) {
			ins = append(ins, m.Data("b", typ, shape, q, false))
		}
	default:
		b := m.Data("b", typ, broadcastShape(d, shape), m.Quant(typ, 1, 0), false)
		ins = []int32{a, b}
	}
	y := m.Output("y", outTyp, m.Quant(outTyp, 1, 0))
	return m.Op(op, int32(1+d.N(3)), ins, []int32{y}, o)
}

// windowedOps are the image operators.
var windowedOps = []sch{
	schema.BuiltinOperatorCONV_2D, schema.BuiltinOperatorDEPTHWISE_CONV_2D, schema.BuiltinOperatorMAX_POOL_2D,
	schema.BuiltinOperatorAVERAGE_POOL_2D, schema.BuiltinOperatorRESIZE_BILINEAR, schema.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR,
	schema.BuiltinOperatorFULLY_CONNECTED, schema.BuiltinOperatorDEPTH_TO_SPACE,
}

// WindowedOps is the number of operators Windowed draws from.
var WindowedOps = len(windowedOps)

// Windowed draws a convolution, pooling, resize, FULLY_CONNECTED or
// DEPTH_TO_SPACE model on an NHWC input (rank 4, sometimes not).
func Windowed(cfg []byte, seed uint64) []byte {
	m := NewModel(cfg, seed)
	d := m.D
	op := windowedOps[d.N(len(windowedOps))]
	typ := Pick(d, tF32, tI8, tU8, tF32, tI16)
	rank := 4
	if d.Rare(10) {
		rank = d.N(6)
	}
	in := d.Shape(rank)
	q := m.Quant(typ, 1, 0)
	x := m.Data("x", typ, in, q, false)
	outQ := m.Quant(typ, 1, 0)
	outTyp := typ
	pad := Pick(d, schema.PaddingSAME, schema.PaddingVALID)
	if d.Rare(12) {
		pad = schema.Padding(2 + d.N(4))
	}
	ch := int32(1)
	if rank == 4 {
		ch = in[3]
	}
	filterType := func() tt {
		if d.Rare(8) && typ != tU8 {
			return tI4 // packed two to a byte (FULLY_CONNECTED takes them)
		}
		if typ == tF32 && d.Rare(4) {
			return Pick(d, tI8, tI8, tU8) // hybrid (CONV_2D reads uint8 as int8)
		}
		if typ == tI16 {
			return tI8
		}
		return typ
	}
	var ins []int32
	var o *schema.BuiltinOptionsT
	switch op {
	case schema.BuiltinOperatorCONV_2D, schema.BuiltinOperatorDEPTHWISE_CONV_2D:
		fh, fw := d.Dim(), d.Dim()
		outC := d.Dim()
		fshape := []int32{outC, fh, fw, ch}
		qd := int32(0)
		if op == schema.BuiltinOperatorDEPTHWISE_CONV_2D {
			mult := Pick(d, int32(1), 2, 1)
			outC = ch * mult
			fshape = []int32{1, fh, fw, outC}
			qd = 3
			o = opts(schema.BuiltinOptionsDepthwiseConv2DOptions, &schema.DepthwiseConv2DOptionsT{Padding: pad, StrideW: d.Stride(), StrideH: d.Stride(),
				DepthMultiplier: mult, FusedActivationFunction: d.Activation(), DilationWFactor: d.Stride(), DilationHFactor: d.Stride()})
		} else {
			if d.Rare(8) && ch > 1 {
				fshape[3] = 1 // grouped
			}
			o = opts(schema.BuiltinOptionsConv2DOptions, &schema.Conv2DOptionsT{Padding: pad, StrideW: d.Stride(), StrideH: d.Stride(),
				FusedActivationFunction: d.Activation(), DilationWFactor: d.Stride(), DilationHFactor: d.Stride()})
		}
		ft := filterType()
		f := m.Data("filter", ft, fshape, m.Quant(ft, outC, qd), !d.Rare(6))
		ins = []int32{x, f}
		if !d.Rare(4) {
			bt := tF32
			if ft != tF32 && typ != tF32 {
				bt = Pick(d, tI32, tI64)
			}
			ins = append(ins, m.Data("bias", bt, []int32{outC}, m.Quant(bt, outC, 0), true))
		}
	case schema.BuiltinOperatorMAX_POOL_2D, schema.BuiltinOperatorAVERAGE_POOL_2D:
		ins = []int32{x}
		o = opts(schema.BuiltinOptionsPool2DOptions, &schema.Pool2DOptionsT{Padding: pad, StrideW: d.Stride(), StrideH: d.Stride(),
			FilterWidth: d.Dim(), FilterHeight: d.Dim(), FusedActivationFunction: d.Activation()})
		outQ = q
	case schema.BuiltinOperatorRESIZE_BILINEAR, schema.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR:
		size := m.IntConst("size", []int32{2}, []int32{d.Dim(), d.Dim()})
		if d.Rare(10) {
			size = m.Data("size", tI32, []int32{2}, nil, false)
		}
		ins = []int32{x, size}
		ac, hp := d.Flag(), d.Flag()
		if op == schema.BuiltinOperatorRESIZE_BILINEAR {
			o = opts(schema.BuiltinOptionsResizeBilinearOptions, &schema.ResizeBilinearOptionsT{AlignCorners: ac, HalfPixelCenters: hp})
		} else {
			o = opts(schema.BuiltinOptionsResizeNearestNeighborOptions, &schema.ResizeNearestNeighborOptionsT{AlignCorners: ac, HalfPixelCenters: hp})
		}
		outQ = q
	case schema.BuiltinOperatorFULLY_CONNECTED:
		cols := d.Dim()
		if rank > 0 && !d.Rare(4) {
			cols = in[rank-1]
		}
		units := d.Dim()
		ft := filterType()
		w := m.Data("weights", ft, []int32{units, cols}, m.Quant(ft, units, 0), !d.Rare(6))
		ins = []int32{x, w}
		if d.Flag() {
			bt := tF32
			if typ != tF32 {
				bt = Pick(d, tI32, tI64)
			}
			ins = append(ins, m.Data("bias", bt, []int32{units}, m.Quant(bt, units, 0), true))
		} else if d.Flag() {
			ins = append(ins, -1)
		}
		if typ == tI16 {
			outTyp = tI16
		}
		o = opts(schema.BuiltinOptionsFullyConnectedOptions, &schema.FullyConnectedOptionsT{FusedActivationFunction: d.Activation(),
			KeepNumDims: d.Flag(), AsymmetricQuantizeInputs: d.Flag()})
	case schema.BuiltinOperatorDEPTH_TO_SPACE:
		ins = []int32{x}
		o = opts(schema.BuiltinOptionsDepthToSpaceOptions, &schema.DepthToSpaceOptionsT{BlockSize: d.Stride()})
		outQ = q
	}
	y := m.Output("y", outTyp, outQ)
	return m.Op(op, int32(1+d.N(4)), ins, []int32{y}, o)
}

// shapedOps are the data-movement, reduction and selection operators.
var shapedOps = []sch{
	schema.BuiltinOperatorRESHAPE, schema.BuiltinOperatorSQUEEZE, schema.BuiltinOperatorEXPAND_DIMS, schema.BuiltinOperatorTRANSPOSE,
	schema.BuiltinOperatorPAD, schema.BuiltinOperatorPADV2, schema.BuiltinOperatorMIRROR_PAD, schema.BuiltinOperatorSLICE,
	schema.BuiltinOperatorSTRIDED_SLICE, schema.BuiltinOperatorTILE, schema.BuiltinOperatorBROADCAST_TO,
	schema.BuiltinOperatorCONCATENATION, schema.BuiltinOperatorSPLIT, schema.BuiltinOperatorSPLIT_V, schema.BuiltinOperatorPACK,
	schema.BuiltinOperatorUNPACK, schema.BuiltinOperatorGATHER, schema.BuiltinOperatorEMBEDDING_LOOKUP,
	schema.BuiltinOperatorREVERSE_V2, schema.BuiltinOperatorFILL, schema.BuiltinOperatorARG_MAX, schema.BuiltinOperatorARG_MIN,
	schema.BuiltinOperatorMEAN, schema.BuiltinOperatorSUM, schema.BuiltinOperatorREDUCE_PROD, schema.BuiltinOperatorREDUCE_MAX,
	schema.BuiltinOperatorREDUCE_MIN, schema.BuiltinOperatorREDUCE_ANY, schema.BuiltinOperatorREDUCE_ALL, schema.BuiltinOperatorTOPK_V2,
	schema.BuiltinOperatorRANGE, schema.BuiltinOperatorWHERE, schema.BuiltinOperatorUNIQUE,
}

// ShapedOps is the number of operators Shaped draws from.
var ShapedOps = len(shapedOps)

// Shaped draws a data-movement, reduction or selection model; its
// operands (shapes, axes, paddings, indices) are constants drawn around
// the input's rank, sometimes graph inputs.
func Shaped(cfg []byte, seed uint64) []byte {
	m := NewModel(cfg, seed)
	d := m.D
	op := shapedOps[d.N(len(shapedOps))]
	typ := dataType(d)
	rank := d.N(6)
	shape := d.Shape(rank)
	q := m.Quant(typ, 1, 0)
	x := m.Data("x", typ, shape, q, false)
	outTyp := typ
	outs := 1
	operand := func(name string, n int) int32 {
		if d.Rare(10) {
			return m.Data(name, tI32, []int32{int32(n)}, nil, false)
		}
		return m.IntConst(name, []int32{int32(n)}, d.Ints(n))
	}
	axisNear := func() int32 {
		if rank > 0 && !d.Rare(5) {
			return int32(d.N(rank))
		}
		return d.Int()
	}
	ins := []int32{x}
	var o *schema.BuiltinOptionsT
	switch op {
	case schema.BuiltinOperatorRESHAPE:
		ns := d.Shape(d.N(6))
		if d.Flag() {
			ins = append(ins, m.IntConst("shape", nil, ns))
		} else {
			o = opts(schema.BuiltinOptionsReshapeOptions, &schema.ReshapeOptionsT{NewShape: ns})
		}
	case schema.BuiltinOperatorSQUEEZE:
		o = opts(schema.BuiltinOptionsSqueezeOptions, &schema.SqueezeOptionsT{SqueezeDims: d.Ints(d.N(3))})
	case schema.BuiltinOperatorEXPAND_DIMS, schema.BuiltinOperatorSPLIT, schema.BuiltinOperatorREVERSE_V2:
		ax := m.IntConst("axis", []int32{1}, []int32{axisNear()})
		if op == schema.BuiltinOperatorSPLIT {
			outs = 1 + d.N(3)
			ins = []int32{ax, x}
			o = opts(schema.BuiltinOptionsSplitOptions, &schema.SplitOptionsT{NumSplits: int32(outs)})
		} else {
			ins = append(ins, ax)
		}
	case schema.BuiltinOperatorTRANSPOSE:
		perm := make([]int32, rank)
		for i := range perm {
			perm[i] = int32((i + d.N(rank)) % max(rank, 1))
		}
		if d.Rare(6) {
			perm = d.Ints(d.N(7))
		}
		ins = append(ins, m.IntConst("perm", nil, perm))
	case schema.BuiltinOperatorPAD, schema.BuiltinOperatorPADV2, schema.BuiltinOperatorMIRROR_PAD:
		n := rank
		if d.Rare(6) {
			n = d.N(7)
		}
		ins = append(ins, m.IntConst("paddings", []int32{int32(n), 2}, d.Ints(2*n)))
		if op == schema.BuiltinOperatorPADV2 {
			ins = append(ins, m.Data("value", typ, []int32{}, q, true))
		}
		if op == schema.BuiltinOperatorMIRROR_PAD {
			o = opts(schema.BuiltinOptionsMirrorPadOptions, &schema.MirrorPadOptionsT{Mode: schema.MirrorPadMode(d.N(3))})
		}
	case schema.BuiltinOperatorSLICE:
		ins = append(ins, operand("begin", rank), operand("size", rank))
	case schema.BuiltinOperatorSTRIDED_SLICE:
		n := rank
		if d.Rare(6) {
			n = d.N(7)
		}
		ins = append(ins, operand("begin", n), operand("end", n), operand("strides", n))
		o = opts(schema.BuiltinOptionsStridedSliceOptions, &schema.StridedSliceOptionsT{BeginMask: int32(d.N(64)), EndMask: int32(d.N(64)),
			EllipsisMask: int32(d.N(4)), NewAxisMask: int32(d.N(4)), ShrinkAxisMask: int32(d.N(8)), Offset: d.Rare(4)})
	case schema.BuiltinOperatorTILE:
		ins = append(ins, operand("multiples", rank))
	case schema.BuiltinOperatorBROADCAST_TO:
		ins = append(ins, m.IntConst("shape", nil, d.Shape(d.N(7))))
	case schema.BuiltinOperatorCONCATENATION, schema.BuiltinOperatorPACK:
		k := 1 + d.N(4)
		for range k - 1 {
			s := shape
			if d.Rare(4) {
				s = d.Shape(rank)
			}
			ins = append(ins, m.Data("x", typ, s, q, false))
		}
		if op == schema.BuiltinOperatorPACK {
			o = opts(schema.BuiltinOptionsPackOptions, &schema.PackOptionsT{ValuesCount: int32(k), Axis: axisNear()})
		} else {
			o = opts(schema.BuiltinOptionsConcatenationOptions, &schema.ConcatenationOptionsT{Axis: axisNear(), FusedActivationFunction: d.Activation()})
		}
	case schema.BuiltinOperatorSPLIT_V:
		outs = 1 + d.N(3)
		ins = append(ins, m.IntConst("sizes", nil, d.Ints(outs)), m.IntConst("axis", []int32{1}, []int32{axisNear()}))
		o = opts(schema.BuiltinOptionsSplitVOptions, &schema.SplitVOptionsT{NumSplits: int32(outs)})
	case schema.BuiltinOperatorUNPACK:
		ax := axisNear()
		outs = 1
		if rank > 0 && ax >= 0 && int(ax) < rank && shape[ax] <= 4 && shape[ax] > 0 {
			outs = int(shape[ax])
		}
		o = opts(schema.BuiltinOptionsUnpackOptions, &schema.UnpackOptionsT{Num: int32(outs), Axis: ax})
	case schema.BuiltinOperatorGATHER, schema.BuiltinOperatorEMBEDDING_LOOKUP:
		idx := d.Ints(d.N(5))
		it := m.IntConst("indices", nil, idx)
		if d.Rare(3) {
			it = m.Data("indices", tI32, d.Shape(d.N(3)), nil, false)
		}
		if op == schema.BuiltinOperatorGATHER {
			ins = append(ins, it)
			o = opts(schema.BuiltinOptionsGatherOptions, &schema.GatherOptionsT{Axis: axisNear(), BatchDims: int32(d.N(3)) - 1})
		} else {
			ins = []int32{it, x}
		}
	case schema.BuiltinOperatorFILL:
		ins = []int32{m.IntConst("dims", nil, d.Shape(d.N(5))), m.Data("value", typ, []int32{}, q, true)}
	case schema.BuiltinOperatorARG_MAX, schema.BuiltinOperatorARG_MIN:
		outTyp = Pick(d, tI32, tI64)
		ins = append(ins, m.IntConst("axis", []int32{1}, []int32{axisNear()}))
		if op == schema.BuiltinOperatorARG_MAX {
			o = opts(schema.BuiltinOptionsArgMaxOptions, &schema.ArgMaxOptionsT{OutputType: outTyp})
		} else {
			o = opts(schema.BuiltinOptionsArgMinOptions, &schema.ArgMinOptionsT{OutputType: outTyp})
		}
	case schema.BuiltinOperatorTOPK_V2:
		ins = append(ins, m.IntConst("k", []int32{}, []int32{d.Int()}))
		outs = 2
	case schema.BuiltinOperatorRANGE:
		// Three scalars (sometimes not), constant or run-time: zero and
		// backward deltas, extreme limits.
		ins = nil
		for _, name := range []string{"start", "limit", "delta"} {
			s := []int32{}
			if d.Rare(8) {
				s = d.Shape(1)
			}
			if d.Flag() {
				ins = append(ins, m.IntConst(name, s, []int32{d.Int()}))
			} else {
				ins = append(ins, m.Data(name, Pick(d, tI32, tF32, tI64), s, nil, false))
			}
		}
	case schema.BuiltinOperatorWHERE:
		outTyp = Pick(d, tI64, tI64, tI32)
	case schema.BuiltinOperatorUNIQUE:
		outs = 2
		if !d.Rare(8) {
			o = opts(schema.BuiltinOptionsUniqueOptions, &schema.UniqueOptionsT{IdxOutType: Pick(d, tI32, tI64, tF32)})
		}
	default: // the reductions
		axes := make([]int32, d.N(3))
		for i := range axes {
			axes[i] = axisNear()
		}
		ins = append(ins, m.IntConst("axes", nil, axes))
		o = opts(schema.BuiltinOptionsReducerOptions, &schema.ReducerOptionsT{KeepDims: d.Flag()})
	}
	outQ := q
	if d.Rare(6) {
		outQ = m.Quant(outTyp, 1, 0)
	}
	var ys []int32
	for j := range outs {
		ot := outTyp
		if op == schema.BuiltinOperatorTOPK_V2 && j == 1 {
			ot = tI32
		}
		if op == schema.BuiltinOperatorUNIQUE && j == 1 {
			ot = Pick(d, tI32, tI64)
		}
		ys = append(ys, m.Output("y", ot, outQ))
	}
	return m.Op(op, int32(1+d.N(3)), ins, ys, o)
}
