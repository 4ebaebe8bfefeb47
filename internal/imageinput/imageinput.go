// Package imageinput forwards to the public package
// github.com/tflrun/tflrun/imageinput, where the image reader moved. It
// exists only because the interpreter's tests (mnist_test.go) still
// import this path; when they import github.com/tflrun/tflrun/imageinput,
// delete it.
package imageinput

import (
	"image"

	"github.com/tflrun/tflrun/imageinput"
	"github.com/tflrun/tflrun/ops"
)

// Load is imageinput.Load.
func Load(path string) (image.Image, error) { return imageinput.Load(path) }

// ToTensor is imageinput.ToTensor.
func ToTensor(img image.Image, typ ops.DataType, shape []int, quant *ops.Quantization) ([]byte, error) {
	return imageinput.ToTensor(img, typ, shape, quant)
}
