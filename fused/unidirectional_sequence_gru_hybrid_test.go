package fused

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// quantRowsInt8 quantises a rows×cols float matrix to int8, symmetric in
// [-127, 127] (as the converter's dynamic-range quantiser does): one
// scale per row when perRow, else one for the tensor.
func quantRowsInt8(w []float32, rows, cols int, perRow bool) ([]int8, []float32) {
	nScales := 1
	if perRow {
		nScales = rows
	}
	maxAbs := make([]float64, nScales)
	for r := 0; r < rows; r++ {
		for _, v := range w[r*cols : (r+1)*cols] {
			s := 0
			if perRow {
				s = r
			}
			maxAbs[s] = math.Max(maxAbs[s], math.Abs(float64(v)))
		}
	}
	scales := make([]float32, nScales)
	for i, m := range maxAbs {
		scales[i] = 1
		if m > 0 {
			scales[i] = float32(m / 127)
		}
	}
	q := make([]int8, len(w))
	for r := 0; r < rows; r++ {
		s := scales[0]
		if perRow {
			s = scales[r]
		}
		for c, v := range w[r*cols : (r+1)*cols] {
			q[r*cols+c] = int8(max(-127, min(127, math.Round(float64(v)/float64(s)))))
		}
	}
	return q, scales
}

// int8Weight is a constant int8 tensor with the given scales (one, or one
// per row along dimension 0).
func int8Weight(shape []int, q []int8, scales []float32) *ops.Tensor {
	t := constTensor(ops.Int8, shape, q)
	t.Quant = &ops.Quantization{Scale: append([]float32(nil), scales...), ZeroPoint: make([]int64, len(scales))}
	return t
}

// gruCase is one GRU configuration of the hybrid tests, with float
// weights and their int8 versions.
type gruCase struct {
	steps, batch, nIn, units int
	resetAfter, perRow       bool
	gw, gb, cw, cb, crb      []float32
	gq, cq                   []int8
	gs, cs                   []float32
}

func newGRUCase(seed uint64, steps, batch, nIn, units int, resetAfter, perRow bool) *gruCase {
	r := newTestRand(seed)
	W := nIn + units
	a := 1.5 / math.Sqrt(float64(W))
	c := &gruCase{steps: steps, batch: batch, nIn: nIn, units: units, resetAfter: resetAfter, perRow: perRow}
	c.gw, c.gb = uniform(r, 2*units*W, a), uniform(r, 2*units, 0.5)
	c.cw, c.cb = uniform(r, units*W, a), uniform(r, units, 0.5)
	if resetAfter {
		c.crb = uniform(r, units, 0.5)
	}
	// Rows of different magnitudes, so per-row scales differ.
	for j := 0; j < 2*units; j++ {
		f := float32(0.25 + float64(j%3))
		for i := 0; i < W; i++ {
			c.gw[j*W+i] *= f
		}
	}
	c.gq, c.gs = quantRowsInt8(c.gw, 2*units, W, perRow)
	c.cq, c.cs = quantRowsInt8(c.cw, units, W, perRow)
	return c
}

func (c *gruCase) node(steps int, hybrid bool) *ops.Node {
	n := gruNode(steps, c.batch, c.nIn, c.units, c.gw, c.gb, c.cw, c.cb)
	if c.resetAfter {
		n.Inputs = append(n.Inputs, f32([]int{c.units}, c.crb))
	}
	if hybrid {
		W := c.nIn + c.units
		n.Inputs[gruGateWeight] = int8Weight([]int{2 * c.units, W}, c.gq, c.gs)
		n.Inputs[gruCandidateWeight] = int8Weight([]int{c.units, W}, c.cq, c.cs)
	}
	return n
}

func (c *gruCase) String() string {
	form := "reset_before"
	if c.resetAfter {
		form = "reset_after"
	}
	scales := "per_tensor"
	if c.perRow {
		scales = "per_row"
	}
	return fmt.Sprintf("%s_%s_T%d_B%d_in%d_u%d", form, scales, c.steps, c.batch, c.nIn, c.units)
}

var gruHybridCases = []*gruCase{
	newGRUCase(1, 6, 3, 5, 8, true, true),
	newGRUCase(2, 6, 3, 5, 8, true, false),
	newGRUCase(3, 5, 2, 4, 7, false, true),
	newGRUCase(4, 5, 2, 4, 7, false, false),
	newGRUCase(5, 8, 1, 1, 33, true, true),
	newGRUCase(6, 3, 4, 19, 16, false, true),
}

