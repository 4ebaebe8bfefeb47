package fused

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Fuzz targets that run one recurrent node at every instruction-set level
// this process can use (arch.Levels) on the same fuzzer-chosen node,
// weights, inputs and initial state, and compare every level's outputs and
// final state with the portable (generic) level's: the pattern of
// klauspost/compress, whose fuzzers compare the assembly with the pure Go
// path. The configuration bytes choose the operator, its shapes and its
// type path; the seed its values.
//
//	go test ./fused -run='^$' -fuzz=FuzzLSTM -fuzztime=2m
//
// The integer paths must agree bit for bit. The float and hybrid paths sum
// their products in another order at each level and go through vector
// sigmoid and tanh approximations that agree with the portable ones to a
// few ulps (arch's own fuzz targets bound both), so their outputs are
// compared within recurrentTol, relative to 1 + |generic value|, widened
// where the configuration itself amplifies rounding (see atEveryLevel).

// recurrentTol bounds the difference between levels of float outputs of
// the recurrent kernels: a few float32 ulps per activation and per sum,
// over at most a handful of steps.
const recurrentTol = 2e-5

// fuzzCfg draws small numbers from the fuzzer's configuration bytes;
// past their end it yields zeros.
type fuzzCfg struct {
	b []byte
	i int
}

// intn returns a value in [0, n).
func (c *fuzzCfg) intn(n int) int {
	if c.i >= len(c.b) || n <= 1 {
		c.i++
		return 0
	}
	v := int(c.b[c.i]) % n
	c.i++
	return v
}

// between returns a value in [lo, hi].
func (c *fuzzCfg) between(lo, hi int) int { return lo + c.intn(hi-lo+1) }

func (c *fuzzCfg) flag() bool { return c.intn(2) == 1 }

// randomizeInputs fills every non-constant input (the sequence and the
// state variables) with random values: floats in [-1, 1), integers over
// their whole range.
func randomizeInputs(r *rand.Rand, n *ops.Node) {
	for _, t := range n.Inputs {
		if t == nil || t.Kind == ops.ConstTensor || len(t.Data) == 0 {
			continue
		}
		switch t.Type {
		case ops.Float32:
			v := t.Float32s()
			for i := range v {
				v[i] = float32(2*r.Float64() - 1)
			}
		default:
			for i := range t.Data {
				t.Data[i] = byte(r.Uint32())
			}
		}
	}
}

// levelRun is what one level's run of a node produced.
type levelRun struct {
	err  error
	outs []*ops.Tensor
}

// runLevel prepares n and evaluates it twice (the second Eval starts from
// the state the first left); perturb, when set, is applied to the inputs
// first.
func runLevel(k ops.Kernel, n *ops.Node, perturb func(*ops.Node)) levelRun {
	if perturb != nil {
		perturb(n)
	}
	run := levelRun{err: prepareNode(k, n)}
	for e := 0; e < 2 && run.err == nil; e++ {
		run.err = k.Eval(n)
	}
	run.outs = append(run.outs, n.Outputs...)
	for _, in := range n.Inputs {
		if in != nil && in.Kind == ops.VariableTensor {
			run.outs = append(run.outs, in)
		}
	}
	return run
}

// ulpPerturb returns a perturbation that scales every float input of a
// node, weights included, by 1 ± 2⁻²³ (one float32 ulp), the sign chosen
// per element by pattern: a change of the size the levels' different
// rounding makes.
func ulpPerturb(pattern int) func(*ops.Node) {
	return func(n *ops.Node) {
		for _, t := range n.Inputs {
			if t == nil || t.Type != ops.Float32 {
				continue
			}
			v := t.Float32s()
			for i := range v {
				up := (i+pattern)%2 == 0
				if pattern == 2 {
					up = true
				}
				if up {
					v[i] *= 1 + 0x1p-23
				} else {
					v[i] *= 1 - 0x1p-23
				}
			}
		}
	}
}

// atEveryLevel builds the node (build must make the same node, with fresh
// tensors, every time), runs it at every level (see runLevel), and fails
// unless every level gives the generic level's error and outputs and
// state. tol > 0 compares float32 values within tol·(1 + |generic|) plus
// 16 times how far the generic result itself moves when the inputs and
// weights move by one ulp (the largest of three ulpPerturb patterns): some
// recurrent configurations amplify rounding (a layer norm over two nearly
// equal gate values), and there the levels' rounding differences are
// amplified alike without either being wrong.
func atEveryLevel(t *testing.T, tol float64, build func() (ops.Kernel, *ops.Node)) {
	t.Helper()
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	var ref levelRun
	var moved []levelRun
	for i, l := range arch.Levels() {
		if err := arch.Use(l); err != nil {
			t.Fatal(err)
		}
		k, n := build()
		if n == nil {
			return
		}
		run := runLevel(k, n, nil)
		if i == 0 {
			ref = run
			for p := 0; tol > 0 && ref.err == nil && p < 3; p++ {
				k, n := build()
				moved = append(moved, runLevel(k, n, ulpPerturb(p)))
			}
			continue
		}
		compareRuns(t, l, ref, moved, run, tol)
	}
}

