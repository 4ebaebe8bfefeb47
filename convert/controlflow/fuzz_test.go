package controlflow_test

import (
	"os"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/tfmodel"
)

// FuzzControlFlow mutates the TF2 While/TensorList and TF1 frame/
// TensorArray graphs of testdata and converts them: every input must give
// a model or an error, never a panic or a hang (loops are bounded by
// MaxIterations and the node budget; tensor sizes are bounded low, as the
// converter's other fuzz targets do, so that a mutated dimension does not
// spend the run allocating).
//
//	go test ./convert/controlflow -run='^$' -fuzz=FuzzControlFlow -fuzztime=5m
func FuzzControlFlow(f *testing.F) {
	for _, name := range []string{"testdata/while_rnn.pbtxt", "testdata/tf1_rnn.pbtxt"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := tfmodel.ParseGraphDef("fuzz.pbtxt", data, true)
		if err != nil {
			return
		}
		for _, out := range []string{"stack", "last", "gather", "loop:2"} {
			convert.ConvertModel(m, convert.Options{OutputArrays: []string{out}, MaxNodes: 5000, MaxTensorBytes: 1 << 20,
				MaxConstantBytes: 64 << 20, MaxFoldElements: 1 << 16, MaxLoopIterations: 64, MaxListLength: 1024})
		}
	})
}
