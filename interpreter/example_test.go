package interpreter_test

import (
	"errors"
	"fmt"
	"log"
	"slices"

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

// Run one entry point of a model with several: SignatureRunner finds it
// by its key and its inputs and outputs by the signature's names. The
// model, written by this package's tests, has a signature "fc" (a dense
// layer, subgraph 0) and a signature "add" (a + b over float32 vectors of
// any length, subgraph 1).
func ExampleNewSignatureRunner() {
	model, err := interpreter.Load("testdata/two_signatures.tflite")
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	fmt.Println("signatures:", model.SignatureKeys())

	r, err := interpreter.NewSignatureRunner(model, "add", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for _, name := range r.InputNames() {
		if err := r.ResizeInput(name, []int{3}); err != nil {
			log.Fatal(err)
		}
	}
	if err := r.AllocateTensors(); err != nil {
		log.Fatal(err)
	}
	a, err := r.Input("a")
	if err != nil {
		log.Fatal(err)
	}
	b, err := r.Input("b")
	if err != nil {
		log.Fatal(err)
	}
	if err := errors.Join(a.CopyFrom([]float32{1, 2, 3}), b.CopyFrom([]float32{10, 20, 30})); err != nil {
		log.Fatal(err)
	}
	if err := r.Invoke(); err != nil {
		log.Fatal(err)
	}
	sum, err := r.Output("sum")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("sum:", sum.Float32s())

	_, err = r.Input("c")
	fmt.Println(err)
	// Output:
	// signatures: [fc add]
	// sum: [11 22 33]
	// signature "add" has no input "c" (its inputs are ["b" "a"])
}

// Recurrent state persists across Invoke, as in TensorFlow Lite: the
// second Invoke on the same image starts from the state the first one
// left and gives other scores. ResetVariableTensors between independent
// sequences gives each the model's initial state.
func ExampleInterpreter_ResetVariableTensors() {
	model, err := interpreter.Load("../cmd/tflrun/embedded/seeded_lstm.tflite")
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	it, err := interpreter.New(model, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		log.Fatal(err)
	}
	image := make([]float32, 28*28)
	for i := range image {
		image[i] = float32(i%28) / 28
	}
	run := func() []float32 {
		if err := it.Input(0).CopyFrom(image); err != nil {
			log.Fatal(err)
		}
		if err := it.Invoke(); err != nil {
			log.Fatal(err)
		}
		return append([]float32(nil), it.Output(0).Float32s()...)
	}
	first := run()
	carried := run()
	if err := it.ResetVariableTensors(); err != nil {
		log.Fatal(err)
	}
	reset := run()
	fmt.Println("carried over equals first:", slices.Equal(carried, first))
	fmt.Println("after reset equals first:", slices.Equal(reset, first))
	// Output:
	// carried over equals first: false
	// after reset equals first: true
}
