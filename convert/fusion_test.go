package convert

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// doubleRelu converts testdata/double_relu.pbtxt (y = 2·relu(x) + b with
// 2·relu an _implements-annotated function) with the given registry.
func doubleRelu(t *testing.T, reg *fusion.Registry, noFuse bool) (*Result, error) {
	t.Helper()
	return Convert("testdata/double_relu.pbtxt", Options{OutputArrays: []string{"out"}, Registry: reg, NoFuse: noFuse})
}

func doubleReluWant(x []float32) []float64 {
	b := []float64{0.5, -1, 2}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = 2*math.Max(float64(v), 0) + b[i%3]
	}
	return out
}

// reluTimesTwo is a user rule: it fuses the composite into RELU then MUL by
// 2, recording what the site looked like.
type reluTimesTwo struct {
	seen *fusion.Site
}

func (r *reluTimesTwo) Name() string { return "test-relu-times-two" }

func (r *reluTimesTwo) Fuse(s *fusion.Site) (fusion.Result, error) {
	r.seen = s
	x := s.Call.Inputs[0]
	relu := s.Caller.NewTFL(s.Call.Name+"/relu", &ir.TFLOp{Builtin: schema.BuiltinOperatorRELU, Version: 1},
		[]*ir.Value{x}, ir.TypeShape{DType: x.DType, Shape: x.Shape})
	two := s.Caller.NewConst(s.Call.Name+"/two", ir.FromFloat32s(ir.Shape{}, []float32{2}))
	mul := s.Caller.NewTFL(s.Call.Name+"/mul", &ir.TFLOp{Builtin: schema.BuiltinOperatorMUL, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}},
		[]*ir.Value{relu.Outputs[0], two}, ir.TypeShape{DType: x.DType, Shape: x.Shape})
	s.ReplaceOutput(0, mul.Outputs[0])
	return fusion.Result{Fused: true, Ops: []string{"RELU", "MUL"}}, nil
}

