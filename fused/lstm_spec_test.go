package fused

import (
	"math"
	"math/rand/v2"

	"github.com/tflrun/tflrun/ops"
)

// lstmSpec describes a float UNIDIRECTIONAL_SEQUENCE_LSTM for tests: sizes,
// variant flags and weights (gate order input, forget, cell, output).
type lstmSpec struct {
	batch, time, nIn, nCell, nOut int
	timeMajor                     bool
	cifg, peephole, layerNorm     bool
	proj, projBias, diag          bool
	legacy20                      bool // 20-input form
	act                           ops.Activation
	cellClip, projClip            float32

	wx, wh, wc, bias, ln [numGates][]float32
	wp, bp               []float32

	// nAux > 0 adds an auxiliary input of nAux values per row with
	// weights wAux (BIDIRECTIONAL_SEQUENCE_LSTM's cross links).
	nAux int
	wAux [numGates][]float32
}

// randomize fills the weights with values of order 1/sqrt(fan-in), biases
// in [-0.5, 0.5) and layer-norm coefficients in [0.5, 1.5).
func (s *lstmSpec) randomize(rng *rand.Rand) {
	u := func(n int, lo, hi float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(lo + (hi-lo)*rng.Float64())
		}
		return v
	}
	ax := 1 / math.Sqrt(float64(s.nIn))
	ah := 1 / math.Sqrt(float64(s.nOut))
	for g := 0; g < numGates; g++ {
		if g == gateInput && s.cifg {
			continue
		}
		s.wx[g] = u(s.nCell*s.nIn, -ax, ax)
		if s.nAux > 0 {
			s.wAux[g] = u(s.nCell*s.nAux, -1/math.Sqrt(float64(s.nAux)), 1/math.Sqrt(float64(s.nAux)))
		}
		if s.diag {
			s.wh[g] = u(s.nCell, -1, 1)
		} else {
			s.wh[g] = u(s.nCell*s.nOut, -ah, ah)
		}
		if s.peephole && g != gateCell {
			s.wc[g] = u(s.nCell, -0.5, 0.5)
		}
		s.bias[g] = u(s.nCell, -0.5, 0.5)
		if s.layerNorm {
			s.ln[g] = u(s.nCell, 0.5, 1.5)
		}
	}
	if s.proj {
		ap := 1 / math.Sqrt(float64(s.nCell))
		s.wp = u(s.nOut*s.nCell, -ap, ap)
		if s.projBias {
			s.bp = u(s.nOut, -0.5, 0.5)
		}
	}
}

// inputShape is the input tensor's shape for the spec's layout.
func (s *lstmSpec) inputShape() []int {
	if s.timeMajor {
		return []int{s.time, s.batch, s.nIn}
	}
	return []int{s.batch, s.time, s.nIn}
}

// node builds the LSTM node over the input data x (laid out as
// inputShape), with zero state and an unallocated float32 output.
func (s *lstmSpec) node(x []float32) *ops.Node {
	nIn := lstmFullInputCount
	if s.legacy20 {
		nIn = lstmLegacyInputCount
	}
	in := make([]*ops.Tensor, nIn)
	in[lstmInputTensor] = &ops.Tensor{Type: ops.Float32, Shape: s.inputShape(), Data: bytesOf(append([]float32(nil), x...))}
	for g := 0; g < numGates; g++ {
		if s.wx[g] == nil {
			continue
		}
		in[inputToGateIndex[g]] = f32([]int{s.nCell, s.nIn}, s.wx[g])
		if s.diag {
			in[recurrentToGateIndex[g]] = f32([]int{s.nCell}, s.wh[g])
		} else {
			in[recurrentToGateIndex[g]] = f32([]int{s.nCell, s.nOut}, s.wh[g])
		}
		if s.wc[g] != nil {
			in[cellToGateIndex[g]] = f32([]int{s.nCell}, s.wc[g])
		}
		in[gateBiasIndex[g]] = f32([]int{s.nCell}, s.bias[g])
		if s.ln[g] != nil {
			in[layerNormIndex[g]] = f32([]int{s.nCell}, s.ln[g])
		}
	}
	if s.wp != nil {
		in[lstmProjectionWeights] = f32([]int{s.nOut, s.nCell}, s.wp)
	}
	if s.bp != nil {
		in[lstmProjectionBias] = f32([]int{s.nOut}, s.bp)
	}
	in[lstmOutputState] = varTensor(ops.Float32, []int{s.batch, s.nOut})
	in[lstmCellState] = varTensor(ops.Float32, []int{s.batch, s.nCell})
	return &ops.Node{
		OpName:  "UNIDIRECTIONAL_SEQUENCE_LSTM",
		Op:      ops.OpUnidirectionalSequenceLSTM,
		Version: 1,
		Inputs:  in,
		Outputs: []*ops.Tensor{{Type: ops.Float32}},
		Options: &UnidirectionalSequenceLSTMOptions{
			Activation: s.act, CellClip: s.cellClip, ProjClip: s.projClip, TimeMajor: s.timeMajor,
		},
	}
}

