package builtin

import "github.com/tflrun/tflrun/ops"

// RandomStandardNormal is the kernel of TFLite's RANDOM_STANDARD_NORMAL
// operator: a float32 output of the shape held by input 0 (a 1-D int32
// vector; sized at Eval when it is not constant) filled with standard
// normal values.
//
// As TFLite's random_ops.cc, each Philox 4x32-10 block (the generator and
// seeds as RANDOM_UNIFORM's, kept across Invokes) gives four outputs: the
// Box-Muller pairs of words (0, 1) and (2, 3), sine first (see
// boxMuller). A tail of fewer than four elements consumes a whole block
// and keeps the leading values (TFLite's kernel writes one float past an
// odd-sized output; tflrun does not). Only float32 outputs, as TFLite.
// Version 1, as TFLite's register.cc.
type RandomStandardNormal struct {
	randomShapeKernel
}

// NewRandomStandardNormal returns a RANDOM_STANDARD_NORMAL kernel for one
// node.
func NewRandomStandardNormal() ops.Kernel { return &RandomStandardNormal{} }

func init() {
	register(ops.OpRandomStandardNormal, NewRandomStandardNormal, [2]int{1, 1})
}

// Prepare validates the node, seeds the generator and sets the output
// shape (or marks the output dynamic).
func (k *RandomStandardNormal) Prepare(n *ops.Node) error { return k.prepare(n) }

// Eval fills the output from the generator's next blocks.
func (k *RandomStandardNormal) Eval(n *ops.Node) error {
	o, err := k.output(n)
	if err != nil {
		return err
	}
	for i := 0; i < len(o); i += 4 {
		w := k.rng.next()
		var v [4]float32
		v[0], v[1] = boxMuller(w[0], w[1])
		v[2], v[3] = boxMuller(w[2], w[3])
		copy(o[i:], v[:min(4, len(o)-i)])
	}
	return nil
}
