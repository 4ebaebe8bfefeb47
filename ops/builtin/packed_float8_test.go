package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Expected values below are worked by hand from the formats' definitions
// (ml_dtypes float8_e4m3fn: bias 7, 3 mantissa bits, no infinity, 0x7f NaN,
// largest 448; float8_e5m2: bias 15, 2 mantissa bits, IEEE specials,
// largest 57344) and TFLite's packing (low bits first).

func TestFloat8FromFloat32(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, tc := range []struct {
		f    float8Format
		name string
		x    float32
		want byte
	}{
		{float8E4M3FN, "1", 1, 0x38},
		{float8E4M3FN, "-2", -2, 0xc0},
		{float8E4M3FN, "1.0625 tie to even (down)", 1.0625, 0x38},
		{float8E4M3FN, "1.1875 tie to even (up)", 1.1875, 0x3a},
		{float8E4M3FN, "1.07 rounds up", 1.07, 0x39},
		{float8E4M3FN, "448 largest", 448, 0x7e},
		{float8E4M3FN, "464 tie keeps 448", 464, 0x7e},
		{float8E4M3FN, "465 overflows to NaN", 465, 0x7f},
		{float8E4M3FN, "-1e9 overflows to -NaN", -1e9, 0xff},
		{float8E4M3FN, "+inf to NaN", inf, 0x7f},
		{float8E4M3FN, "NaN", nan, 0x7f},
		{float8E4M3FN, "2^-9 smallest subnormal", 1.0 / 512, 0x01},
		{float8E4M3FN, "2^-10 tie to zero", 1.0 / 1024, 0x00},
		{float8E4M3FN, "1.5·2^-10 up to 2^-9", 1.5 / 1024, 0x01},
		{float8E4M3FN, "3·2^-10 tie to 2·2^-9", 3.0 / 1024, 0x02},
		{float8E4M3FN, "7.5·2^-9 rounds to 2^-6 normal", 7.5 / 512, 0x08},
		{float8E4M3FN, "-0", float32(math.Copysign(0, -1)), 0x80},
		{float8E4M3FN, "float32 subnormal", 1e-40, 0x00},
		{float8E5M2, "1", 1, 0x3c},
		{float8E5M2, "-0.75", -0.75, 0xba},
		{float8E5M2, "57344 largest", 57344, 0x7b},
		{float8E5M2, "61440 tie rounds to even: inf", 61440, 0x7c},
		{float8E5M2, "61439 stays finite", 61439, 0x7b},
		{float8E5M2, "-inf", -inf, 0xfc},
		{float8E5M2, "NaN", nan, 0x7e},
		{float8E5M2, "2^-16 smallest subnormal", 1.0 / 65536, 0x01},
		{float8E5M2, "1.125 tie to even (down)", 1.125, 0x3c},
	} {
		if got := tc.f.fromFloat32(tc.x); got != tc.want {
			t.Errorf("%s: got %#02x, want %#02x", tc.name, got, tc.want)
		}
	}
}

func TestFloat8ToFloat32(t *testing.T) {
	for _, tc := range []struct {
		f    float8Format
		b    byte
		want float32
	}{
		{float8E4M3FN, 0x38, 1}, {float8E4M3FN, 0x7e, 448}, {float8E4M3FN, 0x01, 1.0 / 512},
		{float8E4M3FN, 0x08, 1.0 / 64}, {float8E4M3FN, 0xc0, -2}, {float8E4M3FN, 0x78, 256},
		{float8E5M2, 0x3c, 1}, {float8E5M2, 0x7b, 57344}, {float8E5M2, 0x01, 1.0 / 65536},
		{float8E5M2, 0x7c, float32(math.Inf(1))}, {float8E5M2, 0xfc, float32(math.Inf(-1))},
	} {
		if got := tc.f.toFloat32(tc.b); got != tc.want {
			t.Errorf("%#02x: got %g, want %g", tc.b, got, tc.want)
		}
	}
	for _, c := range []struct {
		f float8Format
		b byte
	}{{float8E4M3FN, 0x7f}, {float8E4M3FN, 0xff}, {float8E5M2, 0x7d}, {float8E5M2, 0xfe}} {
		if got := c.f.toFloat32(c.b); got == got {
			t.Errorf("%#02x: got %g, want NaN", c.b, got)
		}
	}
	// Every finite value round-trips.
	for _, f := range []float8Format{float8E4M3FN, float8E5M2} {
		for b := 0; b < 256; b++ {
			v := f.toFloat32(byte(b))
			if v != v || math.IsInf(float64(v), 0) {
				continue
			}
			if got := f.fromFloat32(v); got != byte(b) && !(v == 0 && got&0x7f == 0 && byte(b)&0x7f == 0) {
				t.Errorf("bias %d: %#02x → %g → %#02x", f.bias, b, v, got)
			}
		}
	}
}