// reference runs the LSTM in float64, written from the LSTM equations
// independently of the kernel, and returns the output in the kernel's
// layout.
func (s *lstmSpec) reference(x []float32) []float64 {
	return s.referenceDir(x, nil, false)
}

// referenceDir is reference with an auxiliary input (rows of nAux values
// laid out like x, or nil) and, when backward is set, time walked from
// the last step to the first (each output stays at its time position).
func (s *lstmSpec) referenceDir(x, aux []float32, backward bool) []float64 {
	out := make([]float64, s.batch*s.time*s.nOut)
	sigmoid := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	act := func(v float64) float64 {
		switch s.act {
		case ops.ActRelu:
			return math.Max(0, v)
		case ops.ActReluN1To1:
			return math.Max(-1, math.Min(1, v))
		case ops.ActRelu6:
			return math.Max(0, math.Min(6, v))
		case ops.ActSignBit:
			if math.Signbit(v) {
				return 1
			}
			return 0
		}
		return math.Tanh(v)
	}
	clip := func(v float64, c float32) float64 {
		if c > 0 {
			return math.Max(-float64(c), math.Min(float64(c), v))
		}
		return v
	}
	for b := 0; b < s.batch; b++ {
		h := make([]float64, s.nOut)
		c := make([]float64, s.nCell)
		for step := 0; step < s.time; step++ {
			t := step
			if backward {
				t = s.time - 1 - step
			}
			row := b*s.time + t
			if s.timeMajor {
				row = t*s.batch + b
			}
			xt := x[row*s.nIn : row*s.nIn+s.nIn]
			pre := func(g int, cell []float64) []float64 {
				v := make([]float64, s.nCell)
				for i := range v {
					sum := 0.0
					for j, xj := range xt {
						sum += float64(s.wx[g][i*s.nIn+j]) * float64(xj)
					}
					if aux != nil {
						for j, aj := range aux[row*s.nAux : row*s.nAux+s.nAux] {
							sum += float64(s.wAux[g][i*s.nAux+j]) * float64(aj)
						}
					}
					if s.diag {
						sum += float64(s.wh[g][i]) * h[i]
					} else {
						for j, hj := range h {
							sum += float64(s.wh[g][i*s.nOut+j]) * hj
						}
					}
					if s.wc[g] != nil {
						sum += float64(s.wc[g][i]) * cell[i]
					}
					v[i] = sum
				}
				if s.layerNorm {
					mean, sq := 0.0, 0.0
					for _, e := range v {
						mean += e
					}
					mean /= float64(len(v))
					for _, e := range v {
						sq += (e - mean) * (e - mean)
					}
					std := math.Sqrt(sq/float64(len(v)) + 1e-8)
					for i := range v {
						v[i] = (v[i]-mean)/std*float64(s.ln[g][i]) + float64(s.bias[g][i])
					}
				} else {
					for i := range v {
						v[i] += float64(s.bias[g][i])
					}
				}
				return v
			}
			f := pre(gateForget, c)
			gg := pre(gateCell, c)
			var ig []float64
			if !s.cifg {
				ig = pre(gateInput, c)
			}
			for i := range c {
				fi := sigmoid(f[i])
				ii := 1 - fi
				if !s.cifg {
					ii = sigmoid(ig[i])
				}
				c[i] = clip(fi*c[i]+ii*act(gg[i]), s.cellClip)
			}
			o := pre(gateOutput, c)
			hidden := make([]float64, s.nCell)
			for i := range hidden {
				hidden[i] = sigmoid(o[i]) * act(c[i])
			}
			if s.proj {
				for r := range h {
					sum := 0.0
					if s.bp != nil {
						sum = float64(s.bp[r])
					}
					for j, hj := range hidden {
						sum += float64(s.wp[r*s.nCell+j]) * hj
					}
					h[r] = clip(sum, s.projClip)
				}
			} else {
				copy(h, hidden)
			}
			copy(out[row*s.nOut:], h)
		}
	}
	return out
}

// randomInput returns input data in [-1, 1) for the spec.
func (s *lstmSpec) randomInput(rng *rand.Rand) []float32 {
	x := make([]float32, s.batch*s.time*s.nIn)
	for i := range x {
		x[i] = float32(2*rng.Float64() - 1)
	}
	return x
}
