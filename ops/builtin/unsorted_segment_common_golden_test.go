package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of UNSORTED_SEGMENT_SUM, _PROD, _MAX and _MIN: random
// segment ids in [-1, num_segments) (negatives are skipped, some segments
// stay empty and keep the neutral element), 1-D and 2-D ids, float32 and
// int32 data (int32 products wrap).

func unsortedSegmentModels(code schema.BuiltinOperator) []goldenModel {
	f32, i32 := schema.TensorTypeFLOAT32, schema.TensorTypeINT32
	m := func(typ schema.TensorType, segs int32, ids []int32, data ...int32) []byte {
		out := append([]int32{segs}, data[len(ids):]...)
		return opModel(code, 1, nil,
			[]gIn{act(typ, data...), act(i32, ids...), cst(i32, optest.I32(segs))}, []gOut{res(typ, out...)})
	}
	return []goldenModel{
		{variant: "f32", gen: genInputs(map[int][2]int{1: {-1, 4}}), model: m(f32, 5, []int32{9}, 9, 3)},
		{variant: "f32_2d_ids", gen: genInputs(map[int][2]int{1: {-1, 2}}), model: m(f32, 3, []int32{3, 4}, 3, 4, 2)},
		{variant: "f32_empty_segments", gen: genInputs(map[int][2]int{1: {0, 1}}), model: m(f32, 6, []int32{4}, 4)},
		{variant: "int32", gen: genInputs(map[int][2]int{1: {-1, 3}}), model: m(i32, 4, []int32{10}, 10, 2)},
	}
}

func TestRecordUnsortedSegmentSum(t *testing.T) {
	recordGolden(t, "unsorted_segment_sum", unsortedSegmentModels(schema.BuiltinOperatorUNSORTED_SEGMENT_SUM))
}
func TestRecordUnsortedSegmentProd(t *testing.T) {
	recordGolden(t, "unsorted_segment_prod", unsortedSegmentModels(schema.BuiltinOperatorUNSORTED_SEGMENT_PROD))
}
func TestRecordUnsortedSegmentMax(t *testing.T) {
	recordGolden(t, "unsorted_segment_max", unsortedSegmentModels(schema.BuiltinOperatorUNSORTED_SEGMENT_MAX))
}
func TestRecordUnsortedSegmentMin(t *testing.T) {
	recordGolden(t, "unsorted_segment_min", unsortedSegmentModels(schema.BuiltinOperatorUNSORTED_SEGMENT_MIN))
}
func TestGoldenUnsortedSegmentSum(t *testing.T)  { checkGolden(t, "unsorted_segment_sum") }
func TestGoldenUnsortedSegmentProd(t *testing.T) { checkGolden(t, "unsorted_segment_prod") }
func TestGoldenUnsortedSegmentMax(t *testing.T)  { checkGolden(t, "unsorted_segment_max") }
func TestGoldenUnsortedSegmentMin(t *testing.T)  { checkGolden(t, "unsorted_segment_min") }
