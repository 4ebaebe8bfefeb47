package fused

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TFLite's published SVDF test vectors (kernels/svdf_test.cc): batch 2,
// 4 units, input size 3, memory size 10, no bias, activation NONE; ten
// steps.
var (
	tfliteSVDFInput = []float32{
		0.12609188, -0.46347019, -0.89598465, 0.35867718, 0.36897406, 0.73463392,
		0.14278367, -1.64410412, -0.75222826, -0.57290924, 0.12729003, 0.7567004,
		0.49837467, 0.19278903, 0.26584083, 0.17660543, 0.52949083, -0.77931279,
		-0.11186574, 0.13164264, -0.05349274, -0.72674477, -0.5683046, 0.55900657,
		-0.68892461, 0.37783599, 0.18263303, -0.63690937, 0.44483393, -0.71817774,
		-0.81299269, -0.86831826, 1.43940818, -0.95760226, 1.82078898, 0.71135032,
		-1.45006323, -0.82251364, -1.69082689, -1.65087092, -1.89238167, 1.54172635,
		0.03966608, -0.24936394, -0.77526885, 2.06740379, -1.51439476, 1.43768692,
		0.11771342, -0.23761693, -0.65898693, 0.31088525, -1.55601168, -0.87661445,
		-0.89477462, 1.67204106, -0.53235275, -0.6230064, 0.29819036, 1.06939757,
	}
	tfliteSVDFGoldenRank1 = []float32{
		0.014899, -0.0517661, -0.143725, -0.00271883, -0.03004015, 0.09565311, 0.1587342, 0.00784263,
		0.068281, -0.162217, -0.152268, 0.00323521, 0.01582633, 0.03858774, -0.03001583, -0.02671271,
		-0.0317821, -0.0333089, 0.0609602, 0.0333759, -0.01432795, 0.05524484, 0.1101355, -0.02382665,
		-0.00623099, -0.077701, -0.391193, -0.0136691, -0.02333033, 0.02293761, 0.12338032, 0.04326871,
		0.201551, -0.164607, -0.179462, -0.0592739, 0.01064911, -0.17503069, 0.07821996, -0.00224009,
		0.0886511, -0.0875401, -0.269283, 0.0281379, -0.02282338, 0.09741908, 0.32973239, 0.12281385,
		-0.201174, -0.586145, -0.628624, -0.0330412, 0.24780814, -0.39304617, -0.22473189, 0.02589256,
		-0.0839096, -0.299329, 0.108746, 0.109808, 0.10084175, -0.06416984, 0.28936723, 0.0026358,
		0.419114, -0.237824, -0.422627, 0.175115, -0.2314795, -0.18584411, -0.4228974, -0.12928449,
		0.36726, -0.522303, -0.456502, -0.175475, 0.17012937, -0.34447709, 0.38505614, -0.28158101,
	}
	tfliteSVDFGoldenRank2 = []float32{
		-0.09623547, -0.10193135, 0.11083051, -0.0347917, 0.1141196, 0.12965347, -0.12652366, 0.01007236,
		-0.16396809, -0.21247184, 0.11259045, -0.04156673, 0.10132131, -0.06143532, -0.00924693, 0.10084561,
		0.01257364, 0.0506071, -0.19287863, -0.07162561, -0.02033747, 0.22673416, 0.15487903, 0.02525555,
		-0.1411963, -0.37054959, 0.01774767, 0.05867489, 0.09607603, -0.0141301, -0.08995658, 0.12867066,
		-0.27142537, -0.16955489, 0.18521598, -0.12528358, 0.00331409, 0.11167502, 0.02218599, -0.07309391,
		0.09593632, -0.28361851, -0.0773851, 0.17199151, -0.00075242, 0.33691186, -0.1536046, 0.16572715,
		-0.27916506, -0.27626723, 0.42615682, 0.3225764, -0.37472126, -0.55655634, -0.05013514, 0.289112,
		-0.24418658, 0.07540751, -0.1940318, -0.08911639, 0.00732617, 0.46737891, 0.26449674, 0.24888524,
		-0.17225097, -0.54660404, -0.38795233, 0.08389944, 0.07736043, -0.28260678, 0.15666828, 1.14949894,
		-0.57454878, -0.64704704, 0.73235172, -0.34616736, 0.21120001, -0.22927976, 0.02455296, -0.35906726,
	}
	tfliteSVDFFeatureRank1 = []float32{-0.31930989, -0.36118156, 0.0079667, 0.37613347,
		0.22197971, 0.12416199, 0.27901134, 0.27557442, 0.3905206, -0.36137494, -0.06634006, -0.10640851}
	tfliteSVDFFeatureRank2 = []float32{-0.31930989, 0.0079667, 0.39296314, 0.37613347,
		0.12416199, 0.15785322, 0.27901134, 0.3905206, 0.21931258, -0.36137494, -0.10640851, 0.31053296,
		-0.36118156, -0.0976817, -0.36916667, 0.22197971, 0.15294972, 0.38031587, 0.27557442, 0.39635518,
		-0.21580373, -0.06634006, -0.02702999, 0.27072677}
	tfliteSVDFTime = []float32{ // rank 1 uses the first 40, rank 2 all 80
		-0.31930989, 0.37613347, 0.27901134, -0.36137494, -0.36118156, 0.22197971, 0.27557442, -0.06634006, 0.0079667, 0.12416199,
		0.3905206, -0.10640851, -0.0976817, 0.15294972, 0.39635518, -0.02702999, 0.39296314, 0.15785322, 0.21931258, 0.31053296,
		-0.36916667, 0.38031587, -0.21580373, 0.27072677, 0.23622236, 0.34936687, 0.18174365, 0.35907319, -0.17493086, 0.324846,
		-0.10781813, 0.27201805, 0.14324132, -0.23681851, -0.27115166, -0.01580888, -0.14943552, 0.15465137, 0.09784451, -0.0337657,
		-0.14884081, 0.19931212, -0.36002168, 0.34663299, -0.11405486, 0.12672701, 0.39463779, -0.07886535, -0.06384811, 0.08249187,
		-0.26816407, -0.19905911, 0.29211238, 0.31264046, -0.28664589, 0.05698794, 0.11613581, 0.14078894, 0.02187902, -0.21781836,
		-0.15567942, 0.08693647, -0.38256618, 0.36580828, -0.22922277, -0.0226903, 0.12878349, -0.28122205, -0.10850525, -0.11955214,
		0.27179423, -0.04710215, 0.31069002, 0.22672787, 0.09580326, 0.08682203, 0.1258215, 0.1851041, 0.29228821, 0.12366763,
	}
)

