package builtin_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// More families of the integer-exactness sweep: the integer kernels that
// had recorded golden cases but no random sweep (TRANSPOSE_CONV,
// BATCH_MATMUL, DIV, SQUARED_DIFFERENCE, GELU, L2_NORMALIZATION, EXP,
// LOG). Same rules as swFamilies: random shapes, scales and zero points,
// inputs over the whole range.

func moreSwFamilies() []swFamily {
	var f []swFamily
	add := func(name string, gen func(r *rand.Rand) swCase) { f = append(f, swFamily{name, gen}) }
	add("tconv_int8_pc", func(r *rand.Rand) swCase { return genTransposeConv(r, qInt8, true, false) })
	add("tconv_int8_pt", func(r *rand.Rand) swCase { return genTransposeConv(r, qInt8, false, false) })
	add("tconv_uint8", func(r *rand.Rand) swCase { return genTransposeConv(r, qUint8, false, false) })
	add("tconv_int16x8_b64", func(r *rand.Rand) swCase { return genTransposeConv(r, qInt16, true, true) })
	add("tconv_int16x8_b32", func(r *rand.Rand) swCase { return genTransposeConv(r, qInt16, true, false) })
	add("bmm_int8", func(r *rand.Rand) swCase { return genBatchMatMul(r, qInt8, qInt8, false) })
	add("bmm_int8_int32", func(r *rand.Rand) swCase { return genBatchMatMul(r, qInt8, qInt8, true) })
	add("bmm_int16", func(r *rand.Rand) swCase { return genBatchMatMul(r, qInt16, qInt16, false) })
	add("bmm_int16_int8", func(r *rand.Rand) swCase { return genBatchMatMul(r, qInt16, qInt8, false) })
	for _, t := range []qtype{qInt8, qUint8, qInt16} {
		add("div_"+typeName(t), func(r *rand.Rand) swCase { return genDiv(r, t) })
		add("gelu_"+typeName(t), func(r *rand.Rand) swCase { return genGelu(r, t) })
	}
	add("squared_difference_int8", func(r *rand.Rand) swCase { return genSquaredDifference(r, qInt8) })
	add("l2norm_int8", func(r *rand.Rand) swCase { return genL2Norm(r, qInt8) })
	add("l2norm_uint8", func(r *rand.Rand) swCase { return genL2Norm(r, qUint8) })
	add("exp_int8", func(r *rand.Rand) swCase { return genExpLog(r, schema.BuiltinOperatorEXP, qInt8) })
	add("log_int8", func(r *rand.Rand) swCase { return genExpLog(r, schema.BuiltinOperatorLOG, qInt8) })
	return f
}