// prepareNode runs Prepare and allocates the outputs and scratch, as the
// interpreter does.
func prepareNode(k ops.Kernel, n *ops.Node) error {
	n.ResetScratch()
	if err := k.Prepare(n); err != nil {
		return err
	}
	for _, out := range n.Outputs {
		out.Data = alignedBytes(out.Bytes())
	}
	for _, sz := range n.ScratchSizes() {
		n.Scratch = append(n.Scratch, alignedBytes(sz))
	}
	return nil
}

func compareRuns(t *testing.T, l arch.Level, ref levelRun, moved []levelRun, got levelRun, tol float64) {
	t.Helper()
	if (ref.err == nil) != (got.err == nil) || ref.err != nil && ref.err.Error() != got.err.Error() {
		t.Fatalf("level %s: error %v, generic: %v", l, got.err, ref.err)
	}
	if ref.err != nil {
		return
	}
	for j, w := range ref.outs {
		g := got.outs[j]
		if g.Type != w.Type || !ops.SameShape(g.Shape, w.Shape) {
			t.Fatalf("level %s: tensor %d is %s%v, generic %s%v", l, j, g.Type, g.Shape, w.Type, w.Shape)
		}
		nb := w.Bytes()
		if w.Type == ops.Float32 && tol > 0 {
			gv, wv := g.Float32s()[:nb/4], w.Float32s()[:nb/4]
			for i := range wv {
				a, b := float64(gv[i]), float64(wv[i])
				bound := tol * (1 + math.Abs(b))
				spread := 0.0
				for _, m := range moved {
					if m.err == nil {
						spread = max(spread, math.Abs(float64(m.outs[j].Float32s()[i])-b))
					}
				}
				bound += 16 * spread
				if a != b && !(a != a && b != b) && !(math.Abs(a-b) <= bound) {
					t.Fatalf("level %s: tensor %d [%d] = %v, generic %v (bound %.3g)", l, j, i, gv[i], wv[i], bound)
				}
			}
			continue
		}
		if !bytes.Equal(g.Data[:nb], w.Data[:nb]) {
			for i := 0; i < nb; i++ {
				if g.Data[i] != w.Data[i] {
					t.Fatalf("level %s: tensor %d (%s%v) differs from generic at byte %d", l, j, w.Type, w.Shape, i)
				}
			}
		}
	}
}

// fuzzRecurrentActs are the activations the RNN family and SVDF take.
var fuzzRecurrentActs = []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActReluN1To1, ops.ActRelu6, ops.ActTanh, ops.ActSignBit}

// FuzzLSTM runs UNIDIRECTIONAL_SEQUENCE_LSTM on its float32, hybrid
// (symmetric and asymmetric) and full-integer paths with every optional
// part (CIFG, peephole, layer norm, projection with or without bias,
// diagonal recurrent weights, clipping) and either layout.
func FuzzLSTM(f *testing.F) {
	// mode, batch, time, nIn, nCell, cifg, peephole, layerNorm, proj, projBias, diag, timeMajor, nOut, clip
	f.Add([]byte{0, 1, 2, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint64(1))
	f.Add([]byte{1, 0, 3, 7, 3, 1, 1, 0, 1, 1, 0, 1, 2, 1}, uint64(2))
	f.Add([]byte{2, 2, 1, 16, 8, 0, 1, 1, 0, 0, 0, 0, 0, 0}, uint64(3))
	f.Add([]byte{3, 1, 2, 5, 4, 0, 0, 1, 1, 0, 0, 1, 3, 0}, uint64(4))
	f.Add([]byte{3, 0, 3, 9, 6, 1, 1, 1, 0, 0, 0, 0, 0, 1}, uint64(5))
	f.Add([]byte{0, 2, 1, 3, 7, 0, 0, 0, 0, 0, 1, 0, 0, 0}, uint64(6))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		mode := (&fuzzCfg{b: cfg}).intn(4) // float32, hybrid, hybrid asymmetric, integer
		tol := recurrentTol
		if mode == 3 {
			tol = 0
		}
		atEveryLevel(t, tol, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, newTestRand(seed)
			_ = c.intn(4)
			s := &lstmSpec{
				batch: c.between(1, 3), time: c.between(1, 4), nIn: c.between(1, 20), nCell: c.between(1, 12),
				cifg: c.flag(), peephole: c.flag(), layerNorm: c.flag(), proj: c.flag(), projBias: c.flag(),
				diag: c.flag() && mode < 3, timeMajor: c.flag(), act: ops.ActTanh,
			}
			s.nOut = s.nCell
			if s.proj {
				s.nOut = c.between(1, 8)
			} else {
				s.projBias = false
				_ = c.intn(1)
			}
			if c.flag() {
				s.cellClip, s.projClip = 3, 2
			}
			s.randomize(r)
			x := s.randomInput(r)
			var n *ops.Node
			switch mode {
			case 0:
				n = s.node(x)
			case 1, 2:
				n, _ = hybridSpecNode(s, x, mode == 2)
			default:
				n, _, _, _, _ = integerSpecNode(s, x)
			}
			randomizeInputs(r, n)
			return NewUnidirectionalSequenceLSTM(), n
		})
	})
}

