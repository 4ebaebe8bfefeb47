package convert

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// TestInputShapesChecked: shapes given for a GraphDef's Placeholders are
// checked against the Placeholders' static shapes at the entry (rank, and
// every known dimension), and the error names the input by index and name
// with both shapes, instead of failing later inside the graph.
func TestInputShapesChecked(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", -1, 5, 1)
	y := g.placeholder("y", -1, 5, 1)
	g.op("AddV2", "out", []string{x, y}, nil)
	for _, c := range []struct {
		shapes []ir.Shape
		want   string
	}{
		{[]ir.Shape{{1, 7, 3}, {1, 5, 1}}, `test.pb: input 0 "x": the given shape [1 7 3] (InputShapes; --input_shapes on the command line) contradicts the input's declared shape [? 5 1]: dimension 1 is 5, not 7`},
		{[]ir.Shape{{1, 5, 1, 1}, {1, 5, 1}}, `test.pb: input 0 "x": the given shape [1 5 1 1] (InputShapes; --input_shapes on the command line) has rank 4, but the input's declared shape [? 5 1] has rank 3`},
		{[]ir.Shape{{1, 5, 1}, {1, 5, 2}}, `input 1 "y": the given shape [1 5 2] (InputShapes; --input_shapes on the command line) contradicts the input's declared shape [? 5 1]: dimension 2 is 1, not 2`},
		{[]ir.Shape{{1, 5, 1}}, `test.pb: 1 input shapes given for 2 inputs (x, y)`},
	} {
		_, err := g.convertWith(t, Options{OutputArrays: []string{"out"}, InputShapes: c.shapes})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v\nwant %q", c.shapes, err, c.want)
		}
	}
	// Agreeing shapes pin the batch; -1 keeps the declared size.
	res, err := g.convertWith(t, Options{OutputArrays: []string{"out"}, InputShapes: []ir.Shape{{2, 5, 1}, {2, -1, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range res.Entry.Func.Params {
		if !p.Shape.Equal(ir.Shape{2, 5, 1}) {
			t.Errorf("input %d has shape %v, want [2 5 1]", i, p.Shape)
		}
	}
}

// TestDeepCutInputShapes: with arrays inside a SavedModel's functions (a
// deep cut), input shapes follow the entry's rules too: with only output
// arrays they pin the signature inputs, and a shape given for a cut input
// must agree with what is known of that tensor.
func TestDeepCutInputShapes(t *testing.T) {
	lstm := nfModel(t, "iteam1_lstm/lstm_model")
	res, err := ConvertModel(lstm, Options{OutputArrays: []string{"sequential_5/lstm_5/PartitionedCall"}, InputShapes: []ir.Shape{{1, 5, 1}}})
	if err != nil {
		t.Fatalf("output-only deep cut with the signature input's shape: %v", err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{1, 5, 1}) {
		t.Errorf("input shape %v, want [1 5 1]", got)
	}
	dtln := nfModel(t, dtlnDir)
	st := dtlnStages[0]
	_, err = ConvertModel(dtln, Options{InputArrays: []string{st.in}, OutputArrays: []string{st.out}, InputShapes: []ir.Shape{{1, 1, 300}}})
	if err == nil || !strings.Contains(err.Error(), "contradicts") || !strings.Contains(err.Error(), st.in) {
		t.Fatalf("contradicting shape for %s: err = %v, want it named up front", st.in, err)
	}
	res, err = ConvertModel(dtln, Options{InputArrays: []string{st.in}, OutputArrays: []string{st.out}, InputShapes: []ir.Shape{{1, -1, 257}}})
	if err != nil {
		t.Fatalf("a -1 keeping the known size: %v", err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{1, 1, 257}) {
		t.Errorf("input shape %v, want [1 1 257]", got)
	}
}