// genTransposeConv: TRANSPOSE_CONV with SAME or VALID padding, strides
// 1-3, an optional bias and a fused activation. int16x8 takes an int64
// bias when wide, else an int32 one (quantized_bias_type, version 5).
func genTransposeConv(r *rand.Rand, t qtype, perChannel, wide bool) swCase {
	pad := pick(r, schema.PaddingSAME, schema.PaddingVALID)
	batch := 1 + r.IntN(2)
	ih, iw := 1+r.IntN(7), 1+r.IntN(7)
	fh, fw := 1+r.IntN(4), 1+r.IntN(4)
	sh, sw := 1+r.IntN(3), 1+r.IntN(3)
	inC, outC := 1+r.IntN(12), 1+r.IntN(16)
	oh, ow := ih*sh, iw*sw
	if pad == schema.PaddingVALID {
		oh, ow = (ih-1)*sh+fh, (iw-1)*sw+fw
	}
	act := pick(r, swActs...)
	hasBias := r.IntN(4) != 0
	inS, inZP := logUniform(r, 0.002, 0.2), t.zp(r)
	wS := make([]float32, outC)
	for c := range wS {
		wS[c] = float32(logUniform(r, 0.0005, 0.05))
		if !perChannel {
			wS[c] = wS[0]
		}
	}
	unsigned := t.s == schema.TensorTypeUINT8
	wz := int64(0)
	var wq *optest.Quant
	switch {
	case unsigned:
		wz = int64(r.IntN(256))
		wq = pt(float64(wS[0]), wz)
	case perChannel:
		wq = &optest.Quant{Scale: wS, ZeroPoint: make([]int64, outC)}
	default:
		wq = pt(float64(wS[0]), 0)
	}
	// Each output sums about inC·fH·fW/(sH·sW) products.
	k := max(1, inC*fh*fw/(sh*sw))
	std := accStd(k, t.steps(), 127)
	outS := outScaleFor(r, std*inS*float64(wS[0]), t)
	outZP := t.zp(r)
	s := newSwBuild()
	s.cst(schema.TensorTypeINT32, []int{4}, nil, int32s([]int32{int32(batch), int32(oh), int32(ow), int32(outC)}))
	wt := schema.TensorTypeINT8
	if unsigned {
		wt = schema.TensorTypeUINT8
	}
	s.cst(wt, []int{outC, fh, fw, inC}, wq, weightBytes(r, outC*fh*fw*inC, unsigned))
	s.in(t.s, []int{batch, ih, iw, inC}, pt(inS, inZP))
	ver := int32(2)
	qbt := schema.TensorType(0)
	if hasBias {
		bq := &optest.Quant{Scale: make([]float32, outC), ZeroPoint: make([]int64, outC)}
		for c := range bq.Scale {
			bq.Scale[c] = float32(inS) * wS[c]
		}
		if !perChannel {
			bq = pt(float64(float32(inS)*wS[0]), 0)
		}
		bt := schema.TensorTypeINT32
		b64 := t.s == schema.TensorTypeINT16 && wide
		if b64 {
			bt = schema.TensorTypeINT64
		}
		s.cst(bt, []int{outC}, bq, biasBytes(r, outC, std, b64))
		ver = 3
		if t.s == schema.TensorTypeINT16 && !wide {
			qbt, ver = schema.TensorTypeINT32, 5
		}
	}
	if act != schema.ActivationFunctionTypeNONE {
		ver = max(ver, 4)
	}
	s.out(t.s, []int{batch, oh, ow, outC}, pt(outS, outZP))
	opts := &schema.TransposeConvOptionsT{Padding: pad, StrideW: int32(sw), StrideH: int32(sh),
		FusedActivationFunction: act, QuantizedBiasType: qbt}
	model := s.op(schema.BuiltinOperatorTRANSPOSE_CONV, ver, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsTransposeConvOptions, Value: opts})
	return swCase{desc: fmt.Sprintf("in %v x %dx%d→%d stride %d,%d %v %v bias %v inS %.3g outS %.3g zp %d/%d",
		[]int{batch, ih, iw, inC}, fh, fw, outC, sh, sw, pad, act, hasBias, inS, outS, inZP, outZP), model: model}
}

