package convert

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// runFloat runs a model on float inputs in [-1, 1) drawn from seed
// (integer inputs in [0, 4)) and returns its outputs as float64s.
func runFloat(model []byte, seed int64) ([][]float64, error) {
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		return nil, err
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < it.InputCount(); i++ {
		t := it.Input(i)
		switch t.Type {
		case ops.Float32:
			for k := 0; k+4 <= len(t.Data); k += 4 {
				binary.LittleEndian.PutUint32(t.Data[k:], math.Float32bits(r.Float32()*2-1))
			}
		case ops.Int32:
			for k := 0; k+4 <= len(t.Data); k += 4 {
				binary.LittleEndian.PutUint32(t.Data[k:], uint32(r.Intn(4)))
			}
		default:
			return nil, fmt.Errorf("input %d is %v", i, t.Type)
		}
	}
	if err := it.Invoke(); err != nil {
		return nil, err
	}
	var outs [][]float64
	for i := 0; i < it.OutputCount(); i++ {
		t := it.Output(i)
		if t.Type != ops.Float32 {
			return nil, fmt.Errorf("output %d is %v", i, t.Type)
		}
		v := make([]float64, len(t.Data)/4)
		for k := range v {
			v[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*k:])))
		}
		outs = append(outs, v)
	}
	return outs, nil
}

// compareModels runs a and b on the same random inputs (seeds 1..n) and
// returns the largest difference of their outputs.
func compareModels(a, b []byte, n int) (float64, error) {
	return compareModelsBy(a, b, n, func(x, y float64) float64 { return math.Abs(x - y) })
}

// compareModelsRel is compareModels with each difference less its
// relative part 1e-5·|a's value|: the float tolerance of the project's
// TensorFlow Lite comparisons is then this result ≤ 1e-5 (an absolute
// 1e-5 says nothing of logits near 50, whose float32 ulp is 4e-6).
func compareModelsRel(a, b []byte, n int) (float64, error) {
	return compareModelsBy(a, b, n, func(x, y float64) float64 { return math.Abs(x-y) - 1e-5*math.Abs(x) })
}

func compareModelsBy(a, b []byte, n int, dist func(x, y float64) float64) (float64, error) {
	worst := 0.0
	for seed := int64(1); seed <= int64(n); seed++ {
		x, err := runFloat(a, seed)
		if err != nil {
			return 0, fmt.Errorf("first model: %w", err)
		}
		y, err := runFloat(b, seed)
		if err != nil {
			return 0, fmt.Errorf("second model: %w", err)
		}
		if len(x) != len(y) {
			return 0, fmt.Errorf("%d outputs against %d", len(x), len(y))
		}
		for i := range x {
			if len(x[i]) != len(y[i]) {
				return 0, fmt.Errorf("output %d: %d values against %d", i, len(x[i]), len(y[i]))
			}
			for k := range x[i] {
				worst = math.Max(worst, dist(x[i][k], y[i][k]))
			}
		}
	}
	return worst, nil
}

