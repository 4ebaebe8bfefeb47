package controlflow_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
)

var rnnInput = [][2]float64{{0.3, -1.2}, {0.9, 0.4}, {-0.7, 0.2}}

func flat(x [][2]float64) []float32 {
	var out []float32
	for _, r := range x {
		out = append(out, float32(r[0]), float32(r[1]))
	}
	return out
}

// TestWhileTensorListUnrolled converts a TF2 StatelessWhile over
// TensorLists (the shape of Keras's standard_lstm) and checks the
// unrolled model against the float64 recurrence.
func TestWhileTensorListUnrolled(t *testing.T) {
	res, err := convert.Convert("testdata/while_rnn.pbtxt", convert.Options{OutputArrays: []string{"stack", "last"}})
	if err != nil {
		t.Fatal(err)
	}
	got := ops(res)
	if n := strings.Count(strings.Join(got, " "), "TANH"); n != 3 {
		t.Errorf("want the body unrolled 3 times (3 TANH), got %v", got)
	}
	for _, op := range got {
		if strings.Contains(op, "WHILE") || strings.Contains(op, "CUSTOM") {
			t.Errorf("operator %s left after unrolling: %v", op, got)
		}
	}
	outs := run(t, res.Model, flat(rnnInput))
	seq, last := rnnReference(rnnInput)
	near(t, "stacked sequence", outs[0], seq, 1e-6)
	near(t, "last state", outs[1], last, 1e-6)
}

// TestTF1LoopFunctionalised converts the same recurrence written as a TF1
// while-loop frame over TensorArrayV3.
func TestTF1LoopFunctionalised(t *testing.T) {
	var printed strings.Builder
	res, err := convert.Convert("testdata/tf1_rnn.pbtxt", convert.Options{OutputArrays: []string{"gather", "last"},
		PrintIRAfter: []string{"functionalize-tf1-loops"}, PrintIRTo: &printed})
	if err != nil {
		t.Fatal(err)
	}
	// The pass reports that it rewrote the frame, and the IR it prints
	// has a While where the Enter nodes were.
	if p := printed.String(); strings.Contains(p, "nothing to do") || !strings.Contains(p, "While") || strings.Contains(p, "Enter") {
		t.Errorf("IR after functionalize-tf1-loops:\n%s", p)
	}
	got := ops(res)
	if n := strings.Count(strings.Join(got, " "), "TANH"); n != 3 {
		t.Errorf("want the body unrolled 3 times (3 TANH), got %v", got)
	}
	outs := run(t, res.Model, flat(rnnInput))
	seq, last := rnnReference(rnnInput)
	near(t, "gathered sequence", outs[0], seq, 1e-6)
	near(t, "last state", outs[1], last, 1e-6)
}

