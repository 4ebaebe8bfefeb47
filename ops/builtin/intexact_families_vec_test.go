package builtin_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Sweep families of the movers and conversions with fast paths of their
// own: TRANSPOSE of 8-bit tensors (the 8×8 byte blocks, thin matrices
// and strips of transposeTileBytes, the permutations between NCHW and
// NHWC among random ones) and CAST between the integer types and
// float32 (castFast), with float inputs at halves, beyond each integer
// range and at its bounds.

func vecSwFamilies() []swFamily {
	var f []swFamily
	add := func(name string, gen func(r *rand.Rand) swCase) { f = append(f, swFamily{name, gen}) }
	for _, t := range []qtype{qInt8, qUint8} {
		add("transpose_"+typeName(t), func(r *rand.Rand) swCase { return genTranspose(r, t) })
	}
	type pair struct {
		from, to schema.TensorType
	}
	names := map[schema.TensorType]string{schema.TensorTypeFLOAT32: "f32", schema.TensorTypeINT32: "int32",
		schema.TensorTypeINT8: "int8", schema.TensorTypeUINT8: "uint8", schema.TensorTypeINT16: "int16"}
	for _, p := range []pair{
		{schema.TensorTypeFLOAT32, schema.TensorTypeINT32}, {schema.TensorTypeFLOAT32, schema.TensorTypeUINT8},
		{schema.TensorTypeFLOAT32, schema.TensorTypeINT8}, {schema.TensorTypeFLOAT32, schema.TensorTypeINT16},
		{schema.TensorTypeINT32, schema.TensorTypeFLOAT32}, {schema.TensorTypeUINT8, schema.TensorTypeFLOAT32},
		{schema.TensorTypeINT8, schema.TensorTypeFLOAT32}, {schema.TensorTypeINT16, schema.TensorTypeFLOAT32},
		{schema.TensorTypeINT32, schema.TensorTypeINT8}, {schema.TensorTypeINT32, schema.TensorTypeUINT8},
		{schema.TensorTypeINT8, schema.TensorTypeINT32}, {schema.TensorTypeUINT8, schema.TensorTypeINT32},
		{schema.TensorTypeUINT8, schema.TensorTypeINT8}, {schema.TensorTypeINT8, schema.TensorTypeUINT8},
	} {
		add(fmt.Sprintf("cast_%s_%s", names[p.from], names[p.to]), func(r *rand.Rand) swCase { return genCast(r, p.from, p.to) })
	}
	return f
}

// genTranspose: TRANSPOSE of an 8-bit tensor, rank 2-5, a random
// permutation or (half the time) NCHW↔NHWC with channel counts from 1 to
// 40 and planes up to 30×30.
func genTranspose(r *rand.Rand, t qtype) swCase {
	var shape []int
	var perm []int32
	if r.IntN(2) == 0 {
		c, h, w := 1+r.IntN(40), 1+r.IntN(30), 1+r.IntN(30)
		if r.IntN(2) == 0 {
			shape, perm = []int{1 + r.IntN(2), c, h, w}, []int32{0, 2, 3, 1}
		} else {
			shape, perm = []int{1 + r.IntN(2), h, w, c}, []int32{0, 3, 1, 2}
		}
	} else {
		rank := 2 + r.IntN(4)
		shape = randShape(r, rank, max(3, 40/rank))
		perm = make([]int32, rank)
		for i, j := range r.Perm(rank) {
			perm[i] = int32(j)
		}
	}
	outShape := make([]int, len(shape))
	for i, p := range perm {
		outShape[i] = shape[p]
	}
	sc, z := logUniform(r, 0.001, 0.5), t.zp(r)
	s := newSwBuild()
	s.in(t.s, shape, pt(sc, z))
	s.cst(schema.TensorTypeINT32, []int{len(perm)}, nil, int32s(perm))
	s.out(t.s, outShape, pt(sc, z))
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsTransposeOptions, Value: &schema.TransposeOptionsT{}}
	model := s.op(schema.BuiltinOperatorTRANSPOSE, 2, opts)
	return swCase{desc: fmt.Sprintf("in %v perm %v", shape, perm), model: model}
}

// genCast: CAST from one type to another; float inputs mix small values,
// exact halves, values around and beyond the target range, and
// infinities; int32 inputs span the whole range.
func genCast(r *rand.Rand, from, to schema.TensorType) swCase {
	shape := randShape(r, 1+r.IntN(3), 12)
	s := newSwBuild()
	s.in(from, shape, nil)
	s.out(to, shape, nil)
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsCastOptions, Value: &schema.CastOptionsT{InDataType: from, OutDataType: to}}
	model := s.op(schema.BuiltinOperatorCAST, 1, opts)
	gen := func(r *rand.Rand, _ int, typ ops.DataType) float64 {
		switch typ {
		case ops.Float32:
			switch r.IntN(6) {
			case 0:
				return float64(r.IntN(600)-300) + 0.5
			case 1:
				return []float64{127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 2147483520, -2147483648, 3e9, -3e9, math.Inf(1), math.Inf(-1)}[r.IntN(15)]
			case 2:
				return r.NormFloat64() * 1e6
			}
			return (2*r.Float64() - 1) * 300
		case ops.Int32:
			return float64(int32(r.Uint32()))
		case ops.Int16:
			return float64(int16(r.Uint32()))
		case ops.Int8:
			return float64(int8(r.Uint32()))
		}
		return float64(uint8(r.Uint32()))
	}
	return swCase{desc: fmt.Sprintf("in %v %v → %v", shape, from, to), model: model, gen: gen}
}