func TestPackedLoadStore(t *testing.T) {
	data := []byte{0x8f, 0x07}
	for i, want := range []int32{-1, -8, 7, 0} {
		if got := loadPacked(ops.Int4, data, i); got != want {
			t.Errorf("int4 %d: got %d, want %d", i, got, want)
		}
	}
	for i, want := range []int32{15, 8, 7, 0} {
		if got := loadPacked(ops.Uint4, data, i); got != want {
			t.Errorf("uint4 %d: got %d, want %d", i, got, want)
		}
	}
	// 0x8f = 10 00 11 11: elements -1, -1, 0, -2.
	for i, want := range []int32{-1, -1, 0, -2, -1, 1} {
		if got := loadPacked(ops.Int2, data, i); got != want {
			t.Errorf("int2 %d: got %d, want %d", i, got, want)
		}
	}
	b := []byte{0xff, 0xff}
	storePacked(ops.Int4, b, 1, -8)
	storePacked(ops.Int2, b[1:], 2, 1)
	if b[0] != 0x8f || b[1] != 0xdf {
		t.Errorf("stores: got %#02x %#02x, want 0x8f 0xdf", b[0], b[1])
	}
}

func TestDequantizePacked(t *testing.T) {
	for _, tc := range []struct {
		typ   ops.DataType
		shape []int
		data  []byte
		scale float32
		zp    int64
		want  []float32
	}{
		// int4 elements -1, -8, 7, 0, 1 (odd count: last byte's high nibble unused).
		{ops.Int4, []int{5}, []byte{0x8f, 0x07, 0xf1}, 0.5, 1, []float32{-1, -4.5, 3, -0.5, 0}},
		{ops.Uint4, []int{2, 2}, []byte{0x8f, 0x07}, 2, 8, []float32{14, 0, -2, -16}},
		{ops.Int2, []int{6}, []byte{0x8f, 0x07}, 0.25, 0, []float32{-0.25, -0.25, 0, -0.5, -0.25, 0.25}},
	} {
		n := node(nil, []*ops.Tensor{q(tensorOf(tc.typ, tc.shape, tc.data), tc.scale, tc.zp)}, outTensor(ops.Float32))
		k := NewDequantize()
		run(t, k, n)
		equalFloat32s(t, tc.typ.String(), n.Outputs[0].Float32s(), tc.want)
		noAllocs(t, k, n)
	}
	// Per-channel int4 along dimension 0.
	in := tensorOf(ops.Int4, []int{2, 2}, []byte{0x8f, 0x07})
	in.Quant = &ops.Quantization{Scale: []float32{1, 0.5}, ZeroPoint: []int64{0, 1}}
	n := node(nil, []*ops.Tensor{in}, outTensor(ops.Float32))
	run(t, NewDequantize(), n)
	equalFloat32s(t, "per-channel int4", n.Outputs[0].Float32s(), []float32{-1, -8, 3, -0.5})
}

func TestDequantizeFloat8(t *testing.T) {
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float8E4M3FN, []int{3}, []byte{0x38, 0xfe, 0x01})}, outTensor(ops.Float32))
	run(t, NewDequantize(), n)
	equalFloat32s(t, "e4m3fn", n.Outputs[0].Float32s(), []float32{1, -448, 1.0 / 512})
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float8E5M2, []int{2}, []byte{0xba, 0x7b})}, outTensor(ops.Float32))
	run(t, NewDequantize(), n)
	equalFloat32s(t, "e5m2", n.Outputs[0].Float32s(), []float32{-0.75, 57344})
}

