package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of BITCAST: same size, narrowing and widening, between
// every type npy holds.

func TestRecordBitcast(t *testing.T) {
	m := func(in schema.TensorType, inShape []int32, out schema.TensorType, outShape ...int32) []byte {
		return opModel(schema.BuiltinOperatorBITCAST, 1, nil, []gIn{act(in, inShape...)}, []gOut{res(out, outShape...)})
	}
	recordGolden(t, "bitcast", []goldenModel{
		{variant: "f32_to_int32", model: m(schema.TensorTypeFLOAT32, []int32{3, 4}, schema.TensorTypeINT32, 3, 4), tol: optest.Case{Exact: true}},
		{variant: "int32_to_uint8", model: m(schema.TensorTypeINT32, []int32{2, 3}, schema.TensorTypeUINT8, 2, 3, 4), tol: optest.Case{Exact: true}},
		{variant: "int8_to_int16", model: m(schema.TensorTypeINT8, []int32{5, 2}, schema.TensorTypeINT16, 5), tol: optest.Case{Exact: true}},
		{variant: "f32_to_int64", model: m(schema.TensorTypeFLOAT32, []int32{3, 2}, schema.TensorTypeINT64, 3), tol: optest.Case{Exact: true}},
		{variant: "f64_to_uint32", model: m(schema.TensorTypeFLOAT64, []int32{4}, schema.TensorTypeUINT32, 4, 2), tol: optest.Case{Exact: true}},
		{variant: "uint16_to_int8", model: m(schema.TensorTypeUINT16, []int32{3, 2}, schema.TensorTypeINT8, 3, 2, 2), tol: optest.Case{Exact: true}},
		{variant: "bool_to_uint8", model: m(schema.TensorTypeBOOL, []int32{7}, schema.TensorTypeUINT8, 7), tol: optest.Case{Exact: true}},
		{variant: "int16_to_f16", model: m(schema.TensorTypeINT16, []int32{2, 5}, schema.TensorTypeFLOAT16, 2, 5), tol: optest.Case{Exact: true}},
		{variant: "uint64_to_f64", model: m(schema.TensorTypeUINT64, []int32{5}, schema.TensorTypeFLOAT64, 5), tol: optest.Case{Exact: true}},
		{variant: "uint8_to_uint32", model: m(schema.TensorTypeUINT8, []int32{3, 4}, schema.TensorTypeUINT32, 3), tol: optest.Case{Exact: true}},
	})
}

func TestGoldenBitcast(t *testing.T) { checkGolden(t, "bitcast") }
