package fusion_test

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// fuseTanhRNN is a user rule for the composite "user.tanh_rnn" of
// testdata/user_rnn.pbtxt: (x [batch, time, n_in], w [n_in, u], uu [u,
// u], b [u]) → h_t = tanh(x_t·w + b + h_{t−1}·uu) for every t. It checks
// the signature, that the weights are constants, and — on probe inputs,
// through Site.Evaluate — that the body computes that recurrence; then it
// emits one UNIDIRECTIONAL_SEQUENCE_RNN.
func fuseTanhRNN(s *fusion.Site) (fusion.Result, error) {
	if len(s.Call.Inputs) != 4 || len(s.Call.Outputs) != 1 {
		return fusion.Result{Reason: "want (x, w, u, b) → sequence"}, nil
	}
	x := s.Call.Inputs[0]
	if x.DType != ir.Float32 || x.Shape.Rank() != 3 || !x.Shape.Static() {
		return fusion.Result{Reason: "the input is not a static float32 [batch, time, features]"}, nil
	}
	w, u, b := s.ConstInput(1), s.ConstInput(2), s.ConstInput(3)
	if w == nil || u == nil || b == nil {
		return fusion.Result{Reason: "the weights are not constants"}, nil
	}
	B, T, nIn, units := x.Shape[0], x.Shape[1], x.Shape[2], b.Shape[0]
	// Check the body on a probe input against the recurrence.
	probe := make([]float32, B*T*nIn)
	for i := range probe {
		probe[i] = float32(math.Sin(float64(3*i + 1)))
	}
	got, err := s.Evaluate([]*ir.Tensor{ir.FromFloat32s(x.Shape, probe)})
	if err != nil {
		return fusion.Result{}, err
	}
	if got[0] == nil {
		return fusion.Result{Reason: "the body cannot be evaluated at conversion time"}, nil
	}
	wv, uv, bv := w.Float64s(), u.Float64s(), b.Float64s()
	g := got[0].Float64s()
	for bt := 0; bt < B; bt++ {
		h := make([]float64, units)
		for t := 0; t < T; t++ {
			next := make([]float64, units)
			for j := range next {
				s := bv[j]
				for k := 0; k < nIn; k++ {
					s += float64(probe[(bt*T+t)*nIn+k]) * wv[k*units+j]
				}
				for k := 0; k < units; k++ {
					s += h[k] * uv[k*units+j]
				}
				next[j] = math.Tanh(s)
				if math.Abs(next[j]-g[(bt*T+t)*units+j]) > 1e-4 {
					return fusion.Result{Reason: "the body does not compute a tanh RNN"}, nil
				}
			}
			h = next
		}
	}
	// TFLite wants the weights as [units, n_in] and [units, units].
	transpose := func(v []float64, rows, cols int) *ir.Tensor {
		out := make([]float32, rows*cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				out[j*rows+i] = float32(v[i*cols+j])
			}
		}
		return ir.FromFloat32s(ir.Shape{cols, rows}, out)
	}
	seq, err := s.EmitSequenceRNN(x, &fusion.RNNWeights{Input: transpose(wv, nIn, units), Recurrent: transpose(uv, units, units), Bias: b},
		schema.ActivationFunctionTypeTANH, false)
	if err != nil {
		return fusion.Result{}, err
	}
	s.ReplaceOutput(0, seq)
	return fusion.Result{Fused: true, Ops: []string{"UNIDIRECTIONAL_SEQUENCE_RNN"}}, nil
}

// TestUserRuleFusesCustomComposite registers a rule from Go for a
// composite no built-in rule knows, converts a hand-written graph with it,
// and checks the report, the operators and the outputs (against the
// reference and the unfused lowering); then the same rule refusing (the
// weights made a run-time input) leaves the composite lowered op by op
// with the rule's reason in the report.
func TestUserRuleFusesCustomComposite(t *testing.T) {
	const path = "testdata/user_rnn.pbtxt"
	reg := fusion.Default.Clone()
	if err := reg.Register("user.tanh_rnn", fusion.RuleFunc{RuleName: "user-tanh-rnn", Func: fuseTanhRNN}); err != nil {
		t.Fatal(err)
	}
	if _, ok := fusion.Default.Lookup("user.tanh_rnn"); ok {
		t.Fatal("registering on a clone changed Default")
	}
	opts := convert.Options{OutputArrays: []string{"out"}, Registry: reg}
	res := conversion(t, path, opts)
	e := reportEntry(t, res, "rnn")
	if !e.Fused || e.Rule != "user-tanh-rnn" || e.Implements != "user.tanh_rnn" || strings.Join(e.Ops, " ") != "UNIDIRECTIONAL_SEQUENCE_RNN" {
		t.Errorf("report entry %+v", e)
	}
	if ops := opCounts(res); len(ops) != 1 || ops["UNIDIRECTIONAL_SEQUENCE_RNN"] != 1 {
		t.Errorf("operators %v", ops)
	}
	x := probeInput(6, 0.3)
	out := compareRuns(t, path, opts, x)
	want := kerasSimpleRNN(math.Tanh, graphConst(t, path, "w"), graphConst(t, path, "b"), graphConst(t, path, "u"), steps(x, 2))
	if d := maxErr(t, out[0], flatten(want...)); d > refTol {
		t.Errorf("fused user composite differs from the reference by %g", d)
	}

	// The same rule refusing.
	cut := convert.Options{InputArrays: []string{"x", "w"}, OutputArrays: []string{"out"}, InputShapes: []ir.Shape{{1, 2, 3}, {3, 2}}, Registry: reg}
	res, err := convert.Convert(path, cut)
	if err != nil {
		t.Fatal(err)
	}
	if e := reportEntry(t, res, "rnn"); e.Fused || e.Rule != "user-tanh-rnn" || e.Reason != "the weights are not constants" {
		t.Errorf("refusal entry %+v", e)
	}
	if opCounts(res)["UNIDIRECTIONAL_SEQUENCE_RNN"] != 0 {
		t.Error("refused composite was fused")
	}
}