// svdfNode builds an SVDF node from float weights: float32, or int8
// weights (quantised as TFLite's hybrid test does) when hybrid.
func svdfNode(batch, nIn, units, rank, memory int, wf, wt, bias []float32, act ops.Activation, hybrid, asym bool) *ops.Node {
	F := units * rank
	var wfT, wtT *ops.Tensor
	if hybrid {
		q1 := make([]int8, len(wf))
		s1 := ops.SymmetricQuantizeFloats(wf, q1)
		q2 := make([]int8, len(wt))
		s2 := ops.SymmetricQuantizeFloats(wt, q2)
		wfT = quant(constTensor(ops.Int8, []int{F, nIn}, q1), s1, 0)
		wtT = quant(constTensor(ops.Int8, []int{F, memory}, q2), s2, 0)
	} else {
		wfT, wtT = f32([]int{F, nIn}, wf), f32([]int{F, memory}, wt)
	}
	var biasT *ops.Tensor
	if bias != nil {
		biasT = f32([]int{units}, bias)
	}
	return &ops.Node{OpName: "SVDF", Op: ops.OpSVDF, Version: 1,
		Inputs:  []*ops.Tensor{actTensor(ops.Float32, batch, nIn), wfT, wtT, biasT, varTensor(ops.Float32, []int{batch, memory * F})},
		Outputs: []*ops.Tensor{outTensor(ops.Float32)},
		Options: &SVDFOptions{Rank: rank, Activation: act, AsymmetricQuantizeInputs: asym}}
}