func TestFusionHookUserRule(t *testing.T) {
	reg := fusion.NewRegistry()
	rule := &reluTimesTwo{}
	if err := reg.Register("test.double_relu", rule); err != nil {
		t.Fatal(err)
	}
	res, err := doubleRelu(t, reg, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := opList(res); got != "RELU MUL ADD" {
		t.Errorf("operators %q, want the rule's RELU MUL, then ADD", got)
	}
	s := rule.seen
	if s.Attr != "_implements" || s.Name != "test.double_relu" || s.Callee.Name != "double_relu" {
		t.Errorf("site %q=%q callee %s", s.Attr, s.Name, s.Callee.Name)
	}
	// The callee is specialised: its parameter has the call's pinned
	// shape, and identities are gone from its body.
	if p := s.Callee.Params[0]; !p.Shape.Equal(ir.Shape{1, 3}) || p.DType != ir.Float32 {
		t.Errorf("callee parameter %v, want float32[1 3]", p)
	}
	if s.Callee.Node("id") != nil {
		t.Error("callee still has its Identity")
	}
	e := res.Report.Composites
	if len(e) != 1 || !e[0].Fused || e[0].Rule != "test-relu-times-two" || e[0].Function != "double_relu" || e[0].Call != "call" ||
		strings.Join(e[0].Ops, ",") != "RELU,MUL" {
		t.Errorf("report %+v", e)
	}
	x := []float32{-1, 0.5, 2}
	near(t, "fused", runModel(t, res.Model, x), doubleReluWant(x), 1e-6)
	if txt := res.Report.Text(); !strings.Contains(txt, `call: _implements="test.double_relu" rule test-relu-times-two: fused`) {
		t.Errorf("text report:\n%s", txt)
	}
	j, _ := res.Report.JSON()
	if !strings.Contains(string(j), `"fused": true`) || !strings.Contains(string(j), `"implements": "test.double_relu"`) {
		t.Errorf("JSON report: %s", j)
	}
}

func TestFusionHookNoRuleRefusalNoFuse(t *testing.T) {
	x := []float32{3, -4, 0.25}
	// No rule: the composite is inlined and lowered op by op.
	res, err := doubleRelu(t, fusion.NewRegistry(), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := opList(res); got != "RELU ADD ADD" {
		t.Errorf("operators %q", got)
	}
	if e := res.Report.Composites; len(e) != 1 || e[0].Fused || e[0].Rule != "" || !strings.Contains(e[0].Reason, "no fusion rule") {
		t.Errorf("report %+v", e)
	}
	near(t, "inlined", runModel(t, res.Model, x), doubleReluWant(x), 1e-6)

	// A prefix rule that refuses: lowered normally, the reason reported.
	reg := fusion.NewRegistry()
	reg.RegisterPrefix("test.", fusion.RuleFunc{RuleName: "picky", Func: func(s *fusion.Site) (fusion.Result, error) {
		return fusion.Result{Reason: "batch size is not static"}, nil
	}})
	res, err = doubleRelu(t, reg, false)
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Report.Composites; len(e) != 1 || e[0].Fused || e[0].Rule != "picky" || e[0].Reason != "batch size is not static" {
		t.Errorf("report %+v", e)
	}
	if got := opList(res); got != "RELU ADD ADD" {
		t.Errorf("operators %q", got)
	}

	// --no-fuse: the rule is not consulted.
	rule := &reluTimesTwo{}
	reg = fusion.NewRegistry()
	reg.Register("test.double_relu", rule)
	res, err = doubleRelu(t, reg, true)
	if err != nil {
		t.Fatal(err)
	}
	if rule.seen != nil || opList(res) != "RELU ADD ADD" || res.Report.Composites[0].Reason != NoFuseReason {
		t.Errorf("no-fuse: rule consulted %v, ops %q, report %+v", rule.seen != nil, opList(res), res.Report.Composites)
	}
	// The text report says why in the heading, not "(no rule)".
	if txt, want := res.Report.Text(), `- call: _implements="test.double_relu": not fused: --no-fuse (Options.NoFuse) lowers composites op by op`+"\n"; !strings.Contains(txt, want) {
		t.Errorf("no-fuse text report:\n%s\nwant a line %q", txt, want)
	}
}

func TestFusionHookRuleMistakes(t *testing.T) {
	cases := []struct {
		rule fusion.Rule
		want string
	}{
		{fusion.RuleFunc{RuleName: "lazy", Func: func(s *fusion.Site) (fusion.Result, error) {
			return fusion.Result{Fused: true}, nil // claims, replaces nothing
		}}, `fusion rule lazy fused call "call" of double_relu but output 0 is still used`},
		{fusion.RuleFunc{RuleName: "broken", Func: func(s *fusion.Site) (fusion.Result, error) {
			return fusion.Result{}, errors.New("weights are not constant")
		}}, `fusion rule broken on call "call" of double_relu: weights are not constant`},
		{fusion.RuleFunc{RuleName: "messy", Func: func(s *fusion.Site) (fusion.Result, error) {
			s.Caller.NewConst("stray", ir.FromFloat32s(ir.Shape{}, []float32{1}))
			return fusion.Result{Reason: "no"}, nil
		}}, `fusion rule messy refused call "call" of double_relu but changed the graph`},
	}
	for _, c := range cases {
		reg := fusion.NewRegistry()
		reg.Register("test.double_relu", c.rule)
		_, err := doubleRelu(t, reg, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestCallCycle(t *testing.T) {
	_, err := Convert("testdata/cycle.pbtxt", Options{OutputArrays: []string{"call"}})
	if err == nil || !strings.Contains(err.Error(), "function calls form a cycle: ping → pong → ping") {
		t.Fatalf("got %v", err)
	}
}

func TestRegistry(t *testing.T) {
	r := fusion.NewRegistry()
	a := fusion.RuleFunc{RuleName: "a"}
	b := fusion.RuleFunc{RuleName: "b"}
	c := fusion.RuleFunc{RuleName: "c"}
	if err := r.RegisterPrefix("lstm_", a); err != nil {
		t.Fatal(err)
	}
	r.RegisterPrefix("lstm_special", b)
	r.Register("lstm_exact", c)
	for name, want := range map[string]string{"lstm_1234": "a", "lstm_special_9": "b", "lstm_exact": "c"} {
		if got, ok := r.Lookup(name); !ok || got.Name() != want {
			t.Errorf("Lookup(%q) = %v", name, got)
		}
	}
	if _, ok := r.Lookup("gru_1"); ok {
		t.Error("gru_1 matched")
	}
	if err := r.Register("lstm_exact", a); err == nil || !strings.Contains(err.Error(), "already handled by rule c") {
		t.Errorf("duplicate: %v", err)
	}
	if strings.Join(r.Keys(), " ") != "lstm_* lstm_exact lstm_special*" {
		t.Errorf("keys %v", r.Keys())
	}
	c2 := r.Clone()
	c2.Register("x", a)
	if _, ok := r.Lookup("x"); ok {
		t.Error("Clone shares its map")
	}
}

// TestPanickingUserRule: a user rule that panics aborts the conversion
// with an error naming the rule and the call, not a crash.
func TestPanickingUserRule(t *testing.T) {
	reg := fusion.Default.Clone()
	err := reg.Register("test.double_relu", fusion.RuleFunc{RuleName: "faulty", Func: func(s *fusion.Site) (fusion.Result, error) {
		var none []int
		_ = none[len(s.Call.Inputs)+3] // out of range
		return fusion.Result{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Convert("testdata/double_relu.pbtxt", Options{OutputArrays: []string{"out"}, Registry: reg})
	if err == nil || !strings.Contains(err.Error(), "fusion rule faulty panicked on call") || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("err = %v, want the rule's panic as an error", err)
	}
}

// TestReportOfFailedConversion: when the conversion fails after the
// composites were examined, the returned report carries the error (text
// and JSON), so a report written next to a failed run cannot be read as
// a converted model's.
func TestReportOfFailedConversion(t *testing.T) {
	text, err := os.ReadFile("testdata/double_relu.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(text), `op: "AddV2"
  input: "call:0"`, `op: "FrobnicateV7"
  input: "call:0"`, 1)
	if bad == string(text) {
		t.Fatal("test graph did not change")
	}
	path := filepath.Join(t.TempDir(), "bad.pbtxt")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := fusion.Default.Clone()
	if err := reg.Register("test.double_relu", fusion.RuleFunc{RuleName: "double-relu", Func: func(s *fusion.Site) (fusion.Result, error) {
		return fusion.Result{Reason: "left to the op-by-op lowering"}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	res, err := Convert(path, Options{OutputArrays: []string{"out"}, Registry: reg})
	if err == nil || !strings.Contains(err.Error(), "FrobnicateV7") {
		t.Fatalf("err = %v, want the unknown op named", err)
	}
	if res == nil || res.Report == nil || len(res.Report.Composites) != 1 || res.Report.Error != err.Error() {
		t.Fatalf("report %+v, want the composite and the error", res)
	}
	if txt := res.Report.Text(); !strings.Contains(txt, "conversion failed, no model written: ") {
		t.Errorf("text report does not say the conversion failed:\n%s", txt)
	}
	j, jerr := res.Report.JSON()
	if jerr != nil || !strings.Contains(string(j), `"error": `) {
		t.Errorf("JSON report %s (%v) has no error field", j, jerr)
	}
}