func TestQuantizePacked(t *testing.T) {
	// scale 0.5, zero point 1: x/0.5 rounded half away from zero, +1,
	// clamped. 1.25/0.5 = 2.5 → 3 → 4; -0.25/0.5 = -0.5 → -1 → 0.
	in := []float32{0, 1.25, -0.25, 100, -100}
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{5}, in)}, q(outTensor(ops.Int4), 0.5, 1))
	k := NewQuantize()
	run(t, k, n)
	// Elements 1, 4, 0, 7, -8 packed: 0x41, 0x70, 0x08.
	equalInts(t, "int4", n.Outputs[0].Data, []int{0x41, 0x70, 0x08})
	noAllocs(t, k, n)
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{4}, []float32{0, 3, -100, 100})}, q(outTensor(ops.Uint4), 1, 2))
	run(t, NewQuantize(), n)
	// Elements 2, 5, 0, 15.
	equalInts(t, "uint4", n.Outputs[0].Data, []int{0x52, 0xf0})
	out := outTensor(ops.Int4)
	out.Quant = &ops.Quantization{Scale: []float32{1, 1}, ZeroPoint: []int64{0, 0}}
	if err := prepare(NewQuantize(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, []float32{0, 0})}, out)); err == nil {
		t.Error("per-channel int4 output: Prepare succeeded, want an error")
	}
}

// equalFloat32s fails unless got and want hold the same float32 values.
func equalFloat32s(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: element %d is %g, want %g (all: %v)", what, i, got[i], want[i], got)
		}
	}
}

func TestCastPackedAndFloat8(t *testing.T) {
	nan := float32(math.NaN())
	// float32 → int4: clamp to [-8, 7] (NaN → 7), truncate: 7, -8, -7, 0, 7.
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{5}, []float32{9.5, -100, -7.9, -0.5, nan})}, outTensor(ops.Int4))
	k := NewCast()
	run(t, k, n)
	equalInts(t, "float32→int4", n.Outputs[0].Data, []int{0x87, 0x09, 0x07})
	noAllocs(t, k, n)
	// float32 → uint4 and int2.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, []float32{-3, 15.9})}, outTensor(ops.Uint4))
	run(t, NewCast(), n)
	equalInts(t, "float32→uint4", n.Outputs[0].Data, []int{0xf0})
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{4}, []float32{-3, 1.9, -1.5, 0})}, outTensor(ops.Int2))
	run(t, NewCast(), n)
	// Elements -2, 1, -1, 0: 10 01 11 00 read from the top = 0b00110110.
	equalInts(t, "float32→int2", n.Outputs[0].Data, []int{0x36})
	// Packed → float32.
	for _, tc := range []struct {
		typ  ops.DataType
		want []float32
	}{
		{ops.Int4, []float32{-1, -8, 7}},
		{ops.Uint4, []float32{15, 8, 7}},
		{ops.Int2, []float32{-1, -1, 0}},
	} {
		n = node(nil, []*ops.Tensor{tensorOf(tc.typ, []int{3}, []byte{0x8f, 0x07})}, outTensor(ops.Float32))
		run(t, NewCast(), n)
		equalFloat32s(t, tc.typ.String()+"→float32", n.Outputs[0].Float32s(), tc.want)
	}
	// int4 → float8_e4m3fn: -1, -8 → 0xb8, 0xd0.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int4, []int{2}, []byte{0x8f})}, outTensor(ops.Float8E4M3FN))
	run(t, NewCast(), n)
	equalInts(t, "int4→e4m3fn", n.Outputs[0].Data, []int{0xb8, 0xd0})
	// int32 → e5m2 through float32: 3 → 0x42, 100000 → inf 0x7c.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{3, 100000})}, outTensor(ops.Float8E5M2))
	run(t, NewCast(), n)
	equalInts(t, "int32→e5m2", n.Outputs[0].Data, []int{0x42, 0x7c})
	// e4m3fn → int32 as float32: 448 → 448, -2.5 (0xc2) → -2, NaN → max.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float8E4M3FN, []int{3}, []byte{0x7e, 0xc2, 0x7f})}, outTensor(ops.Int32))
	run(t, NewCast(), n)
	equalInts(t, "e4m3fn→int32", n.Outputs[0].Int32s(), []int{448, -2, math.MaxInt32})
	// e5m2 → e4m3fn: 57344 overflows to NaN; 0.75 stays 0.75 (0x34).
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float8E5M2, []int{2}, []byte{0x7b, 0x3a})}, outTensor(ops.Float8E4M3FN))
	run(t, NewCast(), n)
	equalInts(t, "e5m2→e4m3fn", n.Outputs[0].Data, []int{0x7f, 0x34})
	// Pairs TFLite lacks are refused.
	for _, c := range [][2]ops.DataType{{ops.Int32, ops.Int4}, {ops.Int4, ops.Int4}, {ops.Uint4, ops.Int8}} {
		in := tensorOf(c[0], []int{2}, []int32{0, 0})
		if err := prepare(NewCast(), node(nil, []*ops.Tensor{in}, outTensor(c[1]))); err == nil {
			t.Errorf("%s → %s: Prepare succeeded, want an error", c[0], c[1])
		}
	}
}

