package interpreter

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/imageinput"
)

// TestMNISTSamplesClassify runs the ten handwritten sample digits through
// the float and the int8 MNIST LSTM models on one interpreter each: every
// digit must come out as itself. Models and digits are read from
// ../../shared/models/mnist_lstm.
func TestMNISTSamplesClassify(t *testing.T) {
	for _, name := range []string{"trained_lstm.tflite", "trained_lstm_int8.tflite"} {
		m, err := Load(sharedModel(t, "mnist_lstm/"+name))
		if err != nil {
			t.Fatal(err)
		}
		it, err := New(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		for digit := 0; digit < 10; digit++ {
			img, err := imageinput.Load(sharedModel(t, fmt.Sprintf("mnist_lstm/samples/sample%d.png", digit)))
			if err != nil {
				t.Fatal(err)
			}
			in := it.Input(0)
			data, err := imageinput.ToTensor(img, in.Type, in.Shape, in.Quant)
			if err != nil {
				t.Fatal(err)
			}
			if err := in.CopyFromBytes(data); err != nil {
				t.Fatal(err)
			}
			// The LSTM's state lives in variable tensors that persist
			// across Invoke, as in TFLite: start each digit afresh.
			it.ResetVariableTensors()
			if err := it.Invoke(); err != nil {
				t.Fatal(err)
			}
			out := mustFloat64(t, it.Output(0).Type, it.Output(0).Data)
			best := 0
			for i, v := range out {
				if v > out[best] {
					best = i
				}
			}
			if best != digit {
				t.Errorf("%s: sample%d.png classified as %d (scores %v)", name, digit, best, out)
			}
		}
		m.Close()
	}
}