func TestSVDFTFLiteVectors(t *testing.T) {
	for _, rank := range []int{1, 2} {
		for _, mode := range []string{"float", "hybrid", "hybrid-asym", "hybrid-uint8", "hybrid-uint8-asym"} {
			t.Run(fmt.Sprintf("rank%d/%s", rank, mode), func(t *testing.T) {
				const batch, units, nIn, memory = 2, 4, 3, 10
				wf, golden := tfliteSVDFFeatureRank1, tfliteSVDFGoldenRank1
				if rank == 2 {
					wf, golden = tfliteSVDFFeatureRank2, tfliteSVDFGoldenRank2
				}
				wt := tfliteSVDFTime[:units*rank*memory]
				n := svdfNode(batch, nIn, units, rank, memory, wf, wt, nil, ops.ActNone, mode != "float", strings.HasSuffix(mode, "asym"))
				if strings.Contains(mode, "uint8") {
					// TFLite's Uint8 hybrid tests store the int8 values in
					// uint8 tensors, and the kernel reads them as int8.
					n.Inputs[1].Type, n.Inputs[2].Type = ops.Uint8, ops.Uint8
				}
				k := NewSVDF()
				prepared(t, k, n)
				// TFLite's tolerances: float 1e-5, hybrid rank 1 0.004285,
				// rank 2 0.007175.
				tol := 1e-5
				if mode != "float" {
					tol = map[int]float64{1: 0.004285, 2: 0.007175}[rank]
				}
				for s := 0; s < 10; s++ {
					copy(n.Inputs[0].Float32s(), tfliteSVDFInput[s*batch*nIn:(s+1)*batch*nIn])
					evalN(t, k, n)
					want := f64s(golden[s*batch*units : (s+1)*batch*units])
					if d := maxDiff(n.Outputs[0].Float32s(), want); d > tol {
						t.Fatalf("step %d: max |diff| %g > %g\n got %v\nwant %v", s, d, tol, n.Outputs[0].Float32s(), want)
					}
				}
			})
		}
	}
}

// refSVDF is a float64 SVDF over one batch row: state[f][m], oldest first.
type refSVDF struct {
	nIn, units, rank, memory int
	wf, wt, bias             []float64
	act                      ops.Activation
	state                    [][]float64
}

func (r *refSVDF) step(x []float64) []float64 {
	F := r.units * r.rank
	if r.state == nil {
		r.state = make([][]float64, F)
		for f := range r.state {
			r.state[f] = make([]float64, r.memory)
		}
	}
	out := make([]float64, r.units)
	for f := 0; f < F; f++ {
		p := 0.0
		for i := 0; i < r.nIn; i++ {
			p += r.wf[f*r.nIn+i] * x[i]
		}
		copy(r.state[f], r.state[f][1:])
		r.state[f][r.memory-1] = p
		d := 0.0
		for m := 0; m < r.memory; m++ {
			d += r.wt[f*r.memory+m] * r.state[f][m]
		}
		out[f/r.rank] += d
	}
	for u := range out {
		if r.bias != nil {
			out[u] += r.bias[u]
		}
		out[u] = refActivation(r.act, out[u])
	}
	return out
}

