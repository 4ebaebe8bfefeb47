package fused

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// gruNode builds a UNIDIRECTIONAL_SEQUENCE_GRU node.
func gruNode(steps, batch, nIn, units int, gw, gb, cw, cb []float32) *ops.Node {
	W := nIn + units
	return &ops.Node{OpName: GRUCustomName, Op: ops.BuiltinCustom, Version: 1,
		Inputs: []*ops.Tensor{
			actTensor(ops.Float32, steps, batch, nIn),
			varTensor(ops.Float32, []int{batch, units}),
			f32([]int{2 * units, W}, gw), f32([]int{2 * units}, gb),
			f32([]int{units, W}, cw), f32([]int{units}, cb),
		},
		Outputs: []*ops.Tensor{outTensor(ops.Float32), outTensor(ops.Float32)}}
}

// TestGRUTFLiteVector is the experimental kernel's SimpleTest
// (unidirectional_sequence_gru_test.cc): 2 steps, batch 2, input 2,
// 3 units, from a non-zero state.
func TestGRUTFLiteVector(t *testing.T) {
	n := gruNode(2, 2, 2, 3,
		[]float32{0.7256918, 0.8945897, 0.03285786, 0.42637166, 0.119376324,
			0.83035135, 0.16997327, 0.42302176, 0.77598256, 0.2660894,
			0.9587266, 0.6218451, 0.88164485, 0.12272458, 0.2699055,
			0.18399088, 0.21930052, 0.3374841, 0.70866305, 0.9523419,
			0.25170696, 0.60988617, 0.79823977, 0.64477515, 0.2602957,
			0.5053131, 0.93722224, 0.8451359, 0.97905475, 0.38669217},
		[]float32{0.032708533, 0.018445263, 0.15320699, 0.8163046, 0.26683575, 0.1412022},
		[]float32{0.96165305, 0.95572084, 0.11534478, 0.96965164,
			0.33562955, 0.8680755, 0.003066936, 0.057793964,
			0.8671354, 0.33354893, 0.7313398, 0.78492093,
			0.19530584, 0.116550304, 0.13599132},
		[]float32{0.89837056, 0.54769796, 0.63364106})
	k := NewUnidirectionalSequenceGRU()
	prepared(t, k, n)
	copy(n.Inputs[0].Float32s(), []float32{0.89495724, 0.34482682, 0.68505806, 0.7135783, 0.3167085,
		0.93647677, 0.47361764, 0.39643127})
	copy(n.Inputs[1].Float32s(), []float32{0.09992421, 0.3028481, 0.78305984, 0.50438094, 0.11269058, 0.10244724})
	evalN(t, k, n)
	if got := n.Outputs[0].Shape; !slices.Equal(got, []int{2, 2, 3}) {
		t.Fatalf("output shape %v", got)
	}
	want := []float64{0.20112592, 0.45286041, 0.80842507, 0.59567153, 0.2619998,
		0.22922856, 0.27715868, 0.5247152, 0.82300174, 0.65812796,
		0.38217607, 0.3401444}
	if d := maxDiff(n.Outputs[0].Float32s(), want); d > 1e-5 {
		t.Fatalf("max |diff| %g\n got %v\nwant %v", d, n.Outputs[0].Float32s(), want)
	}
	// Both state tensors hold the last step.
	last := want[6:]
	if d := maxDiff(n.Outputs[1].Float32s(), last); d > 1e-5 {
		t.Fatalf("output_state %v, want %v", n.Outputs[1].Float32s(), last)
	}
	if d := maxDiff(n.Inputs[1].Float32s(), last); d > 1e-5 {
		t.Fatalf("input_state after Eval %v, want %v", n.Inputs[1].Float32s(), last)
	}
}

