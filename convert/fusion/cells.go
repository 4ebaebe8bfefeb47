package fusion

import "math"

// Reference recurrent cells in float64, in Keras's weight layout: a
// kernel [n_input, gates·units] and a recurrent kernel [units,
// gates·units] whose columns are grouped by gate (LSTM i, f, c, o; GRU z,
// r, h), row-major. The rules compare a composite's loop body with these
// to decide what it computes (and so which fused operator reproduces it).

// activation is a named elementwise function a Keras layer may use.
type activation struct {
	name string
	f    func(float64) float64
}

var (
	actSigmoid     = activation{"sigmoid", func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }}
	actTanh        = activation{"tanh", math.Tanh}
	actRelu        = activation{"relu", func(x float64) float64 { return math.Max(x, 0) }}
	actLinear      = activation{"linear", func(x float64) float64 { return x }}
	actHardSigmoid = activation{"hard_sigmoid", func(x float64) float64 { return math.Min(math.Max(0.2*x+0.5, 0), 1) }}
	// Keras 3 / TF ≥ 2.16 define hard_sigmoid as relu6(x+3)/6.
	actHardSigmoid6 = activation{"hard_sigmoid", func(x float64) float64 { return math.Min(math.Max(x+3, 0), 6) / 6 }}
	actRelu6        = activation{"relu6", func(x float64) float64 { return math.Min(math.Max(x, 0), 6) }}
)

// gateActivations are the candidates tried for a recurrent (gate)
// activation, activations those tried for the cell/output activation.
var (
	gateActivations = []activation{actSigmoid, actHardSigmoid, actHardSigmoid6, actTanh, actLinear}
	activations     = []activation{actTanh, actRelu, actRelu6, actSigmoid, actLinear}
)

// affine returns, per batch row, x·W (+ h·R) as vectors of width cols:
// x is [batch, nIn], W [nIn, cols]; h [batch, nH], R [nH, cols] (R may
// be nil).
func affine(x []float64, nIn int, W []float64, h []float64, nH int, R []float64, batch, cols int) []float64 {
	out := make([]float64, batch*cols)
	for b := 0; b < batch; b++ {
		o := out[b*cols : (b+1)*cols]
		for k := 0; k < nIn; k++ {
			xv := x[b*nIn+k]
			row := W[k*cols : (k+1)*cols]
			for j := range o {
				o[j] += xv * row[j]
			}
		}
		if R != nil {
			for k := 0; k < nH; k++ {
				hv := h[b*nH+k]
				row := R[k*cols : (k+1)*cols]
				for j := range o {
					o[j] += hv * row[j]
				}
			}
		}
	}
	return out
}

// lstmCell holds a Keras LSTM layer's weights as float64: W [nIn, 4u], R
// [u, 4u] (or, diagonal, [4u]: one recurrent weight per unit and gate), b
// [4u] (nil: no bias).
type lstmCell struct {
	nIn, units int
	W, R, b    []float64
	diagonal   bool
	// peep are TF1's peephole weights [units] of the input, forget and
	// output gates (nil: none); proj a projection [units, nOut] of the
	// output (nil: none, nOut = units), in which case R is [nOut, 4u].
	peep [3][]float64
	proj []float64
	nOut int
}

// outUnits is the width of h.
func (l *lstmCell) outUnits() int {
	if l.proj != nil {
		return l.nOut
	}
	return l.units
}

// step runs one Keras LSTM step for a batch: z = x·W + h·R + b, split
// into i, f, g, o; c' = rec(f)⊙c + rec(i)⊙act(g); h' = rec(o)⊙act(c').
func (l *lstmCell) step(x, h, c []float64, batch int, rec, act activation) (hNew, cNew []float64) {
	return l.apply(l.preact(x, h, batch), c, batch, rec, act)
}

// preact returns the gate pre-activations z = x·W + h·R + b [batch,
// 4·units], which do not depend on the activations (so that a fit over
// activations computes them once).
func (l *lstmCell) preact(x, h []float64, batch int) []float64 {
	u, g := l.units, 4*l.units
	var z []float64
	if l.diagonal {
		z = affine(x, l.nIn, l.W, nil, 0, nil, batch, g)
		for b := 0; b < batch; b++ {
			for j := 0; j < g; j++ {
				z[b*g+j] += h[b*u+j%u] * l.R[j]
			}
		}
	} else {
		z = affine(x, l.nIn, l.W, h, l.outUnits(), l.R, batch, g)
	}
	if l.b != nil {
		for b := 0; b < batch; b++ {
			zb := z[b*g : (b+1)*g]
			for j := range zb {
				zb[j] += l.b[j]
			}
		}
	}
	return z
}