// genBatchMatMul: BATCH_MATMUL of rank 2-4 operands with broadcast batch
// dimensions and adjoints; the right operand is a constant half the
// time. int16 operands have zero points 0 (TFLite requires it);
// int8 → int32 (i32out) ignores the zero points.
func genBatchMatMul(r *rand.Rand, lt, rt qtype, i32out bool) swCase {
	m, kd, n := 1+r.IntN(9), 1+r.IntN(24), 1+r.IntN(9)
	rank := 2 + r.IntN(3)
	batch := randShape(r, rank-2, 3)
	lb, rb := append([]int(nil), batch...), append([]int(nil), batch...)
	for i := range batch {
		switch r.IntN(4) {
		case 0:
			lb[i] = 1
		case 1:
			rb[i] = 1
		}
	}
	if r.IntN(3) == 0 && len(rb) > 0 {
		rb = rb[1:] // lower-rank right operand
	}
	adjX, adjY := r.IntN(2) == 0, r.IntN(2) == 0
	lshape := append(append([]int(nil), lb...), m, kd)
	if adjX {
		lshape = append(append([]int(nil), lb...), kd, m)
	}
	rshape := append(append([]int(nil), rb...), kd, n)
	if adjY {
		rshape = append(append([]int(nil), rb...), n, kd)
	}
	oshape := append(append([]int(nil), batch...), m, n)
	ls, rs := logUniform(r, 0.002, 0.2), logUniform(r, 0.002, 0.2)
	lz, rz := lt.zp(r), rt.zp(r)
	if lt.s == schema.TensorTypeINT16 {
		rz = 0 // TFLite's int16 path needs every zero point 0
	}
	std := accStd(kd, lt.steps(), rt.steps())
	s := newSwBuild()
	s.in(lt.s, lshape, pt(ls, lz))
	constR := r.IntN(2) == 0
	if constR {
		s.cst(rt.s, rshape, pt(rs, rz), rt.bytesOf(r, prodInts(rshape)))
	} else {
		s.in(rt.s, rshape, pt(rs, rz))
	}
	ot, outS, outZP := lt, 0.0, int64(0)
	if i32out {
		s.out(schema.TensorTypeINT32, oshape, pt(ls*rs, 0))
	} else {
		outS, outZP = outScaleFor(r, std*ls*rs, lt), lt.zp(r)
		s.out(ot.s, oshape, pt(outS, outZP))
	}
	ver := verFor(lt, 2, 3)
	if rt.s != lt.s {
		ver = 4
	}
	opts := &schema.BatchMatMulOptionsT{AdjX: adjX, AdjY: adjY}
	model := s.op(schema.BuiltinOperatorBATCH_MATMUL, ver, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsBatchMatMulOptions, Value: opts})
	return swCase{desc: fmt.Sprintf("%v x %v → %v adj %v,%v const %v s %.3g,%.3g→%.3g zp %d,%d→%d",
		lshape, rshape, oshape, adjX, adjY, constR, ls, rs, outS, lz, rz, outZP), model: model}
}

// genDiv: quantised DIV with broadcasting and a fused activation; the
// divisor never equals its zero point (a real 0, which TFLite does not
// define for quantised tensors).
func genDiv(r *rand.Rand, t qtype) swCase {
	sa, sb, so := bcastShapes(r)
	s1, s2 := logUniform(r, 0.002, 0.5), logUniform(r, 0.002, 0.5)
	z1, z2 := t.zp(r), t.zp(r)
	// Quotients of full-range values spread widely: scale the output to a
	// typical |a|/|b|.
	typ := (s1 * t.steps() / 2) / (s2 * t.steps() / 2)
	outS := typ * 4 / t.steps() * logUniform(r, 1.0/3, 3)
	outZP := t.zp(r)
	act := pick(r, swActs...)
	s := newSwBuild()
	s.in(t.s, sa, pt(s1, z1))
	s.in(t.s, sb, pt(s2, z2))
	s.out(t.s, so, pt(outS, outZP))
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDivOptions, Value: &schema.DivOptionsT{FusedActivationFunction: act}}
	model := s.op(schema.BuiltinOperatorDIV, 2, opts)
	gen := func(r *rand.Rand, input int, typ ops.DataType) float64 {
		v := optest.Uniform(r, input, typ)
		for input == 1 && int64(v) == z2 {
			v = optest.Uniform(r, input, typ)
		}
		return v
	}
	return swCase{desc: fmt.Sprintf("%v %v→%v %v s %.3g,%.3g→%.3g zp %d,%d→%d", sa, sb, so, act, s1, s2, outS, z1, z2, outZP), model: model, gen: gen}
}

// genSquaredDifference: quantised SQUARED_DIFFERENCE with broadcasting.
func genSquaredDifference(r *rand.Rand, t qtype) swCase {
	sa, sb, so := bcastShapes(r)
	s1, s2 := logUniform(r, 0.002, 0.5), logUniform(r, 0.002, 0.5)
	if r.IntN(3) == 0 {
		s2 = s1
	}
	z1, z2 := t.zp(r), t.zp(r)
	d := math.Hypot(s1, s2) * t.steps() / math.Sqrt(3)
	outS := d * d * 2 / (2 * t.steps()) * logUniform(r, 1.0/3, 3)
	outZP := int64(t.lo) + int64(r.IntN(32))
	s := newSwBuild()
	s.in(t.s, sa, pt(s1, z1))
	s.in(t.s, sb, pt(s2, z2))
	s.out(t.s, so, pt(outS, outZP))
	model := s.op(schema.BuiltinOperatorSQUARED_DIFFERENCE, 2, nil)
	return swCase{desc: fmt.Sprintf("%v %v→%v s %.3g,%.3g→%.3g zp %d,%d→%d", sa, sb, so, s1, s2, outS, z1, z2, outZP), model: model}
}