// refGRUStep is a float64 GRU step for one row.
func refGRUStep(nIn, units int, gw, gb, cw, cb, x, h []float64) []float64 {
	W := nIn + units
	xh := append(slices.Clone(x), h...)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	r := make([]float64, units)
	u := make([]float64, units)
	for j := 0; j < 2*units; j++ {
		s := gb[j]
		for i := 0; i < W; i++ {
			s += gw[j*W+i] * xh[i]
		}
		if j < units {
			r[j] = sig(s)
		} else {
			u[j-units] = sig(s)
		}
	}
	for i := 0; i < units; i++ {
		xh[nIn+i] = r[i] * h[i]
	}
	out := make([]float64, units)
	for j := 0; j < units; j++ {
		s := cb[j]
		for i := 0; i < W; i++ {
			s += cw[j*W+i] * xh[i]
		}
		out[j] = (1-u[j])*math.Tanh(s) + u[j]*h[j]
	}
	return out
}

func TestGRUAgainstReference(t *testing.T) {
	for _, c := range []struct{ steps, batch, nIn, units int }{{5, 3, 4, 6}, {1, 1, 7, 2}, {3, 2, 1, 9}} {
		t.Run(fmt.Sprintf("%dx%dx%d_units%d", c.steps, c.batch, c.nIn, c.units), func(t *testing.T) {
			r := newTestRand(uint64(c.units))
			W := c.nIn + c.units
			a := 1 / math.Sqrt(float64(W))
			gw, gb := uniform(r, 2*c.units*W, a), uniform(r, 2*c.units, 0.5)
			cw, cb := uniform(r, c.units*W, a), uniform(r, c.units, 0.5)
			n := gruNode(c.steps, c.batch, c.nIn, c.units, gw, gb, cw, cb)
			k := NewUnidirectionalSequenceGRU()
			prepared(t, k, n)
			h := zeroStates(c.batch, c.units)
			// Two Evals: the state carries over through input_state.
			for pass := 0; pass < 2; pass++ {
				x := uniform(r, c.steps*c.batch*c.nIn, 1)
				copy(n.Inputs[0].Float32s(), x)
				evalN(t, k, n)
				var want []float64
				for s := 0; s < c.steps; s++ {
					for b := 0; b < c.batch; b++ {
						i := s*c.batch + b
						h[b] = refGRUStep(c.nIn, c.units, f64s(gw), f64s(gb), f64s(cw), f64s(cb), f64s(x[i*c.nIn:(i+1)*c.nIn]), h[b])
						want = append(want, h[b]...)
					}
				}
				checkClose(t, fmt.Sprintf("pass %d", pass), n.Outputs[0].Float32s(), want, 1e-5)
				checkClose(t, fmt.Sprintf("pass %d output_state", pass), n.Outputs[1].Float32s(), want[len(want)-c.batch*c.units:], 1e-5)
			}
		})
	}
}

func TestGRUEvalNoAllocs(t *testing.T) {
	r := newTestRand(1)
	n := gruNode(3, 2, 4, 5, uniform(r, 90, 0.3), uniform(r, 10, 0.3), uniform(r, 45, 0.3), uniform(r, 5, 0.3))
	k := NewUnidirectionalSequenceGRU()
	prepared(t, k, n)
	copy(n.Inputs[0].Float32s(), uniform(r, 24, 1))
	if a := testing.AllocsPerRun(20, func() { _ = k.Eval(n) }); a != 0 {
		t.Errorf("%v allocations per Eval", a)
	}
}

