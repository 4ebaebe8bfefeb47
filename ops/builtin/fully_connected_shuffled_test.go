package builtin

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of FULLY_CONNECTED with shuffled 4x16 weights: TFLite's
// SimpleTestQuantizedInt16OutputShuffled4x16Int8Weights (its shapes,
// quantisation and tolerance, with our own random data), bit-exact
// agreement with the dense uint8 → int16 path on the unshuffled weights,
// the workspace output, and refused nodes.

// shuffle4x16 lays out uint8 weights [units, cols] as TFLite's
// ShuffleAndSetWeights: 4×16 blocks, row by row, sign bit flipped
// (other shapes, which the kernel refuses, are only sign-flipped).
func shuffle4x16(w []uint8, units, cols int) []uint8 {
	if units%4 != 0 || cols%16 != 0 {
		out := make([]uint8, len(w))
		for i, v := range w {
			out[i] = v ^ 0x80
		}
		return out
	}
	out := make([]uint8, 0, len(w))
	for bo := 0; bo < units; bo += 4 {
		for bi := 0; bi < cols; bi += 16 {
			for o := 0; o < 4; o++ {
				for i := 0; i < 16; i++ {
					out = append(out, w[(bo+o)*cols+bi+i]^0x80)
				}
			}
		}
	}
	return out
}

// shuffledNode is the model of SimpleTestQuantizedInt16OutputCase: input
// and weights scale 1/128 zero point 128, output int16 scale 8/32768,
// bias scale 1/16384. shuffled picks the weights format.
func shuffledNode(x, w []uint8, bias []int32, batch, units, cols int, shuffled bool, act ops.Activation) *ops.Node {
	wd, format := w, int8(0)
	if shuffled {
		wd, format = shuffle4x16(w, units, cols), fcShuffled4x16
	}
	outs := []*ops.Tensor{q(outTensor(ops.Int16), 8.0/32768, 0)}
	if shuffled {
		outs = append(outs, tensorOf(ops.Uint8, []int{batch, cols}, make([]uint8, batch*cols)))
	}
	return node(&FullyConnectedOptions{WeightsFormat: format, Activation: act}, []*ops.Tensor{
		q(tensorOf(ops.Uint8, []int{batch, cols}, x), 1.0/128, 128),
		q(constT(tensorOf(ops.Uint8, []int{units, cols}, wd)), 1.0/128, 128),
		q(constT(tensorOf(ops.Int32, []int{units}, bias)), 1.0/16384, 0),
	}, outs...)
}

func TestFullyConnectedShuffled(t *testing.T) {
	r := lcg(3)
	for _, cols := range []int{16, 48} {
		for _, units := range []int{4, 12} {
			for _, batch := range []int{1, 4} {
				x := make([]uint8, batch*cols)
				w := make([]uint8, units*cols)
				bias := make([]int32, units)
				biasF := make([]float64, units)
				for i := range x {
					x[i] = uint8(r.float(0, 256))
				}
				for i := range w {
					w[i] = uint8(r.float(0, 256))
				}
				for i := range bias {
					biasF[i] = float64(r.float(-1, 1))
					bias[i] = int32(math.Round(biasF[i] * 16384))
				}
				n := shuffledNode(x, w, bias, batch, units, cols, true, ops.ActNone)
				k := NewFullyConnected()
				run(t, k, n)
				wantShape(t, n.Outputs[0].Shape, []int{batch, units})
				got := n.Outputs[0].Int16s()
				// TFLite's check: within 3e-4 of the float product.
				for b := 0; b < batch; b++ {
					for u := 0; u < units; u++ {
						acc := biasF[u]
						for c := 0; c < cols; c++ {
							acc += float64(int(x[b*cols+c])-128) / 128 * float64(int(w[u*cols+c])-128) / 128
						}
						acc = math.Max(math.Min(acc, 32767*8.0/32768), -8)
						if d := math.Abs(float64(got[b*units+u])*8/32768 - acc); d > 3e-4 {
							t.Fatalf("cols %d units %d batch %d: output[%d, %d] = %g, want %g", cols, units, batch, b, u, float64(got[b*units+u])*8/32768, acc)
						}
					}
				}
				// Bit for bit the dense uint8 → int16 arithmetic.
				d := shuffledNode(x, w, bias, batch, units, cols, false, ops.ActNone)
				run(t, NewFullyConnected(), d)
				equalInts(t, "shuffled vs dense", got, d.Outputs[0].Int16s())
				// The workspace holds the sign-flipped input in the order the
				// kernel reads it.
				ws := n.Outputs[1].Data
				p := 0
				for c := 0; c < cols; c += 16 {
					for b := 0; b < batch; b++ {
						for j := 0; j < 16; j++ {
							src := x[b*cols+c+j]
							if batch == 1 {
								src = x[c+j]
							}
							if ws[p] != src^0x80 {
								t.Fatalf("workspace[%d] = %#x, want %#x", p, ws[p], src^0x80)
							}
							p++
						}
					}
				}
				noAllocs(t, k, n)
			}
		}
	}
}

