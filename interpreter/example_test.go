package interpreter_test

import (
	"fmt"
	"image"
	_ "image/png"
	"log"
	"os"

	"github.com/tflrun/tflrun/interpreter"
)

// Classify a handwritten digit with the MNIST LSTM model: load, allocate,
// copy the input in, invoke, read the output.
func Example() {
	model, err := interpreter.Load("../testdata/mnist_lstm/trained_lstm.tflite")
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

	// The input is [1, 28, 28] float32: grey levels scaled to [0, 1].
	f, err := os.Open("../testdata/mnist_lstm/samples/sample7.png")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		log.Fatal(err)
	}
	pixels := it.Input(0).Float32s()
	for y := 0; y < 28; y++ {
		for x := 0; x < 28; x++ {
			r, _, _, _ := img.At(x, y).RGBA() // a grey PNG: r = g = b
			pixels[y*28+x] = float32(r>>8) / 255
		}
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
	fmt.Printf("digit %d (p=%.2f)\n", best, scores[best])
	// Output: digit 7 (p=1.00)
}
