package fused

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// runFloat prepares and evaluates spec on x and returns the output.
func runFloat(t *testing.T, s *lstmSpec, x []float32) []float32 {
	t.Helper()
	n := s.node(x)
	k := NewUnidirectionalSequenceLSTM()
	prepared(t, k, n)
	if err := k.Eval(n); err != nil {
		t.Fatalf("Eval: %v", err)
	}
	return append([]float32(nil), n.Outputs[0].Float32s()...)
}

// TestFloatLSTMAgainstReference compares the float kernel with an
// independent float64 LSTM on random weights for every variant the float
// path supports, in both layouts.
func TestFloatLSTMAgainstReference(t *testing.T) {
	cases := []lstmSpec{
		{batch: 1, time: 3, nIn: 5, nCell: 7, nOut: 7},
		{batch: 3, time: 4, nIn: 6, nCell: 8, nOut: 8},
		{batch: 2, time: 5, nIn: 3, nCell: 7, nOut: 7, cifg: true},
		{batch: 2, time: 4, nIn: 6, nCell: 8, nOut: 8, peephole: true},
		{batch: 2, time: 3, nIn: 3, nCell: 7, nOut: 6, proj: true},
		{batch: 2, time: 3, nIn: 8, nCell: 4, nOut: 3, proj: true, projBias: true},
		{batch: 2, time: 2, nIn: 8, nCell: 7, nOut: 7, layerNorm: true},
		{batch: 2, time: 4, nIn: 3, nCell: 9, nOut: 7, layerNorm: true, cifg: true, peephole: true, proj: true, projBias: true},
		{batch: 1, time: 6, nIn: 8, nCell: 6, nOut: 5, proj: true, cellClip: 0.3, projClip: 0.2},
		{batch: 2, time: 3, nIn: 6, nCell: 11, nOut: 11, diag: true},
		{batch: 2, time: 3, nIn: 6, nCell: 8, nOut: 8, diag: true, peephole: true, cifg: true},
		{batch: 1, time: 4, nIn: 6, nCell: 8, nOut: 8, act: ops.ActRelu},
		{batch: 1, time: 4, nIn: 6, nCell: 8, nOut: 8, act: ops.ActRelu6, peephole: true},
		{batch: 1, time: 4, nIn: 6, nCell: 8, nOut: 8, act: ops.ActReluN1To1},
		{batch: 2, time: 3, nIn: 4, nCell: 5, nOut: 5, act: ops.ActSignBit},
		{batch: 1, time: 3, nIn: 6, nCell: 8, nOut: 8, legacy20: true},
		{batch: 4, time: 1, nIn: 1, nCell: 1, nOut: 1},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, c := range cases {
		for _, timeMajor := range []bool{true, false} {
			s := c
			s.timeMajor = timeMajor
			if s.act == ops.ActNone {
				s.act = ops.ActTanh
			}
			name := fmt.Sprintf("case%d/timeMajor=%v", i, timeMajor)
			t.Run(name, func(t *testing.T) {
				s.randomize(rng)
				x := s.randomInput(rng)
				got := runFloat(t, &s, x)
				want := s.reference(x)
				if d, at := maxAbsDiff(got, want); d > 1e-5 {
					t.Errorf("max |kernel - float64 reference| = %g at %d (got %g, want %g)", d, at, got[at], want[at])
				}
			})
		}
	}
}

// TestFloatLSTMLayoutsAgree checks that batch-major and time-major inputs
// holding the same sequences give bit-identical outputs.
func TestFloatLSTMLayoutsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := lstmSpec{batch: 3, time: 5, nIn: 4, nCell: 6, nOut: 5, proj: true, peephole: true, layerNorm: true, act: ops.ActTanh}
	s.randomize(rng)
	s.timeMajor = false
	xb := s.randomInput(rng)
	bm := runFloat(t, &s, xb)
	// Transpose [batch, time, in] to [time, batch, in].
	xt := make([]float32, len(xb))
	for b := 0; b < s.batch; b++ {
		for tt := 0; tt < s.time; tt++ {
			copy(xt[(tt*s.batch+b)*s.nIn:], xb[(b*s.time+tt)*s.nIn:(b*s.time+tt+1)*s.nIn])
		}
	}
	s.timeMajor = true
	tm := runFloat(t, &s, xt)
	for b := 0; b < s.batch; b++ {
		for tt := 0; tt < s.time; tt++ {
			for i := 0; i < s.nOut; i++ {
				g, w := bm[(b*s.time+tt)*s.nOut+i], tm[(tt*s.batch+b)*s.nOut+i]
				if g != w {
					t.Fatalf("batch %d time %d unit %d: batch-major %g, time-major %g", b, tt, i, g, w)
				}
			}
		}
	}
}

