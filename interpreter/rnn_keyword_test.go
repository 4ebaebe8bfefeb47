package interpreter

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// keyword_scrambled_8bit.tflite is TFLite Micro's keyword benchmark with
// int8 SVDF state and weights_time, a variant TFLite itself cannot run (it
// reads past the int8 buffers), so there is no golden output. These tests
// run it through tflrun's TFLite Micro int8-state SVDF path.

var keyword8bitPath = filepath.Join("..", "..", "shared", "models", "keyword_scrambled_svdf", "keyword_scrambled_8bit.tflite")

// TestKeyword8bitFirstSVDF cuts the model's first SVDF layer (operator 1:
// int8 input, weights_feature [64,96], int8 weights_time [64,8], int32
// bias, int8 state [1,512] with zero point -50) into a model of its own
// and checks five streamed steps against a float64 model of TFLite
// Micro's arithmetic (real-valued rescaling, round half away from zero):
// outputs and state may differ only by a last-bit rounding.
func TestKeyword8bitFirstSVDF(t *testing.T) {
	raw, err := os.ReadFile(keyword8bitPath)
	if err != nil {
		t.Skipf("%s is absent: %v", keyword8bitPath, err)
	}
	m := schema.GetRootAsModel(raw, 0).UnPack()
	sg := m.Subgraphs[0]
	op := sg.Operators[1]
	if op.Inputs[0] != 0 || op.Outputs[0] != 5 {
		t.Fatalf("unexpected model layout: operator 1 %v -> %v", op.Inputs, op.Outputs)
	}
	sg.Operators = []*schema.OperatorT{op}
	sg.Inputs, sg.Outputs = []int32{0}, []int32{5}
	it := newRecInterp(t, m)

	in, wfT, wtT, biasT, stT, out := it.Tensor(0), it.Tensor(1), it.Tensor(2), it.Tensor(3), it.Tensor(4), it.Tensor(5)
	F, N, M := wfT.Shape[0], wfT.Shape[1], wtT.Shape[1]
	wf, wt, bias := wfT.Int8s(), wtT.Int8s(), biasT.Int32s()
	if stT.ZeroPoint() == 0 {
		t.Fatal("expected a non-zero state zero point")
	}
	inZP, stZP, outZP := float64(in.ZeroPoint()), float64(stT.ZeroPoint()), float64(out.ZeroPoint())
	s1 := float64(in.Scale()) * float64(wfT.Scale()) / float64(stT.Scale())
	s2 := float64(stT.Scale()) * float64(wtT.Scale()) / float64(out.Scale())
	clamp := func(v float64) float64 { return math.Max(-128, math.Min(127, v)) }
	state := make([]float64, F*M)
	for i := range state {
		state[i] = stZP
	}
	r := rand.New(rand.NewPCG(5, 6))
	for step := 0; step < 5; step++ {
		x := recRandomBytes(r, in)
		got := recInvoke(t, it, x)[0]
		for f := 0; f < F; f++ {
			p := 0.0
			for i := 0; i < N; i++ {
				p += float64(wf[f*N+i]) * (float64(int8(x[i])) - inZP)
			}
			st := state[f*M : f*M+M]
			copy(st, st[1:])
			st[M-1] = clamp(math.Round(p*s1) + stZP)
			d := float64(bias[f])
			for j := 0; j < M; j++ {
				d += float64(wt[f*M+j]) * (st[j] - stZP)
			}
			want := clamp(math.Round(d*s2) + outZP)
			if g := float64(int8(got[f])); math.Abs(g-want) > 1 {
				t.Fatalf("step %d filter %d: %v, float64 model %v", step, f, g, want)
			}
		}
		// Follow the kernel's state (it may differ by a last-bit rounding).
		for i, v := range stT.Int8s() {
			if math.Abs(float64(v)-state[i]) > 1 {
				t.Fatalf("step %d: state %d = %d, float64 model %v", step, i, v, state[i])
			}
			state[i] = float64(v)
		}
	}
}

// TestKeyword8bitRuns runs the whole int8-state model (QUANTIZE int16 →
// int8, 7 SVDF, 5 FULLY_CONNECTED, SOFTMAX int8 → int16, QUANTIZE int16 →
// int32) on streamed random inputs: there is no golden to compare with,
// so this checks that it runs, allocates nothing per Invoke, and gives a
// probability pair that sums to one.
func TestKeyword8bitRuns(t *testing.T) {
	raw, err := os.ReadFile(keyword8bitPath)
	if err != nil {
		t.Skipf("%s is absent: %v", keyword8bitPath, err)
	}
	model, err := LoadBytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	it, err := New(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	in := it.Input(0).Int16s()
	for step := 0; step < 10; step++ {
		for i := range in {
			in[i] = int16(r.IntN(65536) - 32768)
		}
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		o := it.Output(0).Int32s()
		// Softmax probabilities at scale 1/32767: the pair sums to about 1.
		if sum := o[0] + o[1]; sum < 32760 || sum > 32775 {
			t.Fatalf("step %d: outputs %v do not sum to about 32767", step, o)
		}
	}
	if a := testing.AllocsPerRun(5, func() { _ = it.Invoke() }); a != 0 {
		t.Errorf("%v allocations per Invoke", a)
	}
}
