package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of SEGMENT_SUM: float32 and int32 data, segments of one and
// several rows, multi-dimensional rows.

func segmentSumModel(typ schema.TensorType, ids []int32, data ...int32) []byte {
	out := append([]int32{ids[len(ids)-1] + 1}, data[1:]...)
	return opModel(schema.BuiltinOperatorSEGMENT_SUM, 1, nil,
		[]gIn{act(typ, data...), cst(schema.TensorTypeINT32, optest.I32(ids...), int32(len(ids)))}, []gOut{res(typ, out...)})
}

func TestRecordSegmentSum(t *testing.T) {
	recordGolden(t, "segment_sum", []goldenModel{
		{variant: "f32", model: segmentSumModel(schema.TensorTypeFLOAT32, []int32{0, 0, 1, 2, 2, 2, 3}, 7, 3)},
		{variant: "f32_3d", model: segmentSumModel(schema.TensorTypeFLOAT32, []int32{0, 1, 1, 1}, 4, 2, 5)},
		{variant: "f32_one_segment", model: segmentSumModel(schema.TensorTypeFLOAT32, []int32{0, 0, 0}, 3)},
		{variant: "int32", model: segmentSumModel(schema.TensorTypeINT32, []int32{0, 1, 1, 2, 3, 3}, 6, 4)},
	})
}

func TestGoldenSegmentSum(t *testing.T) { checkGolden(t, "segment_sum") }
