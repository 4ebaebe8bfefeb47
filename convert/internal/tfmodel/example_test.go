package tfmodel_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
)

// Parse --input_shapes as TensorFlow's converter writes it and check a
// given shape against the one a model declares.
func ExampleParseInputShapes() {
	shapes, err := tfmodel.ParseInputShapes("1,49,10,1:1,-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(shapes)

	got, err := tfmodel.CheckInputShape(1, "state", ir.Shape{1, -1}, ir.Shape{1, 64})
	fmt.Println(got, err)
	_, err = tfmodel.CheckInputShape(0, "audio", ir.Shape{1, 49, 10, 1}, ir.Shape{1, 50, 10, 1})
	fmt.Println(err != nil)
	// Output:
	// [[1 49 10 1] [1 ?]]
	// [1 64] <nil>
	// true
}