// TestFloatLSTMStreamingEqualsBatch runs T invocations of one time step,
// the state carried in the variable tensors, and compares them with one
// invocation over all T steps: they must agree bit for bit.
func TestFloatLSTMStreamingEqualsBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := lstmSpec{batch: 2, time: 6, nIn: 4, nCell: 6, nOut: 4, timeMajor: true, proj: true, projBias: true,
		peephole: true, cifg: true, act: ops.ActTanh, cellClip: 0.8}
	s.randomize(rng)
	x := s.randomInput(rng)
	whole := runFloat(t, &s, x)

	step := s
	step.time = 1
	stepLen := s.batch * s.nIn
	n := step.node(x[:stepLen])
	k := NewUnidirectionalSequenceLSTM()
	prepared(t, k, n)
	for tt := 0; tt < s.time; tt++ {
		copy(n.Inputs[0].Float32s(), x[tt*stepLen:(tt+1)*stepLen])
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		got := n.Outputs[0].Float32s()
		want := whole[tt*s.batch*s.nOut : (tt+1)*s.batch*s.nOut]
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("step %d: streamed %v, whole sequence %v", tt, got, want)
			}
		}
	}
}

// TFLite's float test vectors from unidirectional_sequence_lstm_test.cc
// (n_batch 1, n_input 2, n_cell = n_output 4, 3 steps, tolerance 1e-5).
var (
	tfliteLSTMInput = []float32{2, 3, 3, 4, 1, 1}

	noCifgSpec = lstmSpec{
		batch: 1, time: 3, nIn: 2, nCell: 4, nOut: 4, act: ops.ActTanh,
		wx: [numGates][]float32{
			{-0.45018822, -0.02338299, -0.0870589, -0.34550029, 0.04266912, -0.15680569, -0.34856534, 0.43890524},
			{0.09701663, 0.20334584, -0.50592935, -0.31343272, -0.40032279, 0.44781327, 0.01387155, -0.35593212},
			{-0.50013041, 0.1370284, 0.11810488, 0.2013163, -0.20583314, 0.44344562, 0.22077113, -0.29909778},
			{-0.25065863, -0.28290087, 0.04613829, 0.40525138, 0.44272184, 0.03897077, -0.1556896, 0.19487578},
		},
		wh: [numGates][]float32{
			{-0.0063535, -0.2042388, 0.31454784, -0.35746509, 0.28902304, 0.08183324, -0.16555229, 0.02286911,
				-0.13566875, 0.03034258, 0.48091322, -0.12528998, 0.24077177, -0.51332325, -0.33502164, 0.10629296},
			{-0.48684245, -0.06655136, 0.42224967, 0.2112639, 0.27654213, 0.20864892, -0.07646349, 0.45877004,
				0.00141793, -0.14609534, 0.36447752, 0.09196436, 0.28053468, 0.01560611, -0.20127171, -0.01140004},
			{-0.3407414, 0.24443203, -0.2078532, 0.26320225, 0.05695659, -0.00123841, -0.4744786, -0.35869038,
				-0.06418842, -0.13502428, -0.501764, 0.22830659, -0.46367589, 0.26016325, -0.03894562, -0.16368064},
			{0.43385774, -0.17194885, 0.2718237, 0.09215671, 0.24107647, -0.39835793, 0.18212086, 0.01301402,
				0.48572797, -0.50656658, 0.20047462, -0.20607421, -0.51818722, -0.15390486, 0.0468148, 0.39922136},
		},
		bias: [numGates][]float32{{0, 0, 0, 0}, {1, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}},
	}
	noCifgGolden = []float32{-0.02973187, 0.1229473, 0.20885126, -0.15358765,
		-0.03716109, 0.12507336, 0.41193449, -0.20860538,
		-0.15053082, 0.09120187, 0.24278517, -0.12222792}

	cifgPeepholeSpec = lstmSpec{
		batch: 1, time: 3, nIn: 2, nCell: 4, nOut: 4, act: ops.ActTanh, cifg: true, peephole: true,
		wx: [numGates][]float32{
			nil,
			{-0.55291498, -0.42866567, 0.13056988, -0.3633365, -0.22755712, 0.28253698, 0.24407166, 0.33826375},
			{-0.49770179, -0.27711356, -0.09624726, 0.05100781, 0.04717243, 0.48944736, -0.38535351, -0.17212132},
			{0.10725588, -0.02335852, -0.55932593, -0.09426838, -0.44257352, 0.54939759, 0.01533556, 0.42751634},
		},
		wh: [numGates][]float32{
			nil,
			{-0.13832897, -0.0515101, -0.2359007, -0.16661474, -0.14340827, 0.36986142, 0.23414481, 0.55899,
				0.10798943, -0.41174671, 0.17751795, -0.34484994, -0.35874045, -0.11352962, 0.27268326, 0.54058349},
			{0.54066205, -0.32668582, -0.43562764, -0.56094903, 0.42957711, 0.01841056, -0.32764608, -0.33027974,
				-0.10826075, 0.20675004, 0.19069612, -0.03026325, -0.54532051, 0.33003211, 0.44901288, 0.21193194},
			{0.41613156, 0.42610586, -0.16495961, -0.5663873, 0.30579174, -0.05115908, -0.33941799, 0.23364776,
				0.11178309, 0.09481031, -0.26424935, 0.46261835, 0.50248802, 0.26114327, -0.43736315, 0.33149987},
		},
		wc: [numGates][]float32{
			nil,
			{0.47485286, -0.51955009, -0.24458408, 0.31544167},
			nil,
			{-0.17135078, 0.82760304, 0.85573703, -0.77109635},
		},
		bias: [numGates][]float32{nil, {1, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}},
	}
	cifgPeepholeGolden = []float32{-0.36444446, -0.00352185, 0.12886585, -0.05163646,
		-0.42312205, -0.01218222, 0.24201041, -0.08124574,
		-0.358325, -0.04621704, 0.21641694, -0.06471302}

	cifgPeepholeLayerNormGolden = []float32{-0.102089, 0.00653987, 0.0515139, -0.0630045,
		-0.173317, 0.0109206, 0.0903292, -0.109497,
		-0.23827, 0.0119514, 0.119525, -0.12748}
)

