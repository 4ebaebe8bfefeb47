package convert

import (
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/interpreter"
)

// kwsDir is MLPerf Tiny's DS-CNN keyword spotter, a TensorFlow 2.3
// SavedModel (saved_model.pb, variables/), in the shared data.
const kwsDir = sharedSavedModels + "kws_dscnn/kws_ref_model"

// kwsModel returns kwsDir, skipping the test, naming the path, when it is
// absent.
func kwsModel(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(kwsDir); err != nil {
		t.Skipf("%s is absent: %v", kwsDir, err)
	}
	return kwsDir
}

// runModel loads a converted model in tflrun's interpreter, feeds one
// float32 input and returns the first output.
func runModel(t *testing.T, model []byte, input []float32) []float32 {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatalf("interpreter rejects the converted model: %v", err)
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatalf("AllocateTensors: %v", err)
	}
	in := it.Input(0).Float32s()
	if len(in) != len(input) {
		t.Fatalf("input has %d elements, test gives %d", len(in), len(input))
	}
	copy(in, input)
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), it.Output(0).Float32s()...)
}

// TestKWSConvertMatchesReference converts the DS-CNN SavedModel, checks
// its operators against TensorFlow's own conversion (the same 13
// operators with batch normalisation and ReLU folded into the
// convolutions), runs it in tflrun's interpreter and compares with the
// float64 reference (kwsReference) on random inputs. TensorFlow's own
// .tflite files beside the SavedModel come from another checkpoint, so
// their outputs are no reference for this conversion; they are runtime
// goldens of the interpreter (../shared/golden/kws_dscnn_hybrid).
func TestKWSConvertMatchesReference(t *testing.T) {
	res, err := Convert(kwsModel(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL != nil {
			ops = append(ops, n.OpName())
		}
	}
	want := []string{"tfl.CONV_2D", "tfl.DEPTHWISE_CONV_2D", "tfl.CONV_2D", "tfl.DEPTHWISE_CONV_2D", "tfl.CONV_2D",
		"tfl.DEPTHWISE_CONV_2D", "tfl.CONV_2D", "tfl.DEPTHWISE_CONV_2D", "tfl.CONV_2D", "tfl.AVERAGE_POOL_2D",
		"tfl.RESHAPE", "tfl.FULLY_CONNECTED", "tfl.SOFTMAX"}
	if len(ops) != len(want) {
		t.Fatalf("operators %v, want %v", ops, want)
	}
	for i := range want {
		if ops[i] != want[i] {
			t.Fatalf("operators %v, want %v", ops, want)
		}
	}
	bundle, err := tfmodel.OpenBundle(kwsDir + "/variables/variables")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(20261130))
	worst := 0.0
	for trial := 0; trial < 3; trial++ {
		x := make([]float32, 49*10)
		for i := range x {
			x[i] = float32(rng.Float64()*2 - 1)
		}
		got := runModel(t, res.Model, x)
		ref := kwsReference(t, bundle, x)
		for i := range ref {
			worst = math.Max(worst, math.Abs(float64(got[i])-ref[i]))
		}
	}
	if worst > 1e-5 {
		t.Fatalf("converted model differs from the float64 reference by %.3g (> 1e-5)", worst)
	}
	t.Logf("max |converted − float64 reference| = %.3g over 3 random inputs", worst)
}