// FuzzRNN runs RNN, UNIDIRECTIONAL_SEQUENCE_RNN and
// BIDIRECTIONAL_SEQUENCE_RNN (merged or not, with an auxiliary input or
// not) on their float32 and hybrid (symmetric and asymmetric) paths.
func FuzzRNN(f *testing.F) {
	// kind, mode, batch, steps, nIn, units, act, timeMajor, bwUnits, merge, aux
	f.Add([]byte{0, 0, 1, 1, 4, 5, 4}, uint64(1))
	f.Add([]byte{1, 1, 2, 3, 9, 7, 1, 1}, uint64(2))
	f.Add([]byte{2, 2, 0, 2, 5, 3, 4, 0, 2, 1, 1}, uint64(3))
	f.Add([]byte{2, 0, 1, 3, 17, 16, 0, 1, 5, 0, 2}, uint64(4))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		atEveryLevel(t, recurrentTol, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, newTestRand(seed)
			kind, mode := c.intn(3), c.intn(3)
			hybrid, asym := mode > 0, mode == 2
			batch, steps, nIn, units := c.between(1, 3), c.between(1, 4), c.between(1, 20), c.between(1, 20)
			act := fuzzRecurrentActs[c.intn(len(fuzzRecurrentActs))]
			timeMajor := c.flag()
			var k ops.Kernel
			var n *ops.Node
			switch kind {
			case 0:
				n, _ = rnnNode(newRNNWeights(r, units, nIn, 0), batch, act, hybrid, asym)
				k = NewRNN()
			case 1:
				n, _ = seqNode(newRNNWeights(r, units, nIn, 0), batch, steps, timeMajor, act, hybrid, asym)
				k = NewUnidirectionalSequenceRNN()
			default:
				bc := birnnCase{batch: batch, steps: steps, nIn: nIn, nAux: c.between(1, 6), fwU: units, bwU: c.between(1, 12),
					timeMajor: timeMajor, merge: c.flag(), aux: []string{"", "cross", "bw"}[c.intn(3)],
					hybrid: hybrid, asym: asym, act: act}
				n = newBiRNN(r.Uint64(), bc).n
				k = NewBidirectionalSequenceRNN()
			}
			randomizeInputs(r, n)
			return k, n
		})
	})
}

// FuzzGRU runs the custom UNIDIRECTIONAL_SEQUENCE_GRU, in TFLite's form
// and in the reset-after form, with constant (packed) or computed weights.
func FuzzGRU(f *testing.F) {
	// steps, batch, nIn, units, resetAfter, constWeights
	f.Add([]byte{2, 1, 4, 5, 0, 1}, uint64(1))
	f.Add([]byte{1, 2, 9, 16, 1, 1}, uint64(2))
	f.Add([]byte{3, 0, 3, 7, 1, 0}, uint64(3))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		atEveryLevel(t, recurrentTol, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, newTestRand(seed)
			steps, batch, nIn, units := c.between(1, 4), c.between(1, 3), c.between(1, 20), c.between(1, 20)
			W := nIn + units
			gw, gb := uniform(r, 2*units*W, 0.3), uniform(r, 2*units, 0.3)
			cw, cb := uniform(r, units*W, 0.3), uniform(r, units, 0.3)
			var n *ops.Node
			if c.flag() {
				n = gruResetAfterNode(steps, batch, nIn, units, gw, gb, cw, cb, uniform(r, units, 0.3))
			} else {
				n = gruNode(steps, batch, nIn, units, gw, gb, cw, cb)
			}
			if !c.flag() {
				for _, in := range n.Inputs[2:] {
					in.Kind = ops.ArenaTensor // weights computed at run time: read in place
				}
			}
			randomizeInputs(r, n)
			return NewUnidirectionalSequenceGRU(), n
		})
	})
}