func TestGRUPrepareErrors(t *testing.T) {
	r := newTestRand(2)
	base := func() *ops.Node {
		return gruNode(2, 1, 3, 4, uniform(r, 56, 0.3), uniform(r, 8, 0.3), uniform(r, 28, 0.3), uniform(r, 4, 0.3))
	}
	cases := []struct {
		name string
		edit func(n *ops.Node)
		want string
	}{
		{"gate weight rows", func(n *ops.Node) { n.Inputs[2].Shape = []int{7, 8} }, "input 2 (gate_weight"},
		{"candidate weight columns", func(n *ops.Node) { n.Inputs[4].Shape = []int{4, 6} }, "input 4 (candidate_weight"},
		{"gate bias size", func(n *ops.Node) { n.Inputs[3].Shape = []int{4} }, "input 3 (gate_bias"},
		{"candidate bias missing", func(n *ops.Node) { n.Inputs[5] = nil }, "input 5 (candidate_bias) is required"},
		{"state not variable", func(n *ops.Node) { n.Inputs[1].Kind = ops.ArenaTensor }, "input 1 (input_state"},
		{"state rank", func(n *ops.Node) { n.Inputs[1].Shape = []int{4} }, "input 1 (input_state"},
		{"int8 gate weight, float32 candidate", func(n *ops.Node) { n.Inputs[2].Type = ops.Int8 }, "input 4 (candidate_weight, tensor 0) is float32, the hybrid path needs int8"},
		{"int8 weights unquantised", func(n *ops.Node) { n.Inputs[2].Type, n.Inputs[4].Type = ops.Int8, ops.Int8 }, "input 2 (gate_weight, tensor 0) (int8) has no quantization parameters"},
		{"int16 weights", func(n *ops.Node) { n.Inputs[2].Type = ops.Int16 }, "input 2 (gate_weight"},
		{"input rank 2", func(n *ops.Node) { n.Inputs[0].Shape = []int{2, 3} }, "input 0 (input"},
		{"one output", func(n *ops.Node) { n.Outputs = n.Outputs[:1] }, "outputs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := base()
			tc.edit(n)
			err := NewUnidirectionalSequenceGRU().Prepare(n)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// TestGRUPackedMatchesInPlace runs each GRU form with constant weights
// (packed at Prepare) and with the same weights as run-time tensors (read
// in place), over unit counts around the 16-row packing block, and
// demands the same outputs and final state up to float32 summation order.
func TestGRUPackedMatchesInPlace(t *testing.T) {
	rng := newTestRand(4242)
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.Float64()*2 - 1)
		}
		return v
	}
	for _, resetAfter := range []bool{false, true} {
		for _, units := range []int{1, 15, 16, 17, 40} {
			for _, nIn := range []int{1, 7} {
				for _, batch := range []int{1, 3} {
					const steps = 4
					W := nIn + units
					gw, gb, cw, cb, crb := rnd(2*units*W), rnd(2*units), rnd(units*W), rnd(units), rnd(units)
					x, h0 := rnd(steps*batch*nIn), rnd(batch*units)
					run := func(constant bool) (out, state []float32) {
						var n *ops.Node
						if resetAfter {
							n = gruResetAfterNode(steps, batch, nIn, units, gw, gb, cw, cb, crb)
						} else {
							n = gruNode(steps, batch, nIn, units, gw, gb, cw, cb)
						}
						if !constant {
							for _, i := range []int{gruGateWeight, gruCandidateWeight} {
								n.Inputs[i].Kind = ops.ArenaTensor
							}
						}
						k := NewUnidirectionalSequenceGRU()
						prepared(t, k, n)
						if packed := k.(*UnidirectionalSequenceGRU).gwP != nil; packed != constant {
							t.Fatalf("constant weights %v: packed %v", constant, packed)
						}
						copy(n.Inputs[0].Float32s(), x)
						copy(n.Inputs[1].Float32s(), h0)
						evalN(t, k, n)
						return append([]float32(nil), n.Outputs[0].Float32s()...), append([]float32(nil), n.Outputs[1].Float32s()...)
					}
					po, ps := run(true)
					io, is := run(false)
					name := fmt.Sprintf("resetAfter=%v units=%d nIn=%d batch=%d", resetAfter, units, nIn, batch)
					for i := range po {
						if math.Abs(float64(po[i]-io[i])) > 1e-5 {
							t.Fatalf("%s: output %d packed %v, in place %v", name, i, po[i], io[i])
						}
					}
					for i := range ps {
						if math.Abs(float64(ps[i]-is[i])) > 1e-5 {
							t.Fatalf("%s: state %d packed %v, in place %v", name, i, ps[i], is[i])
						}
					}
				}
			}
		}
	}
}
