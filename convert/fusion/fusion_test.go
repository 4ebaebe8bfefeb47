package fusion

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

func TestReportRendering(t *testing.T) {
	r := &Report{}
	if j, err := r.JSON(); err != nil || !strings.Contains(string(j), `"composites": []`) {
		t.Errorf("empty JSON %s %v", j, err)
	}
	r.Add(Entry{Function: "__inference_standard_lstm_1", Call: "model/lstm/PartitionedCall", Attr: "api_implements",
		Implements: "lstm_abc", Rule: "keras-lstm", Fused: true, Ops: []string{"UNIDIRECTIONAL_SEQUENCE_LSTM"}})
	r.Add(Entry{Function: "f2", Call: "c2", Attr: "_implements", Implements: "embedding_matmul", Reason: "no fusion rule registered"})
	if r.Fused() != 1 {
		t.Errorf("Fused() = %d", r.Fused())
	}
	txt := r.Text()
	for _, want := range []string{
		"fusion report: 2 composite call(s), 1 fused",
		`- model/lstm/PartitionedCall: api_implements="lstm_abc" rule keras-lstm: fused`,
		"ops: UNIDIRECTIONAL_SEQUENCE_LSTM",
		// No rule examined it: the heading says why.
		`- c2: _implements="embedding_matmul": not fused: no fusion rule registered` + "\n    function f2\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text report lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "(no rule)") || strings.Contains(txt, "reason: no fusion rule") {
		t.Errorf("text report names no rule, or repeats the reason:\n%s", txt)
	}
	j, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(j, &back); err != nil || len(back.Composites) != 2 || back.Composites[0].Ops[0] != "UNIDIRECTIONAL_SEQUENCE_LSTM" {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

func TestSiteOutputs(t *testing.T) {
	f := ir.NewFunction("main", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1})
	call := f.NewNode("call", "PartitionedCall", []*ir.Value{x}, 3)
	use := f.NewNode("use", "Relu", []*ir.Value{call.Outputs[1]}, 1)
	f.Results = []*ir.Value{use.Outputs[0], call.Outputs[2]}
	s := &Site{Caller: f, Call: call}
	if s.OutputUsed(0) || !s.OutputUsed(1) || !s.OutputUsed(2) || s.OutputUsed(7) {
		t.Error("OutputUsed")
	}
	c := f.NewConst("c", ir.FromFloat32s(ir.Shape{1}, []float32{1}))
	s.ReplaceOutput(1, c)
	s.ReplaceOutput(2, c)
	if use.Inputs[0] != c || f.Results[1] != c || s.OutputUsed(1) || s.OutputUsed(2) {
		t.Error("ReplaceOutput")
	}
}
