package convert

import (
	"math"
	"strings"
	"testing"
)

// --no-fuse must compute what the fused model computes: each recurrent
// SavedModel converted both ways, run once from fresh interpreters (a
// fused operator keeps its state in variable tensors across invokes) on
// the same input, agrees within 1e-5 (relative to the output's size when
// that exceeds 1).

type fuCase struct {
	name, dir string
	opts      Options
	// inputLen is the input's element count; scale its amplitude.
	inputLen int
	scale    float32
	abs      bool
	// fusedOp is an operator the fused model must contain.
	fusedOp string
}

var fuCases = []fuCase{
	{"iteam1_lstm", "iteam1_lstm/lstm_model", Options{}, 5, 2, false, "UNIDIRECTIONAL_SEQUENCE_LSTM"},
	{"iteam1_gru", "iteam1_gru/gru_model", Options{}, 5, 2, false, "UNIDIRECTIONAL_SEQUENCE_GRU"},
	{"ditto_v1_lstm", "ditto_v1_lstm/HeyDittoNet-v1", Options{}, 4 * 30 * 129, 1, false, "UNIDIRECTIONAL_SEQUENCE_LSTM"},
	{"ditto_v2_bilstm", "ditto_v2_bilstm/HeyDittoNet-v2", Options{}, 99 * 32, 1, false, ""},
	// The recurrent layers alone (outputs in (-1, 1), before the dense
	// heads squash differences).
	{"iteam1_lstm layer", "iteam1_lstm/lstm_model", Options{OutputArrays: []string{"sequential_5/lstm_5/PartitionedCall"}}, 5, 2, false, "UNIDIRECTIONAL_SEQUENCE_LSTM"},
	{"iteam1_gru layer", "iteam1_gru/gru_model", Options{OutputArrays: []string{"sequential_9/gru_3/PartitionedCall"}}, 5, 2, false, "UNIDIRECTIONAL_SEQUENCE_GRU"},
	{"ditto_v1 stacked LSTM layers", "ditto_v1_lstm/HeyDittoNet-v1", Options{InputArrays: []string{"sequential_1/time_distributed/Reshape_1"}, OutputArrays: []string{"sequential_1/lstm_1/PartitionedCall"}}, 4 * 32, 1.5, false, "UNIDIRECTIONAL_SEQUENCE_LSTM"},
	{"ditto_v2 BiLSTM layer", "ditto_v2_bilstm/HeyDittoNet-v2", Options{InputArrays: []string{"sequential/reshape/Reshape"}, OutputArrays: []string{"sequential/bidirectional/concat"}}, 2 * 120, 1, false, ""},
	{"dtln stage 1", dtlnDir, Options{InputArrays: []string{dtlnStages[0].in}, OutputArrays: []string{dtlnStages[0].out}}, 257, 3, true, "UNIDIRECTIONAL_SEQUENCE_LSTM"},
	{"dtln stage 2", dtlnDir, Options{InputArrays: []string{dtlnStages[1].in}, OutputArrays: []string{dtlnStages[1].out}}, 512, 0.2, false, "UNIDIRECTIONAL_SEQUENCE_LSTM"},
}

func TestFusedAgreesWithNoFuse(t *testing.T) {
	for _, c := range fuCases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && !strings.Contains(c.name, "layer") {
				t.Skip("whole models skipped with -short; the recurrent layers are compared")
			}
			m := nfModel(t, c.dir)
			fused, err := ConvertModel(m, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if fused.Report.Fused() == 0 {
				t.Skipf("no composite fused (fusion report:\n%s)", fused.Report.Text())
			}
			if c.fusedOp != "" && !strings.Contains(opList(fused), c.fusedOp) {
				t.Errorf("fused model has no %s: %s", c.fusedOp, opList(fused))
			}
			opts := c.opts
			opts.NoFuse = true
			unfused := nfConvert(t, m, opts)
			x := seq(c.inputLen, c.scale, 0.9)
			if c.abs {
				for i := range x {
					x[i] = float32(math.Abs(float64(x[i])))
				}
			}
			inputs := [][]float32{x}
			if n := len(unfused.States); n > 0 {
				// Explicit state inputs start at the checkpoint value
				// (zeros), as the fused variable tensors do.
				for _, s := range unfused.States {
					inputs = append(inputs, s.Initial.Float32s())
				}
			}
			want := nfRun(t, fused.Model, x)[0]
			got := nfRun(t, unfused.Model, inputs...)[0]
			if len(got) != len(want) {
				t.Fatalf("unfused output has %d values, fused %d", len(got), len(want))
			}
			worst := 0.0
			for i := range want {
				d := math.Abs(float64(got[i]-want[i])) / math.Max(1, math.Abs(float64(want[i])))
				worst = math.Max(worst, d)
				if d > 1e-5 {
					t.Fatalf("output %d: --no-fuse %g, fused %g", i, got[i], want[i])
				}
			}
			t.Logf("fused %d ops (%s), unfused %d ops; max difference %.3g", fusedOps(fused), firstOps(fused), fusedOps(unfused), worst)
		})
	}
}

func fusedOps(res *Result) int {
	n := 0
	for _, x := range res.Entry.Func.Nodes {
		if x.TFL != nil {
			n++
		}
	}
	return n
}

// firstOps summarises the recurrent operators of a fused model.
func firstOps(res *Result) string {
	var out []string
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL != nil && (strings.Contains(n.OpName(), "SEQUENCE") || strings.Contains(n.OpName(), "custom")) {
			out = append(out, strings.TrimPrefix(n.OpName(), "tfl."))
		}
	}
	return strings.Join(out, " ")
}