// FuzzSVDF runs SVDF on its float32, hybrid (symmetric and asymmetric) and
// integer (int16 or int8 state) paths with every rank, memory size and
// activation.
func FuzzSVDF(f *testing.F) {
	// mode, batch, nIn, units, rank, memory, act, bias
	f.Add([]byte{0, 1, 4, 3, 0, 3, 1, 1}, uint64(1))
	f.Add([]byte{1, 0, 9, 5, 1, 9, 0, 0}, uint64(2))
	f.Add([]byte{2, 2, 17, 8, 2, 4, 3, 1}, uint64(3))
	f.Add([]byte{3, 1, 3, 4, 0, 9, 1, 1}, uint64(4))
	f.Add([]byte{4, 0, 5, 2, 1, 2, 1, 1}, uint64(5))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		mode := (&fuzzCfg{b: cfg}).intn(5) // float32, hybrid, hybrid asymmetric, int16 state, int8 state
		tol := recurrentTol
		if mode >= 3 {
			tol = 0
		}
		atEveryLevel(t, tol, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, newTestRand(seed)
			_ = c.intn(5)
			batch, nIn, units, rank, memory := c.between(1, 3), c.between(1, 20), c.between(1, 10), c.between(1, 3), c.between(1, 10)
			act := fuzzRecurrentActs[c.intn(4)]
			withBias := c.flag()
			F := units * rank
			var n *ops.Node
			if mode < 3 {
				var bias []float32
				if withBias {
					bias = uniform(r, units, 0.5)
				}
				n = svdfNode(batch, nIn, units, rank, memory, uniform(r, F*nIn, 0.5), uniform(r, F*memory, 0.5), bias, act, mode > 0, mode == 2)
			} else {
				n = integerSVDFNode(r, batch, nIn, units, rank, memory, act, withBias, mode == 4)
			}
			randomizeInputs(r, n)
			return NewSVDF(), n
		})
	})
}

// integerSVDFNode builds an integer SVDF (TFLite's int16 state, or TFLite
// Micro's int8 state) with random weights quantised as TFLite's tests do.
func integerSVDFNode(r *rand.Rand, batch, nIn, units, rank, memory int, act ops.Activation, withBias, int8State bool) *ops.Node {
	F := units * rank
	inScale, inZP := testQuantParams[int8](-1, 1)
	var bias *ops.Tensor
	if withBias {
		bias = quantTensor[int32](ops.Int32, []int{units}, uniform(r, units, 0.5), -512, 512)
	}
	wt := quantTensor[int16](ops.Int16, []int{F, memory}, uniform(r, F*memory, 1), -1, 1)
	state := varTensor(ops.Int16, []int{batch, memory * F})
	sScale, sZP := testQuantParams[int16](-16, 16)
	if int8State {
		wt = quantTensor[int8](ops.Int8, []int{F, memory}, uniform(r, F*memory, 1), -1, 1)
		state = varTensor(ops.Int8, []int{batch, memory * F})
		sScale, sZP = testQuantParams[int8](-16, 16)
		if withBias {
			// TFLite Micro's int8 SVDF wants the bias at state × weights_time
			// scale.
			bs := sScale * wt.Quant.Scale[0]
			bq := make([]int32, units)
			for i, v := range uniform(r, units, 0.5) {
				bq[i] = int32(math.Round(float64(v / bs)))
			}
			bias = quant(constTensor(ops.Int32, []int{units}, bq), bs, 0)
		}
	}
	n := &ops.Node{OpName: "SVDF", Op: ops.OpSVDF, Version: 3,
		Inputs: []*ops.Tensor{
			quant(actTensor(ops.Int8, batch, nIn), inScale, inZP),
			quantTensor[int8](ops.Int8, []int{F, nIn}, uniform(r, F*nIn, 0.5), -0.5, 0.5),
			wt, bias, quant(state, sScale, sZP),
		},
		Outputs: []*ops.Tensor{outTensor(ops.Int8)},
		Options: &SVDFOptions{Rank: rank, Activation: act}}
	oScale, oZP := testQuantParams[int8](-0.5, 0.5)
	quant(n.Outputs[0], oScale, oZP)
	return n
}
