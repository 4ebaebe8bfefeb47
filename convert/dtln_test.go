package convert

import (
	"math"
	"testing"
)

// DTLN (TF 2.2 SavedModel) keeps its four LSTM(128) states in resource
// variables: each layer reads them at the start of a call and assigns the
// final states at the end, and the two stages sit around in-graph
// RFFT/IRFFT ops with no TFLite builtin. Cut around the FFTs, each stage
// must convert with its states as inputs/outputs (package stateful) and
// reproduce TensorFlow's own conversion of that stage (model_1.tflite,
// model_2.tflite: state input [1, 2, 128, 2] = [_, layer, unit, h|c],
// state output likewise) invocation after invocation, with the states fed
// back.

const dtlnDir = "dtln/dtln_saved_model"

// dtlnStage describes one stage's cut and TensorFlow's converted model.
type dtlnStage struct {
	name     string
	in, out  string
	tfModel  string
	inputLen int
	// stateVars are the stage's variables in the order of the state
	// tensor's layers: {h, c} per layer.
	stateVars [2][2]string
}

var dtlnStages = []dtlnStage{{
	name: "stage 1 (magnitude → mask)", in: "model/lambda/Abs", out: "model/activation/Sigmoid",
	tfModel: "dtln/model_1.tflite", inputLen: 257,
	stateVars: [2][2]string{{"lstm/Variable", "lstm/Variable_1"}, {"lstm_1/Variable", "lstm_1/Variable_1"}},
}, {
	name: "stage 2 (frame → frame)", in: "model/lambda_1/irfft", out: "model/conv1d_1/conv1d/Squeeze",
	tfModel: "dtln/model_2.tflite", inputLen: 512,
	stateVars: [2][2]string{{"lstm_2/Variable", "lstm_2/Variable_1"}, {"lstm_3/Variable", "lstm_3/Variable_1"}},
}}

func TestDTLNStagesMatchTensorFlow(t *testing.T) {
	m := nfModel(t, dtlnDir)
	for _, st := range dtlnStages {
		for _, noFuse := range []bool{true, false} {
			name := st.name + " fused"
			if noFuse {
				name = st.name + " --no-fuse"
			}
			t.Run(name, func(t *testing.T) {
				res, err := ConvertModel(m, Options{InputArrays: []string{st.in}, OutputArrays: []string{st.out}, NoFuse: noFuse})
				if err != nil {
					t.Fatal(err)
				}
				if noFuse {
					nfPrimitive(t, res)
				}
				dtlnCompare(t, st, res)
			})
		}
	}
}

// dtlnCompare runs our stage and TensorFlow's for three invocations from
// zero state on the same inputs, feeding the states back, and compares.
func dtlnCompare(t *testing.T, st dtlnStage, res *Result) {
	tfData := readShared(t, st.tfModel)
	tfIt := nfInterpreter(t, tfData)
	ours := nfInterpreter(t, res.Model)
	// Our state inputs/outputs, by variable name (explicit pairs), or
	// none when a fused operator keeps them in variable tensors.
	inIdx := map[string]int{}
	outIdx := map[string]int{}
	for _, s := range res.States {
		if s.Input != nil {
			inIdx[s.Variable.Name] = s.Input.Index
			outIdx[s.Variable.Name] = s.Output
		}
	}
	explicit := len(inIdx) > 0
	if explicit && len(inIdx) != 4 {
		t.Fatalf("%d state inputs, want 4: %+v", len(inIdx), res.States)
	}
	if !explicit && len(res.States) != 4 {
		t.Fatalf("states %+v: want 4 (explicit or in variable tensors)", res.States)
	}
	tfState := make([]float32, 2*128*2)
	ourState := map[string][]float32{}
	for _, l := range st.stateVars {
		for _, v := range l {
			ourState[v] = make([]float32, 128)
		}
	}
	worst := 0.0
	for step := 0; step < 3; step++ {
		x := seq(st.inputLen, 1, float32(step))
		if st.inputLen == 257 {
			for i := range x {
				x[i] = float32(math.Abs(float64(x[i]))) * 3 // a magnitude spectrum
			}
		}
		tfOut := nfInvoke(t, tfIt, x, tfState)
		copy(tfState, tfOut[1])
		inputs := [][]float32{x}
		if explicit {
			inputs = make([][]float32, 1+len(inIdx))
			inputs[0] = x
			for v, i := range inIdx {
				inputs[i] = ourState[v]
			}
		}
		ourOut := nfInvoke(t, ours, inputs...)
		want := make([]float64, len(tfOut[0]))
		for i, v := range tfOut[0] {
			want[i] = float64(v)
		}
		near(t, "output", ourOut[0], want, 1e-5)
		for i := range want {
			worst = math.Max(worst, math.Abs(float64(ourOut[0][i])-want[i]))
		}
		if !explicit {
			continue
		}
		for layer, hc := range st.stateVars {
			for k, v := range hc {
				got := ourOut[outIdx[v]]
				w := make([]float64, 128)
				for u := range w {
					w[u] = float64(tfState[(layer*128+u)*2+k])
				}
				near(t, v, got, w, 1e-5)
				copy(ourState[v], got)
			}
		}
	}
	t.Logf("max |diff| against TensorFlow's conversion over 3 invocations: %.3g", worst)
}