// opCounts counts the operators of a model by name, over every subgraph.
func opCounts(t *testing.T, model []byte) map[string]int {
	t.Helper()
	m, err := tflite.Read(model, ir.NewBudget(ir.DefaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, f := range m.Subgraphs {
		for _, n := range f.Nodes {
			if n.TFL != nil {
				counts[strings.TrimPrefix(n.OpName(), "tfl.")]++
			}
		}
	}
	return counts
}

// corpusDir is the folder of the public .tflite corpus
// (internal/corpus/tflite.tsv) named by TFLRUN_TFLITE_CORPUS, as the
// corpus tests read it; "" when the variable is unset.
func corpusDir() string { return os.Getenv("TFLRUN_TFLITE_CORPUS") }

// TestRefuseCorpusLoops re-fuses the corpus models whose recurrent layers
// are WHILE loops: every loop is fused (but those the report explains),
// no WHILE is left in a fused model, and where the unfused model runs in
// tflrun (builtins only, or once Flex kernels exist) the two agree within
// 1e-5 on random inputs.
func TestRefuseCorpusLoops(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("TFLRUN_TFLITE_CORPUS is not set: no .tflite corpus to re-fuse")
	}
	dir := filepath.Join(corpusDir(), "recurrent")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no .tflite corpus at %s (set TFLRUN_TFLITE_CORPUS): %v", dir, err)
	}
	// The loops that are not fused, and why (the report must say so).
	refused := map[string]string{
		"flood_lstm_while_flex_resvar.tflite":     "which nothing in the model assigns",
		"sureshiitp_bilstm_attention_flex.tflite": "the layer is masked",
	}
	// Dynamic-range models. The fused operator is quantised with the
	// loop's own scales, so it computes with the loop's int8 weights and
	// quantises each step's input and state as the loop's hybrid
	// FULLY_CONNECTED do; but it adds the bias first (TensorFlow Lite's
	// hybrid LSTM) where the loop adds it last, and a 1-ulp change of a
	// gate moves the quantisation of the next state by a step, which the
	// steps compound. Such a model's own outputs move as much when its
	// biases move by 1 ulp (ulpSensitivity), so the two must agree to
	// twice that, not to 1e-5.
	hybrid := map[string]bool{"tesi_lstm_while_dynamic.tflite": true, "falldetect_simplernn_while_flex_dynamic.tflite": true}
	for _, name := range []string{"netanomaly_lstm_while.tflite", "driveprofiler_lstm_while.tflite", "tesi_gru_while.tflite",
		"tesi_lstm_while_dynamic.tflite", "airquality_stacked_lstm_while_flex.tflite", "falldetect_simplernn_while_flex_dynamic.tflite",
		"flood_lstm_while_flex_resvar.tflite", "lettuce_lstm_feature_extractor_while_flex.tflite", "lettuce_lstm_while_flex.tflite",
		"sureshiitp_bilstm_attention_flex.tflite"} {
		t.Run(name, func(t *testing.T) {
			buf, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Skipf("absent: %v", err)
			}
			res, err := ConvertTFLite(buf, Options{})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Report.Text()
			if why, ok := refused[name]; ok {
				if res.Report.Fused() != 0 || !strings.Contains(text, why) {
					t.Fatalf("report:\n%s\nwant every loop refused with %q", text, why)
				}
				return
			}
			if res.Report.Fused() == 0 || res.Report.Fused() != len(res.Report.Composites) {
				t.Fatalf("report:\n%s", text)
			}
			after := opCounts(t, res.Model)
			if after["WHILE"] != 0 || after["CALL_ONCE"] != 0 || len(res.Subgraphs) != 1 {
				t.Fatalf("a WHILE or CALL_ONCE is left: %v, %d subgraphs", after, len(res.Subgraphs))
			}
			diff, err := compareModels(buf, res.Model, 5)
			if err != nil {
				t.Skipf("fused, not compared: %v (before %v, after %v)", err, opCounts(t, buf), after)
			}
			t.Logf("max |unfused - fused| %.3g; before %v; after %v", diff, opCounts(t, buf), after)
			tol := 1e-5
			if hybrid[name] {
				sens := ulpSensitivity(t, buf)
				t.Logf("the unfused model moves by %.3g when its biases move by 1 ulp", sens)
				tol = max(tol, 2*sens)
			}
			if diff > tol {
				t.Errorf("re-fused model differs from the unfused one by %g (tolerance %g)", diff, tol)
			}
		})
	}
}