// hybridGRUTol is the tolerance of the hybrid GRU against the float GRU
// on these weights (|w| ≲ 1.5, inputs in [-1, 1)): 8-bit weights and
// activations give errors of a few 1e-3 (0.0034 at most here).
const hybridGRUTol = 0.01

// TestHybridGRUAgainstFloat: the hybrid path stays within the hybrid
// tolerance of the float kernel over several steps and two Evals.
func TestHybridGRUAgainstFloat(t *testing.T) {
	for _, c := range gruHybridCases {
		t.Run(c.String(), func(t *testing.T) {
			hn, fn := c.node(c.steps, true), c.node(c.steps, false)
			hk, fk := NewUnidirectionalSequenceGRU(), NewUnidirectionalSequenceGRU()
			prepared(t, hk, hn)
			prepared(t, fk, fn)
			if hk.(*UnidirectionalSequenceGRU).hy == nil {
				t.Fatal("int8 weights did not select the hybrid path")
			}
			r := newTestRand(99)
			worst := 0.0
			for pass := 0; pass < 2; pass++ {
				x := uniform(r, c.steps*c.batch*c.nIn, 1)
				copy(hn.Inputs[0].Float32s(), x)
				copy(fn.Inputs[0].Float32s(), x)
				evalN(t, hk, hn)
				evalN(t, fk, fn)
				d := maxDiff(hn.Outputs[0].Float32s(), f64s(fn.Outputs[0].Float32s()))
				worst = math.Max(worst, d)
				if d > hybridGRUTol {
					t.Fatalf("pass %d: hybrid differs from float by %g", pass, d)
				}
				if d := maxDiff(hn.Outputs[1].Float32s(), f64s(fn.Outputs[1].Float32s())); d > hybridGRUTol {
					t.Fatalf("pass %d: output_state differs by %g", pass, d)
				}
			}
			t.Logf("max |hybrid − float| %.3g", worst)
		})
	}
}

// refHybridGRUStep is the hybrid arithmetic in float64 for one step of
// every batch row from state h: x and h (and r⊙h for the reset-before
// candidate) quantised per row with TFLite's asymmetric quantiser, the
// int8 products exact in integers, everything after them in float64.
func refHybridGRUStep(c *gruCase, x, h []float32) []float64 {
	U, nIn, W := c.units, c.nIn, c.nIn+c.units
	scale := func(s []float32, r int) float64 {
		if len(s) == 1 {
			return float64(s[0])
		}
		return float64(s[r])
	}
	allZero := func(v []float32) bool {
		for _, e := range v {
			if e != 0 {
				return false
			}
		}
		return true
	}
	type qrow struct {
		q  []int8
		sf float64
		zp int64
	}
	quantRows := func(v []float32, n int) []qrow {
		rows := make([]qrow, len(v)/n)
		for b := range rows {
			q := make([]int8, n)
			sf, zp := ops.AsymmetricQuantizeFloats(v[b*n:(b+1)*n], q)
			rows[b] = qrow{q, float64(sf), int64(zp)}
		}
		return rows
	}
	// prod is Σ_c q_w[r, off+c]·q[c] − rowSum·zp, dequantised.
	prod := func(wq []int8, ws []float32, r, off, n int, v qrow) float64 {
		var dot, sum int64
		for i := 0; i < n; i++ {
			w := int64(wq[r*W+off+i])
			dot += w * int64(v.q[i])
			sum += w
		}
		return float64(dot-sum*v.zp) * v.sf * scale(ws, r)
	}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	xz, hz := allZero(x), allZero(h)
	qx, qh := quantRows(x, nIn), quantRows(h, U)
	out := make([]float64, c.batch*U)
	rh := make([]float32, c.batch*U)
	gates := make([][]float64, c.batch)
	for b := 0; b < c.batch; b++ {
		g := make([]float64, 2*U)
		for j := range g {
			s := float64(c.gb[j])
			if !xz {
				s += prod(c.gq, c.gs, j, 0, nIn, qx[b])
			}
			if !hz {
				s += prod(c.gq, c.gs, j, nIn, U, qh[b])
			}
			g[j] = sig(s)
		}
		gates[b] = g
		for j := 0; j < U; j++ {
			rh[b*U+j] = h[b*U+j] * float32(g[j])
		}
	}
	rhz := allZero(rh)
	qrh := quantRows(rh, U)
	for b := 0; b < c.batch; b++ {
		g := gates[b]
		for j := 0; j < U; j++ {
			s := float64(c.cb[j])
			if !xz {
				s += prod(c.cq, c.cs, j, 0, nIn, qx[b])
			}
			if c.resetAfter {
				hx := float64(c.crb[j])
				if !hz {
					hx += prod(c.cq, c.cs, j, nIn, U, qh[b])
				}
				s += g[j] * hx
			} else if !rhz {
				s += prod(c.cq, c.cs, j, nIn, U, qrh[b])
			}
			u := g[U+j]
			out[b*U+j] = (1-u)*math.Tanh(s) + u*float64(h[b*U+j])
		}
	}
	return out
}