func checkGolden(t *testing.T, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > tol || d != d {
			t.Fatalf("value %d: got %g, want %g (TFLite golden)\n got %v\nwant %v", i, got[i], want[i], got, want)
		}
	}
}

func TestTFLiteFloatNoCifgNoPeepholeNoProjection(t *testing.T) {
	s := noCifgSpec
	s.timeMajor = true
	checkGolden(t, runFloat(t, &s, tfliteLSTMInput), noCifgGolden, 1e-5)

	// The same sequence twice as a batch of 2, in both layouts.
	s.batch = 2
	x := append(append([]float32(nil), tfliteLSTMInput...), tfliteLSTMInput...) // batch-major
	s.timeMajor = false
	want := append(append([]float32(nil), noCifgGolden...), noCifgGolden...)
	checkGolden(t, runFloat(t, &s, x), want, 1e-5)
	s.timeMajor = true
	xt := make([]float32, 0, len(x))
	wt := make([]float32, 0, len(want))
	for tt := 0; tt < 3; tt++ {
		for b := 0; b < 2; b++ {
			xt = append(xt, tfliteLSTMInput[tt*2:tt*2+2]...)
			wt = append(wt, noCifgGolden[tt*4:tt*4+4]...)
		}
	}
	checkGolden(t, runFloat(t, &s, xt), wt, 1e-5)
}

func TestTFLiteFloatCifgPeepholeNoProjection(t *testing.T) {
	s := cifgPeepholeSpec
	s.timeMajor = true
	checkGolden(t, runFloat(t, &s, tfliteLSTMInput), cifgPeepholeGolden, 1e-5)
}

func TestTFLiteFloatCifgPeepholeLayerNorm(t *testing.T) {
	s := cifgPeepholeSpec
	s.timeMajor = true
	s.layerNorm = true
	s.ln = [numGates][]float32{nil, {0.2, 0.2, 0.4, 0.3}, {0.7, 0.2, 0.3, 0.8}, {0.6, 0.2, 0.2, 0.5}}
	checkGolden(t, runFloat(t, &s, tfliteLSTMInput), cifgPeepholeLayerNormGolden, 1e-5)
}

// TestFloatLSTMEvalAllocates nothing.
func TestFloatLSTMEvalNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, timeMajor := range []bool{true, false} {
		s := lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 6, nOut: 5, proj: true, projBias: true, layerNorm: true,
			peephole: true, act: ops.ActTanh, timeMajor: timeMajor}
		s.randomize(rng)
		n := s.node(s.randomInput(rng))
		k := NewUnidirectionalSequenceLSTM()
		prepared(t, k, n)
		if a := testing.AllocsPerRun(20, func() {
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("time_major=%v: Eval allocates %v times per run", timeMajor, a)
		}
	}
}