func TestSVDFAgainstReference(t *testing.T) {
	const batch, nIn, units, memory, steps = 3, 5, 4, 3, 7
	for _, rank := range []int{1, 3} {
		for _, act := range []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActTanh} {
			for _, mode := range []string{"float", "hybrid", "hybrid-asym"} {
				t.Run(fmt.Sprintf("rank%d/%s/%s", rank, act, mode), func(t *testing.T) {
					r := newTestRand(uint64(rank*10) + uint64(act))
					F := units * rank
					wf := uniform(r, F*nIn, 0.5)
					wt := uniform(r, F*memory, 0.5)
					bias := uniform(r, units, 0.3)
					n := svdfNode(batch, nIn, units, rank, memory, wf, wt, bias, act, mode != "float", mode == "hybrid-asym")
					k := NewSVDF()
					prepared(t, k, n)
					refs := make([]*refSVDF, batch)
					for b := range refs {
						refs[b] = &refSVDF{nIn: nIn, units: units, rank: rank, memory: memory, wf: f64s(wf), wt: f64s(wt), bias: f64s(bias), act: act}
						if mode != "float" {
							refs[b].wf = dequantSym(wf)
							refs[b].wt = dequantSym(wt)
						}
					}
					tol := 1e-5
					if mode != "float" {
						tol = 0.01
					}
					for s := 0; s < steps; s++ {
						x := uniform(r, batch*nIn, 1)
						if s == 2 {
							clear(x) // the hybrid path skips an all-zero input
						}
						copy(n.Inputs[0].Float32s(), x)
						evalN(t, k, n)
						var want []float64
						for b := range refs {
							want = append(want, refs[b].step(f64s(x[b*nIn:b*nIn+nIn]))...)
						}
						checkClose(t, fmt.Sprintf("step %d", s), n.Outputs[0].Float32s(), want, tol)
					}
				})
			}
		}
	}
}

// dequantSym is w after TFLite's symmetric int8 quantisation.
func dequantSym(w []float32) []float64 {
	q := make([]int8, len(w))
	s := ops.SymmetricQuantizeFloats(w, q)
	out := make([]float64, len(w))
	for i, v := range q {
		out[i] = float64(v) * float64(s)
	}
	return out
}

// TestSVDFIntegerTFLiteVector is TFLite's BlackBoxTestInteger: the
// tensors are quantised with TFLite's test arithmetic over the ranges the
// test declares (which gives weights_feature and the state non-zero zero
// points that the kernel ignores), and the int8 outputs must match
// exactly over twelve steps.
func TestSVDFIntegerTFLiteVector(t *testing.T) {
	const batch, units, nIn, memory, rank = 2, 4, 3, 10, 1
	inScale, inZP := testQuantParams[int8](-1, 1)
	n := &ops.Node{OpName: "SVDF", Op: ops.OpSVDF, Version: 3,
		Inputs: []*ops.Tensor{
			quant(actTensor(ops.Int8, batch, nIn), inScale, inZP),
			quantTensor[int8](ops.Int8, []int{units, nIn}, tfliteSVDFFeatureRank1, -0.5, 0.5),
			quantTensor[int16](ops.Int16, []int{units, memory}, tfliteSVDFTime[:40], -1, 1),
			quantTensor[int32](ops.Int32, []int{units}, []float32{-0.0976817, 0.15294972, 0.39635518, -0.02702999}, -512, 512),
			varTensor(ops.Int16, []int{batch, memory * units}),
		},
		Outputs: []*ops.Tensor{outTensor(ops.Int8)},
		Options: &SVDFOptions{Rank: rank, Activation: ops.ActRelu}}
	sScale, sZP := testQuantParams[int16](-16, 16)
	quant(n.Inputs[4], sScale, sZP)
	oScale, oZP := testQuantParams[int8](-0.5, 0.5)
	quant(n.Outputs[0], oScale, oZP)
	k := NewSVDF()
	prepared(t, k, n)
	seq := [][]float32{
		{0.49837467, 0.19278903, 0.26584083, 0.17660543, 0.52949083, -0.77931279},
		{0.12609188, -0.46347019, -0.89598465, 0.35867718, 0.36897406, 0.73463392},
		{0.14278367, -1.64410412, -0.75222826, -0.57290924, 0.12729003, 0.7567004},
	}
	want := [][]int8{
		{-9, 24, 31, 1, -10, 10, -3, 0},
		{2, 4, -44, -7, -10, 32, 52, 1},
		{12, -17, 9, -8, 7, 16, -11, -8},
		{-26, 29, 28, 16, -23, 26, 30, -6},
		{-8, -25, -86, -5, -44, 59, 81, 15},
		{62, -16, -37, 3, 27, 14, 34, -10},
		{1, 24, -25, 23, 31, 61, 67, 11},
		{-64, -65, -128, -25, -53, 59, 127, 20},
		{20, -29, -20, -15, -28, 0, 8, -27},
		{54, 61, -67, 38, 38, 64, 115, 0},
		{-44, -75, -128, -20, -19, 93, 101, 35},
		{-5, -56, 30, -18, -40, -9, -8, -31},
	}
	for s, w := range want {
		copy(n.Inputs[0].Int8s(), testQuantize[int8](seq[s%3], inScale, inZP))
		evalN(t, k, n)
		if got := n.Outputs[0].Int8s(); !slices.Equal(got, w) {
			t.Fatalf("step %d: %v, want %v", s, got, w)
		}
	}
}

