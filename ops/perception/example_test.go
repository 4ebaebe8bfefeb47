package perception_test

import (
	"encoding/binary"
	"fmt"
	"log"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops/perception"
	"github.com/tflrun/tflrun/schema"
)

// poolParams encodes a C TfLitePoolParams as MediaPipe's converter writes
// it into custom_options: padding (1 SAME, 2 VALID), stride_width,
// stride_height, filter_width, filter_height, activation, as
// little-endian int32s.
func poolParams(padding, strideW, strideH, filterW, filterH, activation int32) []byte {
	var b []byte
	for _, v := range []int32{padding, strideW, strideH, filterW, filterH, activation} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// Example runs a model holding MediaPipe's MaxPoolingWithArgmax2D and
// MaxUnpooling2D, the pair of the hair segmentation model's encoder and
// decoder. The interpreter's default resolver has this package's kernels,
// so nothing needs registering.
func Example() {
	// A model of the two custom operators: a 2×4 image is max-pooled in
	// 2×2 windows, then unpooled by the argmax indices.
	opts := poolParams(2, 2, 2, 2, 2, 0) // VALID, strides 2×2, window 2×2
	b := optest.NewBuilder()
	in := b.Tensor("image", schema.TensorTypeFLOAT32, []int32{1, 2, 4, 1}, nil)
	pooled := b.Tensor("pooled", schema.TensorTypeFLOAT32, []int32{1, 1, 2, 1}, nil)
	argmax := b.Tensor("argmax", schema.TensorTypeFLOAT32, []int32{1, 1, 2, 1}, nil)
	out := b.Tensor("unpooled", schema.TensorTypeFLOAT32, []int32{1, 2, 4, 1}, nil)
	b.Custom(perception.MaxPoolingWithArgmax2DName, []int32{in}, []int32{pooled, argmax}, opts)
	b.Custom(perception.MaxUnpooling2DName, []int32{pooled, argmax}, []int32{out}, opts)
	b.Inputs(in)
	b.Outputs(pooled, argmax, out)

	model, err := interpreter.LoadBytes(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	it, err := interpreter.New(model, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		log.Fatal(err)
	}
	copy(it.Input(0).Float32s(), []float32{
		1, 5, 2, 0,
		3, 4, 8, 7,
	})
	if err := it.Invoke(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("maxima: ", it.Output(0).Float32s())
	// MediaPipe's indices are float32 positions in the window,
	// fy·filter_width + fx, plus 0.1.
	fmt.Println("argmax: ", it.Output(1).Float32s())
	fmt.Println("unpooled:", it.Output(2).Float32s())
	// Output:
	// maxima:  [5 8]
	// argmax:  [1.1 2.1]
	// unpooled: [0 5 0 0 0 0 8 0]
}