// genGelu: quantised GELU, exact or tanh-approximate.
func genGelu(r *rand.Rand, t qtype) swCase {
	shape := randShape(r, 1+r.IntN(4), 8)
	inS, inZP := logUniform(r, 0.002, 0.1), t.zp(r)
	outS, outZP := inS*logUniform(r, 0.5, 2), t.zp(r)
	approx := r.IntN(2) == 0
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.out(t.s, shape, pt(outS, outZP))
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsGeluOptions, Value: &schema.GeluOptionsT{Approximate: approx}}
	model := s.op(schema.BuiltinOperatorGELU, 2, opts)
	return swCase{desc: fmt.Sprintf("in %v s %.3g→%.3g zp %d→%d approximate %v", shape, inS, outS, inZP, outZP, approx), model: model}
}

// genL2Norm: quantised L2_NORMALIZATION over the last axis; TFLite fixes
// the output quantisation (scale 1/128, zero point 0 for int8 and 128 for
// uint8).
func genL2Norm(r *rand.Rand, t qtype) swCase {
	shape := randShape(r, 1+r.IntN(4), 9)
	inS, inZP := logUniform(r, 0.002, 0.3), t.zp(r)
	outZP := int64(0)
	if t.s == schema.TensorTypeUINT8 {
		outZP = 128
	}
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.out(t.s, shape, pt(1.0/128, outZP))
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsL2NormOptions, Value: &schema.L2NormOptionsT{}}
	model := s.op(schema.BuiltinOperatorL2_NORMALIZATION, verFor(t, 2, 2), opts)
	return swCase{desc: fmt.Sprintf("in %v s %.3g zp %d", shape, inS, inZP), model: model}
}

// genExpLog: int8 EXP or LOG through TFLite's 256-entry table; LOG takes
// a positive input range mostly, with the zero point anywhere.
func genExpLog(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	shape := randShape(r, 1+r.IntN(4), 8)
	inS, inZP := logUniform(r, 0.002, 0.05), t.zp(r)
	var outS float64
	if op == schema.BuiltinOperatorEXP {
		hi := math.Exp(inS * float64(int64(t.hi)-inZP))
		outS = hi / (2 * t.steps()) * logUniform(r, 0.5, 2)
	} else {
		hi := math.Abs(math.Log(inS)) + 2
		outS = hi / t.steps() * logUniform(r, 0.5, 2)
	}
	outZP := t.zp(r)
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.out(t.s, shape, pt(outS, outZP))
	model := s.op(op, 2, nil)
	return swCase{desc: fmt.Sprintf("in %v s %.3g→%.3g zp %d→%d", shape, inS, outS, inZP, outZP), model: model}
}

// TestMoreSweepFamiliesRun runs a few models of each family above through
// tflrun alone: a generator that draws a model tflrun refuses (a broken
// shape, version or quantisation rule) fails here without TensorFlow Lite.
func TestMoreSweepFamiliesRun(t *testing.T) {
	tmp := t.TempDir()
	for _, fam := range moreSwFamilies() {
		for seed := uint64(0); seed < 4; seed++ {
			c := fam.gen(swRand(fam.name, seed))
			mp := filepath.Join(tmp, fmt.Sprintf("%s_%d.tflite", fam.name, seed))
			if err := os.WriteFile(mp, c.model, 0o644); err != nil {
				t.Fatal(err)
			}
			in, err := swInputs(c.model, seed, c.gen)
			if err != nil {
				t.Fatalf("%s seed %d (%s): inputs: %v", fam.name, seed, c.desc, err)
			}
			if _, err := optest.Run(&optest.Case{Model: mp, Exact: true, Inputs: in}, nil); err != nil {
				t.Errorf("%s seed %d (%s): %v", fam.name, seed, c.desc, firstLine(err))
			}
		}
	}
}
