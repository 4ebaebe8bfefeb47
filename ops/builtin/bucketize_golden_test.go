package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of BUCKETIZE: every input type, boundaries with repeats and
// none at all.

func bucketizeModel(typ schema.TensorType, b []float32, shape ...int32) []byte {
	return opModel(schema.BuiltinOperatorBUCKETIZE, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsBucketizeOptions, Value: &schema.BucketizeOptionsT{Boundaries: b}},
		[]gIn{act(typ, shape...)}, []gOut{res(schema.TensorTypeINT32, shape...)})
}

func TestRecordBucketize(t *testing.T) {
	recordGolden(t, "bucketize", []goldenModel{
		{variant: "f32", model: bucketizeModel(schema.TensorTypeFLOAT32, []float32{-0.5, 0, 0, 0.25, 0.9}, 4, 9)},
		{variant: "f64", model: bucketizeModel(schema.TensorTypeFLOAT64, []float32{-0.75, -0.1, 0.3}, 17)},
		{variant: "int32", model: bucketizeModel(schema.TensorTypeINT32, []float32{1.5, 3, 3, 7}, 3, 5)},
		{variant: "int64", model: bucketizeModel(schema.TensorTypeINT64, []float32{0, 4.5, 9}, 2, 2, 3)},
		{variant: "f32_no_boundaries", model: bucketizeModel(schema.TensorTypeFLOAT32, []float32{}, 5)},
	})
}

func TestGoldenBucketize(t *testing.T) { checkGolden(t, "bucketize") }