// TestHybridGRUAgainstReference runs the hybrid kernel one step per Eval
// (the state carries over in input_state) and compares every step with
// the float64 reference of the same quantised arithmetic from the
// kernel's own previous state: the integer parts agree exactly, so only
// float32 rounding remains.
func TestHybridGRUAgainstReference(t *testing.T) {
	for _, c := range gruHybridCases {
		t.Run(c.String(), func(t *testing.T) {
			n := c.node(1, true)
			k := NewUnidirectionalSequenceGRU()
			prepared(t, k, n)
			r := newTestRand(7)
			worst := 0.0
			for step := 0; step < 2*c.steps; step++ {
				x := uniform(r, c.batch*c.nIn, 1)
				if step == 3 {
					clear(x) // the skipped input product
				}
				copy(n.Inputs[0].Float32s(), x)
				h := append([]float32(nil), n.Inputs[1].Float32s()...)
				want := refHybridGRUStep(c, x, h)
				evalN(t, k, n)
				d := maxDiff(n.Outputs[0].Float32s(), want)
				worst = math.Max(worst, d)
				if d > 1e-5 {
					t.Fatalf("step %d: max |diff| %g\n got %v\nwant %v", step, d, n.Outputs[0].Float32s(), want)
				}
			}
			t.Logf("max |kernel − reference| %.3g over %d steps", worst, 2*c.steps)
		})
	}
}

func TestHybridGRUEvalNoAllocs(t *testing.T) {
	for _, c := range gruHybridCases[:4] {
		n := c.node(c.steps, true)
		k := NewUnidirectionalSequenceGRU()
		prepared(t, k, n)
		copy(n.Inputs[0].Float32s(), uniform(newTestRand(3), c.steps*c.batch*c.nIn, 1))
		if a := testing.AllocsPerRun(20, func() { _ = k.Eval(n) }); a != 0 {
			t.Errorf("%s: %v allocations per Eval", c, a)
		}
	}
}

func TestHybridGRUPrepareErrors(t *testing.T) {
	c := gruHybridCases[0]
	for _, tc := range []struct {
		name string
		edit func(n *ops.Node)
		want string
	}{
		{"scale count", func(n *ops.Node) { n.Inputs[gruGateWeight].Quant.Scale = n.Inputs[gruGateWeight].Quant.Scale[:3] },
			"input 2 (gate_weight, tensor 0) has 3 scales, needs 1 (per tensor) or 16 (per row)"},
		{"zero point", func(n *ops.Node) { n.Inputs[gruCandidateWeight].Quant.ZeroPoint[2] = 1 },
			"input 4 (candidate_weight, tensor 0) has zero point 1 (channel 2)"},
		{"quantised dimension", func(n *ops.Node) { n.Inputs[gruGateWeight].Quant.QuantizedDimension = 1 },
			"quantised along dimension 1"},
		{"zero scale", func(n *ops.Node) { n.Inputs[gruCandidateWeight].Quant.Scale[0] = 0 },
			"has scale 0 (row 0)"},
		{"run-time weights", func(n *ops.Node) { n.Inputs[gruGateWeight].Kind = ops.ArenaTensor },
			"int8 but not a constant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := c.node(2, true)
			tc.edit(n)
			err := NewUnidirectionalSequenceGRU().Prepare(n)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
