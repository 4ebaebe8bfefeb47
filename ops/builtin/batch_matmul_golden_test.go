package builtin_test

import (
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// BATCH_MATMUL against TensorFlow Lite's recorded outputs: float32 (ranks
// 2-5, broadcasting, adj_x/adj_y, constant and run-time rhs), int8 to
// int8 and to int32, int16 × int16, int16 × int8, and hybrid float × int8
// (symmetric and asymmetric, per-tensor and per-column scales, several
// batch dimensions).

// bmmGold describes one BATCH_MATMUL model.
type bmmGold struct {
	xs, ys       []int32
	adjX, adjY   bool
	constY       bool
	asym         bool
	version      int32
	xType, yType schema.TensorType
	outType      schema.TensorType
	perColumn    bool // hybrid: one scale per output column
}

func (g bmmGold) outShape() []int32 {
	rank := max(len(g.xs), len(g.ys))
	ext := func(s []int32) []int32 {
		e := make([]int32, rank)
		for i := range e {
			e[i] = 1
		}
		copy(e[rank-len(s):], s)
		return e
	}
	xe, ye := ext(g.xs), ext(g.ys)
	out := make([]int32, rank)
	for i := 0; i < rank-2; i++ {
		out[i] = max(xe[i], ye[i])
	}
	out[rank-2], out[rank-1] = xe[rank-2], ye[rank-1]
	if g.adjX {
		out[rank-2] = xe[rank-1]
	}
	if g.adjY {
		out[rank-1] = ye[rank-2]
	}
	return out
}

func (g bmmGold) model(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	ny := 1
	for _, d := range g.ys {
		ny *= int(d)
	}
	depth := int(g.xs[len(g.xs)-1])
	if g.adjX {
		depth = int(g.xs[len(g.xs)-2])
	}
	cols := int(g.ys[len(g.ys)-1])
	colDim := int32(len(g.ys) - 1)
	if g.adjY {
		cols, colDim = int(g.ys[len(g.ys)-2]), int32(len(g.ys)-2)
	}
	var xq, yq, oq *optest.Quant
	var yData []byte
	switch g.xType {
	case schema.TensorTypeFLOAT32:
		if g.yType == schema.TensorTypeINT8 {
			yq = optest.PerTensor(0.01, 0)
			if g.perColumn {
				yq = goldPerChannel(goldScales(r, cols, 0.003, 0.02), colDim)
			}
			yData = optest.I8(goldI8(r, ny, -127, 127)...)
		} else {
			yData = optest.F32(goldF32(r, ny, -1, 1)...)
		}
	case schema.TensorTypeINT8:
		xq, yq = optest.PerTensor(0.02, -7), optest.PerTensor(0.015, 9)
		oq = optest.PerTensor(float32(goldStd(depth, 128*0.02, 128*0.015)/40), 4)
		yData = optest.I8(goldI8(r, ny, -128, 127)...)
	case schema.TensorTypeINT16:
		xq = optest.PerTensor(1.0/8192, 0)
		if g.yType == schema.TensorTypeINT8 {
			yq = optest.PerTensor(0.01, 0)
			if g.perColumn {
				// Read by TFLite as scale 0: every output is 0.
				yq = goldPerChannel(goldScales(r, cols, 0.003, 0.02), colDim)
			}
			oq = optest.PerTensor(float32(goldStd(depth, 4, 1.28)/3000), 0)
			yData = optest.I8(goldI8(r, ny, -128, 127)...)
		} else {
			yq = optest.PerTensor(1.0/4096, 0)
			oq = optest.PerTensor(float32(goldStd(depth, 4, 8)/3000), 0)
			yData = optest.I16(goldI16(r, ny, -32768, 32767)...)
		}
	}
	x := b.Tensor("x", g.xType, g.xs, xq)
	var y int32
	if g.constY {
		y = b.Const("y", g.yType, g.ys, yq, yData)
	} else {
		y = b.Tensor("y", g.yType, g.ys, yq)
	}
	out := b.Tensor("out", g.outType, g.outShape(), oq)
	ins := []int32{x}
	if !g.constY {
		ins = append(ins, y)
	}
	return goldSingleOp(b, schema.BuiltinOperatorBATCH_MATMUL, g.version, []int32{x, y}, []int32{out}, ins,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsBatchMatMulOptions, Value: &schema.BatchMatMulOptionsT{AdjX: g.adjX, AdjY: g.adjY, AsymmetricQuantizeInputs: g.asym}})
}