// TestRefuseDittoBiLSTM re-fuses TensorFlow's own (unfused, Flex)
// conversion of the HeyDittoNet bidirectional LSTM and compares it with
// tflrun's conversion of the SavedModel.
func TestRefuseDittoBiLSTM(t *testing.T) {
	const dir = "../../shared/savedmodels/ditto_v2_bilstm"
	buf, err := os.ReadFile(filepath.Join(dir, "model.tflite"))
	if err != nil {
		t.Skipf("shared model absent: %v", err)
	}
	res, err := ConvertTFLite(buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts := opCounts(t, res.Model)
	// The Bidirectional layer's two loops pair into one operator.
	if counts["BIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || counts["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 0 || counts["WHILE"] != 0 || len(res.Subgraphs) != 1 {
		t.Fatalf("re-fused ops %v, %d subgraphs", counts, len(res.Subgraphs))
	}
	for name := range counts {
		if strings.HasPrefix(name, "custom.Flex") {
			t.Errorf("Flex op %s left", name)
		}
	}
	sm, err := Convert(filepath.Join(dir, "HeyDittoNet-v2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := opCounts(t, sm.Model); c["BIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || c["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 0 {
		t.Errorf("SavedModel conversion: ops %v, want one BIDIRECTIONAL_SEQUENCE_LSTM", c)
	}
	diff, err := compareModels(sm.Model, res.Model, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("max |SavedModel conversion - re-fused| %.3g; ops %v", diff, counts)
	if diff > 1e-5 {
		t.Errorf("re-fused model differs from the SavedModel conversion by %g", diff)
	}
	// The model as TensorFlow wrote it runs (tflrun's Flex TensorList
	// kernels).
	if diff, err := compareModels(buf, res.Model, 5); err != nil {
		t.Errorf("unfused model not compared: %v", err)
	} else if t.Logf("max |unfused - re-fused| %.3g", diff); diff > 1e-5 {
		t.Errorf("re-fused model differs from the unfused one by %g", diff)
	}
	// On random inputs the sigmoid's outputs are about 1e-21, which says
	// little: the logits (its input, about -48) must agree too, within
	// 1e-5 + 1e-5·|logit| (the portable and AVX2 kernels round apart by
	// a few ulps of 48).
	logits := func(model []byte) []byte { return withInputOf(t, model, schema.BuiltinOperatorLOGISTIC) }
	for _, c := range []struct {
		what string
		a    []byte
	}{{"SavedModel conversion", sm.Model}, {"unfused", buf}} {
		diff, err := compareModels(logits(c.a), logits(res.Model), 5)
		if err != nil {
			t.Fatal(err)
		}
		excess, err := compareModelsRel(logits(c.a), logits(res.Model), 5)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("logits: max |%s - re-fused| %.3g (%.3g beyond 1e-5 relative)", c.what, diff, excess)
		if excess > 1e-5 {
			t.Errorf("logits: %s and re-fused differ by %g, beyond 1e-5 + 1e-5·|logit|", c.what, diff)
		}
	}
}

// withInputOf returns model with input 0 of subgraph 0's first operator
// op made one more output of the subgraph (after the others).
func withInputOf(t *testing.T, model []byte, op schema.BuiltinOperator) []byte {
	t.Helper()
	m, err := tflite.Read(model, ir.NewBudget(ir.DefaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Subgraphs[0]
	found := false
	for _, n := range f.Nodes {
		if n.TFL != nil && n.TFL.Builtin == op && len(n.Inputs) > 0 && n.Inputs[0] != nil {
			f.Results = append(f.Results, n.Inputs[0])
			f.ResultNames = append(f.ResultNames, "probe")
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("no %s operator in subgraph 0", schema.BuiltinOperatorName(int32(op)))
	}
	mt, err := tflite.BuildModel(m, "")
	if err != nil {
		t.Fatal(err)
	}
	return tflite.Pack(mt)
}

// ulpSensitivity returns how far a model's outputs move (largest
// difference over 5 random inputs) when every float constant of more
// than one element added by an ADD (the loops' biases) moves up by 1 ulp.
func ulpSensitivity(t *testing.T, model []byte) float64 {
	t.Helper()
	m, err := tflite.Read(model, ir.NewBudget(ir.DefaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Subgraphs {
		for _, n := range f.Nodes {
			if n.TFL == nil || n.TFL.Builtin != schema.BuiltinOperatorADD {
				continue
			}
			for i, in := range n.Inputs {
				if in == nil || in.Const == nil || in.DType != ir.Float32 || in.Const.NumElements() < 2 {
					continue
				}
				v := in.Const.Float32s()
				for k := range v {
					v[k] = math.Nextafter32(v[k], float32(math.Inf(1)))
				}
				n.Inputs[i] = f.NewConst(in.Name+"/ulp", ir.FromFloat32s(in.Shape, v))
			}
		}
	}
	mt, err := tflite.BuildModel(m, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := compareModels(model, tflite.Pack(mt), 5)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