func TestConcatenationInt4(t *testing.T) {
	// [[1], [-2]] ++ [[3, 4], [-8, 7]] along axis 1 = [[1, 3, 4], [-2, -8, 7]].
	a := tensorOf(ops.Int4, []int{2, 1}, []byte{0xe1})
	b := tensorOf(ops.Int4, []int{2, 2}, []byte{0x43, 0x78})
	n := node(&ConcatenationOptions{Axis: 1}, []*ops.Tensor{a, b}, outTensor(ops.Int4))
	k := NewConcatenation()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 3})
	equalInts(t, "axis 1", n.Outputs[0].Data, []int{0x31, 0xe4, 0x78})
	// An odd element count: the last byte's high nibble is cleared even
	// over a dirty buffer; [5] ++ [-1, 2] = [5, -1, 2].
	n = node(&ConcatenationOptions{}, []*ops.Tensor{tensorOf(ops.Int4, []int{1}, []byte{0x05}), tensorOf(ops.Int4, []int{2}, []byte{0x2f})}, outTensor(ops.Int4))
	k = NewConcatenation()
	run(t, k, n)
	n.Outputs[0].Data[1] = 0xff
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	equalInts(t, "odd", n.Outputs[0].Data[:2], []int{0xf5, 0x02})
	noAllocs(t, k, n)
	wantPrepareError(t, NewConcatenation(), node(&ConcatenationOptions{}, []*ops.Tensor{tensorOf(ops.Int4, nil, []byte{1})}, outTensor(ops.Int4)), "rank")
}

func TestFloat8DataMovement(t *testing.T) {
	f8 := func(typ ops.DataType, shape []int, b ...byte) *ops.Tensor { return tensorOf(typ, shape, b) }
	// PADV2 with a float8 constant: the byte is copied.
	pads := constT(tensorOf(ops.Int32, []int{1, 2}, []int32{1, 2}))
	cv := constT(f8(ops.Float8E4M3FN, []int{1}, 0x38))
	n := node(nil, []*ops.Tensor{f8(ops.Float8E4M3FN, []int{2}, 0xc0, 0x7e), pads, cv}, outTensor(ops.Float8E4M3FN))
	n.Version = 6
	run(t, NewPad(), n)
	equalInts(t, "PADV2", n.Outputs[0].Data, []int{0x38, 0xc0, 0x7e, 0x38, 0x38})
	// PAD without a constant pads with byte 0 (+0).
	n = node(nil, []*ops.Tensor{f8(ops.Float8E5M2, []int{1}, 0x7b), pads}, outTensor(ops.Float8E5M2))
	run(t, NewPad(), n)
	equalInts(t, "PAD", n.Outputs[0].Data, []int{0, 0x7b, 0, 0})
	// GATHER and GATHER_ND copy bytes.
	params := f8(ops.Float8E5M2, []int{3}, 0x3c, 0xba, 0x7c)
	n = node(&GatherOptions{}, []*ops.Tensor{params, tensorOf(ops.Int32, []int{2}, []int32{2, 0})}, outTensor(ops.Float8E5M2))
	run(t, NewGather(), n)
	equalInts(t, "GATHER", n.Outputs[0].Data, []int{0x7c, 0x3c})
	n = node(nil, []*ops.Tensor{params, tensorOf(ops.Int32, []int{2, 1}, []int32{1, 2})}, outTensor(ops.Float8E5M2))
	run(t, NewGatherND(), n)
	equalInts(t, "GATHER_ND", n.Outputs[0].Data, []int{0xba, 0x7c})
	// PACK and REVERSE_V2.
	n = node(&PackOptions{ValuesCount: 2, Axis: 1}, []*ops.Tensor{f8(ops.Float8E4M3FN, []int{2}, 1, 2), f8(ops.Float8E4M3FN, []int{2}, 3, 4)}, outTensor(ops.Float8E4M3FN))
	run(t, NewPack(), n)
	equalInts(t, "PACK", n.Outputs[0].Data, []int{1, 3, 2, 4})
	n = node(nil, []*ops.Tensor{f8(ops.Float8E4M3FN, []int{3}, 1, 2, 3), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float8E4M3FN))
	run(t, NewReverseV2(), n)
	equalInts(t, "REVERSE_V2", n.Outputs[0].Data, []int{3, 2, 1})
}