// edit returns the text of a testdata graph with replacements applied.
func edit(t *testing.T, file string, pairs ...string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s has no %q", file, pairs[i])
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

func convertText(t *testing.T, text string, opts convert.Options) (*convert.Result, error) {
	t.Helper()
	m, err := tfmodel.ParseGraphDef("test.pbtxt", []byte(text), true)
	if err != nil {
		t.Fatal(err)
	}
	return convert.ConvertModel(m, opts)
}

// TestLoopErrors checks that loops tflrun cannot unroll fail with an
// error naming the loop and the reason.
func TestLoopErrors(t *testing.T) {
	out := convert.Options{OutputArrays: []string{"stack", "last"}}
	cases := []struct {
		name, text string
		opts       convert.Options
		want       []string
	}{{
		// The trip count comes from a run-time input.
		name: "dynamic trip count",
		text: edit(t, "while_rnn.pbtxt",
			`node { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 3 } } } }`,
			`node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { } } } }`),
		opts: convert.Options{OutputArrays: []string{"last"}, InputArrays: []string{"x", "n"}, InputShapes: []ir.Shape{{1, 3, 2}, {}}},
		want: []string{`"loop"`, "StatelessWhile", "trip count is not static", "cond"},
	}, {
		name: "body signature mismatch",
		text: edit(t, "while_rnn.pbtxt", `ret { key: "w_out" value: "w" }`, ``,
			`output_arg { name: "w_out" type: DT_FLOAT } }`, `}`),
		opts: out,
		want: []string{`"loop"`, "body body takes 6 and returns 5"},
	}, {
		name: "unknown body",
		text: edit(t, "while_rnn.pbtxt", `func { name: "body" }`, `func { name: "nobody" }`),
		opts: out,
		want: []string{`"loop"`, `"nobody"`},
	}, {
		name: "list index out of range",
		text: edit(t, "while_rnn.pbtxt", `input: "ol" input: "t" input: "th:y:0"`, `input: "ol" input: "inc:z:0" input: "th:y:0"`),
		opts: out,
		want: []string{"TensorListSetItem", "writes item 3 of a list of 3 items"},
	}, {
		name: "TF1 Merge without NextIteration",
		text: edit(t, "tf1_rnn.pbtxt", `input: "while/Enter_1" input: "while/NextIteration_1"`, `input: "while/Enter_1" input: "while/Enter_1"`),
		opts: convert.Options{OutputArrays: []string{"gather", "last"}},
		want: []string{`TF1 loop "while/while_context"`, "NextIteration"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := convertText(t, c.text, c.opts)
			if err == nil {
				t.Fatal("converted, want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestMaxIterations checks the unrolling bound.
func TestMaxIterations(t *testing.T) {
	_, err := convert.Convert("testdata/while_rnn.pbtxt", convert.Options{OutputArrays: []string{"last"}, MaxLoopIterations: 2})
	if err == nil || !strings.Contains(err.Error(), "more than 2 iterations (Options.MaxLoopIterations, --max-loop-iterations)") || !strings.Contains(err.Error(), `"loop"`) {
		t.Fatalf("err = %v, want the iteration bound naming the loop", err)
	}
}

// TestNodeBudget checks that unrolling respects Options.MaxNodes.
func TestNodeBudget(t *testing.T) {
	_, err := convert.Convert("testdata/while_rnn.pbtxt", convert.Options{OutputArrays: []string{"last"}, MaxNodes: 20})
	if err == nil || !strings.Contains(err.Error(), "past the node budget of 20 (Options.MaxNodes, --max-nodes)") {
		t.Fatalf("err = %v, want the node budget", err)
	}
}

// TestIfPredicate checks that a conditional with a constant predicate
// becomes the branch it selects, one with a one-element run-time
// predicate both branches and a SELECT_V2, and that any other run-time
// predicate is an error naming the node.
func TestIfPredicate(t *testing.T) {
	text := `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "p" op: "Const" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: PRED } } } }
node { name: "q" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "shape" value { shape { } } } }
node { name: "cond" op: "StatelessIf" input: "COND" input: "x"
  attr { key: "Tcond" value { type: DT_BOOL } } attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "then_branch" value { func { name: "neg" } } } attr { key: "else_branch" value { func { name: "sq" } } } }
library {
  function { signature { name: "neg" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
    node_def { name: "n" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } } ret { key: "b" value: "n:y:0" } }
  function { signature { name: "sq" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
    node_def { name: "s" op: "Square" input: "a" attr { key: "T" value { type: DT_FLOAT } } } ret { key: "b" value: "s:y:0" } }
}`
	for _, c := range []struct {
		pred string
		want []float64
		op   string
	}{{"true", []float64{-3, 0.5}, "NEG"}, {"false", []float64{9, 0.25}, "SQUARE"}} {
		res, err := convertText(t, strings.NewReplacer("PRED", c.pred, "COND", "p").Replace(text), convert.Options{InputArrays: []string{"x"}, OutputArrays: []string{"cond"}})
		if err != nil {
			t.Fatalf("pred %s: %v", c.pred, err)
		}
		if got := ops(res); !slices.Equal(got, []string{c.op}) {
			t.Errorf("pred %s: operators %v, want [%s]", c.pred, got, c.op)
		}
		near(t, "branch "+c.pred, run(t, res.Model, []float32{3, -0.5})[0], c.want, 0)
	}
	// A run-time predicate: both branches and a select.
	res, err := convertText(t, strings.NewReplacer("PRED", "true", "COND", "q").Replace(text), convert.Options{InputArrays: []string{"x", "q"}, OutputArrays: []string{"cond"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ops(res); !slices.Equal(got, []string{"NEG", "SQUARE", "SELECT_V2"}) {
		t.Errorf("run-time predicate: operators %v, want [NEG SQUARE SELECT_V2]", got)
	}
	// One that is not one element cannot be a select's condition.
	vec := strings.Replace(text, `name: "q" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "shape" value { shape { } } }`,
		`name: "q" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "shape" value { shape { dim { size: 2 } } } }`, 1)
	_, err = convertText(t, strings.NewReplacer("PRED", "true", "COND", "q").Replace(vec), convert.Options{InputArrays: []string{"x", "q"}, OutputArrays: []string{"cond"}})
	if err == nil || !strings.Contains(err.Error(), `"cond"`) || !strings.Contains(err.Error(), "nor known to be one element") {
		t.Fatalf("err = %v, want the run-time predicate named", err)
	}
}

// TestV1Cond: a TF1 conditional (Switch/Merge) becomes both branches and
// a SELECT_V2, matching y = p ? 2x : x + 1 either way; the output is
// inferred as the Merge's consumer (switch_t/switch_f are no sinks); a
// Merge of one branch twice is refused, naming it.
func TestV1Cond(t *testing.T) {
	res, err := convert.Convert("testdata/v1_cond.pbtxt", convert.Options{OutputArrays: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ops(res); !slices.Contains(got, "SELECT_V2") || slices.Contains(got, "IF") {
		t.Fatalf("operators %v, want a SELECT_V2", got)
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
	for _, p := range []bool{true, false} {
		copy(it.Input(0).Float32s(), []float32{1.5, -3})
		it.Input(1).Bools()[0] = p
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		want := []float64{2.5, -2}
		if p {
			want = []float64{3, -6}
		}
		near(t, fmt.Sprintf("p=%v", p), it.Output(0).Float32s(), want, 0)
	}
	_, err = convert.Convert("testdata/v1_cond.pbtxt", convert.Options{OutputArrays: []string{"bad/Merge"}})
	if err == nil || !strings.Contains(err.Error(), `node "bad/Merge" (op Merge)`) || !strings.Contains(err.Error(), "are not the two branches of one predicate") {
		t.Errorf("one branch twice: %v", err)
	}
}
