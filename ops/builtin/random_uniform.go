package builtin

import "github.com/tflrun/tflrun/ops"

// RandomUniform is the kernel of TFLite's RANDOM_UNIFORM operator: a
// float32 output of the shape held by input 0 (a 1-D int32 vector; sized
// at Eval when it is not constant) filled with uniform values in [0, 1).
//
// As TFLite's random_ops.cc, the values come from a Philox 4x32-10
// generator seeded at Prepare from RandomOptions (seed as the key, seed2
// as the counter's upper half; non-deterministic seeds when both are
// zero) that keeps its position across Invokes: each block of four 32-bit
// words gives four outputs, element i taking the low 23 bits of word i as
// the mantissa of a number in [1, 2) minus one; a tail of fewer than four
// elements still consumes a whole block. Only float32 outputs, as TFLite.
// Version 1, as TFLite's register.cc.
type RandomUniform struct {
	randomShapeKernel
}

// NewRandomUniform returns a RANDOM_UNIFORM kernel for one node.
func NewRandomUniform() ops.Kernel { return &RandomUniform{} }

func init() {
	register(ops.OpRandomUniform, NewRandomUniform, [2]int{1, 1})
}

// Prepare validates the node, seeds the generator and sets the output
// shape (or marks the output dynamic).
func (k *RandomUniform) Prepare(n *ops.Node) error { return k.prepare(n) }

// Eval fills the output from the generator's next blocks.
func (k *RandomUniform) Eval(n *ops.Node) error {
	o, err := k.output(n)
	if err != nil {
		return err
	}
	for i := 0; i < len(o); i += 4 {
		w := k.rng.next()
		for j := 0; j < 4 && i+j < len(o); j++ {
			o[i+j] = uint32ToFloat(w[j])
		}
	}
	return nil
}