func TestDynamicUpdateSliceInt4(t *testing.T) {
	// Operand [[0, 1, 2], [3, 4, 5]], update [[-1, -2]].
	for _, tc := range []struct {
		start []int32
		want  []int
	}{
		{[]int32{1, 1}, []int{0x10, 0x32, 0xef}},  // [[0 1 2] [3 -1 -2]]
		{[]int32{1, 0}, []int{0x10, 0xf2, 0x5e}},  // [[0 1 2] [-1 -2 5]]: odd nibble start
		{[]int32{-4, 9}, []int{0xf0, 0x3e, 0x54}}, // clamped to [0, 1]: [[0 -1 -2] [3 4 5]]
	} {
		op := tensorOf(ops.Int4, []int{2, 3}, []byte{0x10, 0x32, 0x54})
		upd := tensorOf(ops.Int4, []int{1, 2}, []byte{0xef})
		n := node(nil, []*ops.Tensor{op, upd, tensorOf(ops.Int32, []int{2}, tc.start)}, outTensor(ops.Int4))
		k := NewDynamicUpdateSlice()
		run(t, k, n)
		equalInts(t, "DYNAMIC_UPDATE_SLICE int4", n.Outputs[0].Data, tc.want)
		noAllocs(t, k, n)
	}
	// An update as large as the operand replaces it (the packed bytes).
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int4, []int{3}, []byte{0x10, 0x02}), tensorOf(ops.Int4, []int{3}, []byte{0x98, 0x07}), tensorOf(ops.Int32, []int{1}, []int32{0})}, outTensor(ops.Int4))
	run(t, NewDynamicUpdateSlice(), n)
	equalInts(t, "whole", n.Outputs[0].Data, []int{0x98, 0x07})
}

func TestEmbeddingLookupPacked(t *testing.T) {
	// int4 table [3, 3]: rows [1 2 3], [-1 -2 -3], [7 -8 0], packed as the
	// stream 1 2 3 -1 -2 -3 7 -8 0. Row r starts at byte 3r/2 rounded
	// down, so row 1 reads values 2..4 of the stream (3 -1 -2), as
	// TFLite's Unpack4Bit does.
	tab := q(tensorOf(ops.Int4, []int{3, 3}, []byte{0x21, 0xf3, 0xde, 0x87, 0x00}), 0.5, 0)
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{3}, []int32{1, 2, 0}), tab}, outTensor(ops.Float32))
	n.Version = 4
	k := NewEmbeddingLookup()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 3})
	equalFloat32s(t, "int4", n.Outputs[0].Float32s(), []float32{1.5, -0.5, -1, 3.5, -4, 0, 0.5, 1, 1.5})
	noAllocs(t, k, n)
	// int2 table [2, 2]: stream 1 -2 -1 0 (one byte 0x39); both rows start
	// at byte 0.
	tab2 := q(tensorOf(ops.Int2, []int{2, 2}, []byte{0x39}), 0.25, 0)
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{1, 0}), tab2}, outTensor(ops.Float32))
	run(t, NewEmbeddingLookup(), n)
	equalFloat32s(t, "int2", n.Outputs[0].Float32s(), []float32{0.25, -0.5, 0.25, -0.5})
	// Per-row scales, and the refusals.
	tab = tensorOf(ops.Int4, []int{2, 2}, []byte{0x21, 0xf3})
	tab.Quant = &ops.Quantization{Scale: []float32{1, 2}, ZeroPoint: []int64{0, 0}}
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{1, 0}), tab}, outTensor(ops.Float32))
	run(t, NewEmbeddingLookup(), n)
	equalFloat32s(t, "per-row", n.Outputs[0].Float32s(), []float32{6, -2, 1, 2})
	wantPrepareError(t, NewEmbeddingLookup(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{0}), tensorOf(ops.Int4, []int{2, 2}, []byte{0, 0})}, outTensor(ops.Int4)), "int4")
	wantPrepareError(t, NewEmbeddingLookup(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{0}), q(tensorOf(ops.Int2, []int{2, 2}, []byte{0}), 1, 1)}, outTensor(ops.Float32)), "zero point")
}