// int8StateNode builds TFLite Micro's int8-state SVDF for one batch row,
// input size 2, one filter (rank 1), memory 2, with scales chosen so that
// both requantisations are exact: input 0.5 (zero point 1), weights_feature
// 0.25, state 0.125 (zero point -2), weights_time 0.5, bias 0.0625, output
// 0.25 (zero point 3). Then input·weights_feature/state = 1 and
// state·weights_time/output = 1/4.
func int8StateNode() *ops.Node {
	n := &ops.Node{OpName: "SVDF", Op: ops.OpSVDF, Version: 3,
		Inputs: []*ops.Tensor{
			quant(actTensor(ops.Int8, 1, 2), 0.5, 1),
			quant(constTensor(ops.Int8, []int{1, 2}, []int8{3, 1}), 0.25, 0),
			quant(constTensor(ops.Int8, []int{1, 2}, []int8{5, 7}), 0.5, 0),
			quant(constTensor(ops.Int32, []int{1}, []int32{4}), 0.0625, 0),
			quant(varTensor(ops.Int8, []int{1, 2}), 0.125, -2),
		},
		Outputs: []*ops.Tensor{quant(outTensor(ops.Int8), 0.25, 3)},
		Options: &SVDFOptions{Rank: 1, Activation: ops.ActRelu}}
	return n
}

// TestSVDFInt8StateHandComputed checks TFLite Micro's int8-state SVDF on
// three steps worked out by hand (state starts at its zero point, -2):
//
//	step 1: x = [3, -1] → x−zp = [2, -2]; projection 3·2 + 1·(−2) = 4;
//	        state slot = 4 + (−2) = 2, state [−2, 2];
//	        time 5·(−2+2) + 7·(2+2) = 28; + bias 4 = 32; 32/4 = 8; + 3 = 11.
//	step 2: x = [−3, 5] → [−4, 4]; projection −12 + 4 = −8 → −10; state
//	        [2, −10]; time 5·4 + 7·(−8) = −36; + 4 = −32; /4 = −8; + 3 = −5.
//	step 3: x = [127, 127] → [126, 126]; projection 504 → 502 → clamped
//	        to 127; state [−10, 127]; time 5·(−8) + 7·129 = 863; + 4 = 867;
//	        ·1/4 → 217 (rounded); + 3 = 220 → clamped to 127.
func TestSVDFInt8StateHandComputed(t *testing.T) {
	n := int8StateNode()
	k := NewSVDF()
	prepared(t, k, n)
	st := n.Inputs[4].Int8s()
	st[0], st[1] = -2, -2 // the interpreter resets int8 state to its zero point
	steps := []struct {
		x     [2]int8
		state [2]int8
		out   int8
	}{
		{[2]int8{3, -1}, [2]int8{-2, 2}, 11},
		{[2]int8{-3, 5}, [2]int8{2, -10}, -5},
		{[2]int8{127, 127}, [2]int8{-10, 127}, 127},
	}
	for i, s := range steps {
		copy(n.Inputs[0].Int8s(), s.x[:])
		evalN(t, k, n)
		if got := n.Outputs[0].Int8s()[0]; got != s.out {
			t.Errorf("step %d: output %d, want %d", i+1, got, s.out)
		}
		if got := [2]int8{st[0], st[1]}; got != s.state {
			t.Errorf("step %d: state %v, want %v", i+1, got, s.state)
		}
	}
}