func bmmGoldVariants() []goldVariant {
	f32, i8, i16, i32 := schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeINT16, schema.TensorTypeINT32
	exact := optest.Case{Exact: true}
	v := func(name string, g bmmGold, seed uint64) goldVariant {
		gv := goldVariant{name: name, model: func() []byte { return g.model(seed) }}
		if g.outType != f32 {
			gv.tol = exact
		}
		return gv
	}
	s := func(d ...int32) []int32 { return d }
	return []goldVariant{
		v("float_rank3", bmmGold{xs: s(2, 3, 5), ys: s(2, 5, 4), version: 1, xType: f32, yType: f32, outType: f32}, 1),
		v("float_rank2_const", bmmGold{xs: s(7, 33), ys: s(33, 17), constY: true, version: 1, xType: f32, yType: f32, outType: f32}, 2),
		v("float_broadcast_rank4_adjy", bmmGold{xs: s(2, 1, 3, 6), ys: s(3, 5, 6), adjY: true, version: 1, xType: f32, yType: f32, outType: f32}, 3),
		v("float_rank5_adjx_adjy", bmmGold{xs: s(1, 2, 1, 7, 4), ys: s(2, 1, 3, 5, 7), adjX: true, adjY: true, version: 1, xType: f32, yType: f32, outType: f32}, 4),
		v("float_folded_rhs_batch", bmmGold{xs: s(2, 3, 4, 5), ys: s(2, 1, 5, 6), constY: true, version: 1, xType: f32, yType: f32, outType: f32}, 5),
		v("int8_int8", bmmGold{xs: s(2, 5, 19), ys: s(2, 19, 13), version: 2, xType: i8, yType: i8, outType: i8}, 6),
		v("int8_int8_const_broadcast_adjx", bmmGold{xs: s(3, 19, 4), ys: s(19, 21), adjX: true, constY: true, version: 2, xType: i8, yType: i8, outType: i8}, 7),
		v("int8_int32", bmmGold{xs: s(4, 9), ys: s(6, 9), adjY: true, version: 2, xType: i8, yType: i8, outType: i32}, 8),
		v("int16_int16_adjy", bmmGold{xs: s(1, 1, 6, 40), ys: s(1, 1, 11, 40), adjY: true, version: 3, xType: i16, yType: i16, outType: i16}, 9),
		v("int16_int16_broadcast", bmmGold{xs: s(2, 5, 23), ys: s(23, 7), version: 3, xType: i16, yType: i16, outType: i16}, 10),
		v("int16_int8_const", bmmGold{xs: s(3, 4, 32), ys: s(32, 12), constY: true, version: 3, xType: i16, yType: i8, outType: i16}, 11),
		v("int16_int8_per_channel_rhs", bmmGold{xs: s(2, 5, 16), ys: s(16, 8), constY: true, version: 1, xType: i16, yType: i8, outType: i16, perColumn: true}, 16),
		v("hybrid_symmetric", bmmGold{xs: s(2, 3, 20), ys: s(20, 9), constY: true, version: 1, xType: f32, yType: i8, outType: f32}, 12),
		v("hybrid_asymmetric_per_column", bmmGold{xs: s(4, 24), ys: s(11, 24), adjY: true, constY: true, asym: true, version: 4, xType: f32, yType: i8, outType: f32, perColumn: true}, 13),
		v("hybrid_two_batch_dims", bmmGold{xs: s(2, 3, 4, 10), ys: s(2, 3, 10, 6), constY: true, asym: true, version: 4, xType: f32, yType: i8, outType: f32}, 14),
		v("hybrid_broadcast_batch", bmmGold{xs: s(2, 3, 4, 10), ys: s(3, 10, 5), constY: true, asym: true, version: 4, xType: f32, yType: i8, outType: f32, perColumn: true}, 15),
	}
}

func TestRecordBatchMatMulGolden(t *testing.T) {
	goldRecord(t, "batch_matmul", 2000, bmmGoldVariants())
}

func TestBatchMatMulGolden(t *testing.T) {
	optest.Check(t, filepath.Join("testdata", "batch_matmul"), nil)
}
