package convert

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/interpreter"
)

// TestRuntimeIf: a conditional whose predicate is known only at run time
// becomes both branches and a SELECT_V2, matching y = x₀ < t ? 2x : x − 1
// for either outcome; a branch with a side effect (RandomUniform) is refused,
// naming it.
func TestRuntimeIf(t *testing.T) {
	res, err := Convert("testdata/runtime_if.pbtxt", Options{OutputArrays: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	if ops := opList(res); !strings.Contains(ops, "SELECT_V2") || strings.Contains(ops, "IF") {
		t.Fatalf("operators %s, want a SELECT_V2 and no IF", ops)
	}
	m, err := interpreter.LoadBytes(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	x := []float32{0.5, -2, 3}
	for _, th := range []float32{1, 0} {
		copy(it.Input(0).Float32s(), x)
		it.Input(1).Float32s()[0] = th
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, 3)
		for i, v := range x {
			if x[0] < th {
				want[i] = 2 * float64(v)
			} else {
				want[i] = float64(v) - 1
			}
		}
		near(t, "select of branches", it.Output(0).Float32s(), want, 0)
	}
	_, err = Convert("testdata/runtime_if.pbtxt", Options{OutputArrays: []string{"z"}})
	if err == nil || !strings.Contains(err.Error(), `node "z" (op If)`) || !strings.Contains(err.Error(), "branch noisy has a side effect (noise, op RandomUniform)") {
		t.Errorf("side effect: %v", err)
	}
}