// TestSVDFInt8StateAgainstReference runs TFLite Micro's int8-state SVDF on
// random data next to a float64 model of the same quantised arithmetic
// (real-valued rescaling, round half away from zero): the outputs may
// differ only by the fixed-point multiplier's last-bit rounding.
func TestSVDFInt8StateAgainstReference(t *testing.T) {
	const batch, nIn, units, rank, memory, steps = 2, 6, 3, 2, 4, 8
	F := units * rank
	r := newTestRand(77)
	randI8 := func(n int) []int8 {
		v := make([]int8, n)
		for i := range v {
			v[i] = int8(r.IntN(255) - 127)
		}
		return v
	}
	wf, wt := randI8(F*nIn), randI8(F*memory)
	bias := make([]int32, units)
	for i := range bias {
		bias[i] = int32(r.IntN(2001) - 1000)
	}
	const inS, wfS, stS, wtS, outS = float32(0.02), float32(0.004), float32(0.05), float32(0.003), float32(0.08)
	const inZP, stZP, outZP = int32(-5), int32(7), int32(-20)
	n := &ops.Node{OpName: "SVDF", Op: ops.OpSVDF, Version: 3,
		Inputs: []*ops.Tensor{
			quant(actTensor(ops.Int8, batch, nIn), inS, inZP),
			quant(constTensor(ops.Int8, []int{F, nIn}, wf), wfS, 0),
			quant(constTensor(ops.Int8, []int{F, memory}, wt), wtS, 0),
			quant(constTensor(ops.Int32, []int{units}, bias), stS*wtS, 0),
			quant(varTensor(ops.Int8, []int{batch, memory * F}), stS, stZP),
		},
		Outputs: []*ops.Tensor{quant(outTensor(ops.Int8), outS, outZP)},
		Options: &SVDFOptions{Rank: rank, Activation: ops.ActRelu}}
	k := NewSVDF()
	prepared(t, k, n)
	for i := range n.Inputs[4].Int8s() {
		n.Inputs[4].Int8s()[i] = int8(stZP)
	}
	// The reference state, in quantised values.
	state := make([][]float64, batch*F)
	for i := range state {
		state[i] = slices.Repeat([]float64{float64(stZP)}, memory)
	}
	s1 := float64(inS) * float64(wfS) / float64(stS)
	s2 := float64(stS) * float64(wtS) / float64(outS)
	clamp := func(v float64) float64 { return math.Max(-128, math.Min(127, v)) }
	worst := 0.0
	for s := 0; s < steps; s++ {
		x := randI8(batch * nIn)
		copy(n.Inputs[0].Int8s(), x)
		evalN(t, k, n)
		got := n.Outputs[0].Int8s()
		for b := 0; b < batch; b++ {
			acc := make([]float64, units)
			for f := 0; f < F; f++ {
				p := 0.0
				for i := 0; i < nIn; i++ {
					p += float64(wf[f*nIn+i]) * float64(int32(x[b*nIn+i])-inZP)
				}
				st := state[b*F+f]
				copy(st, st[1:])
				st[memory-1] = clamp(math.Round(p*s1) + float64(stZP))
				d := 0.0
				for m := 0; m < memory; m++ {
					d += float64(wt[f*memory+m]) * (st[m] - float64(stZP))
				}
				acc[f/rank] += d
			}
			for u := 0; u < units; u++ {
				want := clamp(math.Round((acc[u]+float64(bias[u]))*s2) + float64(outZP))
				d := math.Abs(float64(got[b*units+u]) - want)
				worst = math.Max(worst, d)
				if d > 1 {
					t.Fatalf("step %d batch %d unit %d: %d, float64 model %v", s, b, u, got[b*units+u], want)
				}
			}
		}
		// Keep the reference state on the kernel's (they may differ by the
		// last bit of a rounding).
		for b := 0; b < batch; b++ {
			for f := 0; f < F; f++ {
				for m := 0; m < memory; m++ {
					v := float64(n.Inputs[4].Int8s()[(b*F+f)*memory+m])
					if math.Abs(v-state[b*F+f][m]) > 1 {
						t.Fatalf("step %d: state (%d, %d, %d) = %v, float64 model %v", s, b, f, m, v, state[b*F+f][m])
					}
					state[b*F+f][m] = v
				}
			}
		}
	}
	t.Logf("max |tflrun - float64 model| = %g output steps", worst)
}