// TFLite's optimised shuffled kernel (the builtin one) clamps to the int16
// range whatever the fused activation.
func TestFullyConnectedShuffledIgnoresActivation(t *testing.T) {
	x := make([]uint8, 16)
	w := make([]uint8, 4*16)
	for i := range w {
		w[i] = 128
	}
	bias := []int32{-16384, 0, 16384, -100}
	n := shuffledNode(x, w, bias, 1, 4, 16, true, ops.ActRelu)
	run(t, NewFullyConnected(), n)
	equalInts(t, "output", n.Outputs[0].Int16s(), []int{-4096, 0, 4096, -25})
}

func TestFullyConnectedShuffledRefused(t *testing.T) {
	x4 := make([]uint8, 64)
	w := make([]uint8, 4*16)
	b4 := make([]int32, 4)
	cases := []struct {
		name   string
		mutate func(n *ops.Node)
		n      *ops.Node
		want   string
	}{
		{"batch 2", nil, shuffledNode(x4[:32], w, b4, 2, 4, 16, true, 0), "batch 2"},
		{"units 6", nil, shuffledNode(x4[:16], make([]uint8, 6*16), make([]int32, 6), 1, 6, 16, true, 0), "multiple of 4"},
		{"cols 8", nil, shuffledNode(x4[:8], make([]uint8, 4*8), b4, 1, 4, 8, true, 0), "multiple of 16"},
		{"no bias", func(n *ops.Node) { n.Inputs = n.Inputs[:2] }, shuffledNode(x4[:16], w, b4, 1, 4, 16, true, 0), "needs a bias"},
		{"one output", func(n *ops.Node) { n.Outputs = n.Outputs[:1] }, shuffledNode(x4[:16], w, b4, 1, 4, 16, true, 0), "output"},
		{"constant workspace", func(n *ops.Node) { n.Outputs[1] = constT(tensorOf(ops.Uint8, []int{16}, make([]uint8, 16))) }, shuffledNode(x4[:16], w, b4, 1, 4, 16, true, 0), "constant"},
		{"int8 workspace", func(n *ops.Node) { n.Outputs[1] = tensorOf(ops.Int8, []int{16}, make([]int8, 16)) }, shuffledNode(x4[:16], w, b4, 1, 4, 16, true, 0), "need uint8"},
		{"uint8 output", func(n *ops.Node) { n.Outputs[0] = q(outTensor(ops.Uint8), 1, 0) }, shuffledNode(x4[:16], w, b4, 1, 4, 16, true, 0), "int16 output"},
		{"int64 bias", func(n *ops.Node) {
			n.Inputs[2] = q(constT(tensorOf(ops.Int64, []int{4}, make([]int64, 4))), 1.0/16384, 0)
		}, shuffledNode(x4[:16], w, b4, 1, 4, 16, true, 0), "int32"},
		{"format 2", func(n *ops.Node) { n.Options.(*FullyConnectedOptions).WeightsFormat = 2 }, shuffledNode(x4[:16], w, b4, 1, 4, 16, true, 0), "weights format 2"},
	}
	for _, c := range cases {
		if c.mutate != nil {
			c.mutate(c.n)
		}
		err := prepare(NewFullyConnected(), c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Prepare error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
