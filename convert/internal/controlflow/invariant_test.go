package controlflow_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tflrun/tflrun/convert"
)

// longLoop returns while_rnn.pbtxt run for steps iterations, its body
// reading the weight through a loop-invariant Tile to [512, 512] (1 MiB
// of float32) and a Slice back to [2, 2]: the same recurrence, with a
// large constant the body computes from the weight alone.
func longLoop(t *testing.T, steps int) string {
	t.Helper()
	const extra = `node_def { name: "mult" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 256 int_val: 256 } } } }
    node_def { name: "big" op: "Tile" input: "w" input: "mult:output:0" attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tmultiples" value { type: DT_INT32 } } }
    node_def { name: "begin" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 0 int_val: 0 } } } }
    node_def { name: "size" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 2 int_val: 2 } } } }
    node_def { name: "ws" op: "Slice" input: "big:output:0" input: "begin:output:0" input: "size:output:0" attr { key: "T" value { type: DT_FLOAT } } attr { key: "Index" value { type: DT_INT32 } } }
    node_def { name: "mm" op: "MatMul" input: "get:item:0" input: "ws:output:0"`
	return edit(t, "while_rnn.pbtxt",
		`node_def { name: "mm" op: "MatMul" input: "get:item:0" input: "w"`, extra,
		`dim { size: 1 } dim { size: 3 } dim { size: 2 }`, fmt.Sprintf(`dim { size: 1 } dim { size: %d } dim { size: 2 }`, steps),
		`tensor_shape { } int_val: 3 }`, fmt.Sprintf(`tensor_shape { } int_val: %d }`, steps),
		`key: "num_elements" value { i: 3 }`, fmt.Sprintf(`key: "num_elements" value { i: %d }`, steps))
}

// longInput is a deterministic input sequence of steps rows.
func longInput(steps int) [][2]float64 {
	x := make([][2]float64, steps)
	for i := range x {
		x[i] = [2]float64{math.Sin(float64(i)) * 0.8, math.Cos(float64(3*i)) * 0.6}
	}
	return x
}

// TestLoopInvariantFoldedOnce unrolls a 300-step loop whose body tiles
// its weight to 1 MiB: folded once, that fits a 16 MiB folding budget
// (folded per iteration it would take 300 MiB, and the budget would stop
// the condition folding); the result matches the float64 recurrence.
func TestLoopInvariantFoldedOnce(t *testing.T) {
	const steps = 300
	res, err := convertText(t, longLoop(t, steps), convert.Options{OutputArrays: []string{"stack", "last"}, MaxFoldedBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(ops(res), " ")
	if n := strings.Count(got, "TANH"); n != steps {
		t.Errorf("%d TANH, want the body unrolled %d times", n, steps)
	}
	if strings.Contains(got, "TILE") || strings.Contains(got, "SLICE") {
		t.Errorf("the invariant Tile/Slice were not folded: %.200s", got)
	}
	x := longInput(steps)
	outs := run(t, res.Model, flat(x))
	seq, last := rnnReference(x)
	near(t, "stacked sequence", outs[0], seq, 1e-5)
	near(t, "last state", outs[1], last, 1e-5)
}

// TestFoldBudgetNamed checks that a loop whose condition stops folding
// because MaxFoldedBytes ran out says so, naming the budget, the option
// and the op that was being folded, rather than calling the trip count
// not static.
func TestFoldBudgetNamed(t *testing.T) {
	_, err := convertText(t, longLoop(t, 300), convert.Options{OutputArrays: []string{"stack", "last"}, MaxFoldedBytes: 64})
	if err == nil {
		t.Fatal("converted, want the folding budget error")
	}
	for _, w := range []string{`"loop"`, "budget of 64 bytes", "Options.MaxFoldedBytes, --max-folded-bytes", `"inc" (AddV2)`, "raise the budget"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "not static") {
		t.Errorf("error %q blames the trip count", err)
	}
}

// TestLongLoopUnrollTime converts a 12,000-step loop (as a Keras 3 GRU
// over a long sequence makes) and logs the time; it runs when
// TFLRUN_LONG_LOOP is set (about half a minute). Speed is reported, not
// asserted.
func TestLongLoopUnrollTime(t *testing.T) {
	if os.Getenv("TFLRUN_LONG_LOOP") == "" {
		t.Skip("12,000-step unrolling: set TFLRUN_LONG_LOOP to run it")
	}
	const steps = 12000
	start := time.Now()
	res, err := convertText(t, longLoop(t, steps), convert.Options{OutputArrays: []string{"last"}, MaxLoopIterations: steps + 1, MaxNodes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d steps unrolled in %v (%d operators)", steps, time.Since(start), len(ops(res)))
}