func TestSVDFEvalNoAllocs(t *testing.T) {
	r := newTestRand(4)
	for _, mode := range []string{"float", "hybrid", "hybrid-asym"} {
		n := svdfNode(2, 5, 3, 2, 4, uniform(r, 30, 0.5), uniform(r, 24, 0.5), uniform(r, 3, 0.2), ops.ActRelu, mode != "float", mode == "hybrid-asym")
		k := NewSVDF()
		prepared(t, k, n)
		copy(n.Inputs[0].Float32s(), uniform(r, 10, 1))
		if a := testing.AllocsPerRun(20, func() { _ = k.Eval(n) }); a != 0 {
			t.Errorf("%s: %v allocations per Eval", mode, a)
		}
	}
	n := int8StateNode()
	k := NewSVDF()
	prepared(t, k, n)
	if a := testing.AllocsPerRun(20, func() { _ = k.Eval(n) }); a != 0 {
		t.Errorf("int8 state: %v allocations per Eval", a)
	}
}

func TestSVDFPrepareErrors(t *testing.T) {
	r := newTestRand(8)
	base := func() *ops.Node {
		return svdfNode(1, 3, 2, 2, 4, uniform(r, 12, 0.5), uniform(r, 16, 0.5), uniform(r, 2, 0.2), ops.ActNone, false, false)
	}
	cases := []struct {
		name string
		edit func(n *ops.Node)
		want string
	}{
		{"rank 0", func(n *ops.Node) { n.Options = &SVDFOptions{Rank: 0} }, "rank"},
		{"rank does not divide filters", func(n *ops.Node) { n.Options = &SVDFOptions{Rank: 3} }, "not a multiple of rank 3"},
		{"weights_feature input size", func(n *ops.Node) { n.Inputs[1].Shape = []int{4, 2} }, "input 1 (weights_feature"},
		{"weights_time rows", func(n *ops.Node) { n.Inputs[2].Shape = []int{8, 2} }, "input 2 (weights_time"},
		{"memory 0", func(n *ops.Node) { n.Inputs[2].Shape = []int{4, 0} }, "memory_size"},
		{"bias size", func(n *ops.Node) { n.Inputs[3].Shape = []int{4} }, "input 3 (bias"},
		{"state size", func(n *ops.Node) { n.Inputs[4].Shape = []int{1, 15} }, "input 4 (state"},
		{"state not variable", func(n *ops.Node) { n.Inputs[4].Kind = ops.ArenaTensor }, "input 4 (state"},
		{"weights_feature missing", func(n *ops.Node) { n.Inputs[1] = nil }, "input 1 (weights_feature) is required"},
		{"int16 input", func(n *ops.Node) { n.Inputs[0].Type = ops.Int16 }, "input 0 (input"},
		{"integer input with float weights_time", func(n *ops.Node) { n.Inputs[0].Type = ops.Int8 }, "input 2 (weights_time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := base()
			tc.edit(n)
			err := NewSVDF().Prepare(n)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
	// The integer path needs RELU (TFLite) and, for TFLite Micro's int8
	// state, a bias at state × weights_time scale.
	n := int8StateNode()
	n.Inputs[3].Quant.Scale[0] = 0.5
	if err := NewSVDF().Prepare(n); err == nil || !strings.Contains(err.Error(), "input 3 (bias") {
		t.Fatalf("bias scale mismatch: %v", err)
	}
}
