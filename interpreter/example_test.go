package interpreter_test

import (
	"fmt"
	"log"

	"github.com/tflrun/tflrun/interpreter"
)

// Run a model: load, allocate, copy the input in, invoke, read the output.
// The model is the one `tflrun bench` embeds, which the project generates:
// an LSTM over the 28 rows of a 28×28 image, a dense layer and a softmax
// over 10 classes, with seeded untrained weights (so the class it picks
// means nothing). A trained model, such as TensorFlow Lite Micro's
// mnist_lstm, is used the same way.
func Example() {
	model, err := interpreter.Load("../cmd/tflrun/embedded/seeded_lstm.tflite")
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

	// The input is [1, 28, 28] float32, grey levels in [0, 1]: here a
	// diagonal stroke on a black image.
	pixels := it.Input(0).Float32s()
	for y := 0; y < 28; y++ {
		pixels[y*28+y] = 1
	}

	if err := it.Invoke(); err != nil {
		log.Fatal(err)
	}
	scores := it.Output(0).Float32s() // [1, 10] class probabilities
	best := 0
	for i, s := range scores {
		if s > scores[best] {
			best = i
		}
	}
	fmt.Printf("%d classes, best %d (p=%.2f)\n", len(scores), best, scores[best])
	// Output: 10 classes, best 3 (p=0.11)
}