// apply finishes a step from the pre-activations z.
func (l *lstmCell) apply(z, c []float64, batch int, rec, act activation) (hNew, cNew []float64) {
	u, g := l.units, 4*l.units
	hNew, cNew = make([]float64, batch*u), make([]float64, batch*u)
	peep := func(k, j int, v float64) float64 {
		if l.peep[k] == nil {
			return 0
		}
		return l.peep[k][j] * v
	}
	for b := 0; b < batch; b++ {
		zb := z[b*g : (b+1)*g]
		for k := 0; k < u; k++ {
			cp := c[b*u+k]
			i := rec.f(zb[k] + peep(0, k, cp))
			f := rec.f(zb[u+k] + peep(1, k, cp))
			cc := act.f(zb[2*u+k])
			cn := f*cp + i*cc
			o := rec.f(zb[3*u+k] + peep(2, k, cn))
			cNew[b*u+k] = cn
			hNew[b*u+k] = o * act.f(cn)
		}
	}
	if l.proj != nil {
		hNew = affine(hNew, u, l.proj, nil, 0, nil, batch, l.nOut)
	}
	return hNew, cNew
}

// gruCell holds a Keras GRU layer's weights: W [nIn, 3u], R [u, 3u], the
// input bias bIn [3u] and, with reset_after, the recurrent bias bRec [3u]
// (nil without it). Either bias may be nil (use_bias=False).
type gruCell struct {
	nIn, units int
	W, R       []float64
	bIn, bRec  []float64
	resetAfter bool
}

// step runs one Keras GRU step: with xz = x·W + bIn and hz = h·R + bRec,
// z = rec(xz_z + hz_z), r = rec(xz_r + hz_r), and the candidate
// act(xz_h + r⊙hz_h) with reset_after, act(xz_h + (r⊙h)·R_h) without;
// h' = z⊙h + (1−z)⊙candidate.
func (l *gruCell) step(x, h []float64, batch int, rec, act activation) []float64 {
	u, g := l.units, 3*l.units
	xz := affine(x, l.nIn, l.W, nil, 0, nil, batch, g)
	hz := affine(h, l.units, l.R, nil, 0, nil, batch, g)
	out := make([]float64, batch*u)
	for b := 0; b < batch; b++ {
		xb, hb := xz[b*g:(b+1)*g], hz[b*g:(b+1)*g]
		for j := 0; j < g; j++ {
			if l.bIn != nil {
				xb[j] += l.bIn[j]
			}
			if l.bRec != nil {
				hb[j] += l.bRec[j]
			}
		}
		hPrev := h[b*u : (b+1)*u]
		r := make([]float64, u)
		for k := 0; k < u; k++ {
			r[k] = rec.f(xb[u+k] + hb[u+k])
		}
		for k := 0; k < u; k++ {
			z := rec.f(xb[k] + hb[k])
			var pre float64
			if l.resetAfter {
				pre = xb[2*u+k] + r[k]*hb[2*u+k]
			} else {
				pre = xb[2*u+k]
				for m := 0; m < u; m++ {
					pre += r[m] * hPrev[m] * l.R[m*g+2*u+k]
				}
			}
			out[b*u+k] = z*hPrev[k] + (1-z)*act.f(pre)
		}
	}
	return out
}

// rnnCell holds a Keras SimpleRNN layer's weights: W [nIn, u], R [u, u],
// b [u] (nil: no bias).
type rnnCell struct {
	nIn, units int
	W, R, b    []float64
}

// step runs one SimpleRNN step: h' = act(x·W + b + h·R).
func (l *rnnCell) step(x, h []float64, batch int, act activation) []float64 {
	z := affine(x, l.nIn, l.W, h, l.units, l.R, batch, l.units)
	for b := 0; b < batch; b++ {
		for k := 0; k < l.units; k++ {
			v := z[b*l.units+k]
			if l.b != nil {
				v += l.b[k]
			}
			z[b*l.units+k] = act.f(v)
		}
	}
	return z
}

// cellTolerance is how far a probed loop body may be from a reference
// cell and still count as computing it: the body is folded in float32
// steps, the reference in float64, on values of order one.
const cellTolerance = 1e-4
