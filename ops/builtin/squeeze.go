package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Squeeze is the kernel of TFLite's SQUEEZE operator: input 0's data under
// its shape with size-1 dimensions removed, either those listed in
// SqueezeOptions.SqueezeDims (negative counting from the end; each must
// have size 1) or, when the list is empty, all of them. Any fixed-size
// element type. Matches TFLite's squeeze.cc; the data is copied, unless
// the planner gave output and input one buffer.
type Squeeze struct{ bytes int }

// NewSqueeze returns a SQUEEZE kernel for one node.
func NewSqueeze() ops.Kernel { return &Squeeze{} }

// SqueezeOptions is TFLite's SqueezeOptions; SqueezeDims empty means
// "every dimension of size 1".
type SqueezeOptions struct {
	SqueezeDims []int
}

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpSqueeze, NewSqueeze, [2]int{1, 2})
	registerOptions(schema.BuiltinOptionsSqueezeOptions, decodeSqueezeOptions)
}

// maxSqueezeDims is the most entries SqueezeOptions.squeeze_dims may have
// (the size of TfLiteSqueezeParams.squeeze_dims).
const maxSqueezeDims = 8

// decodeSqueezeOptions decodes TFLite's SqueezeOptions table.
func decodeSqueezeOptions(t ops.OptionsTable) (any, error) {
	var o schema.SqueezeOptions
	initTable(&o, t)
	if n := o.SqueezeDimsLength(); n > maxSqueezeDims {
		// TFLite's parser copies squeeze_dims into a fixed array of 8.
		return nil, fmt.Errorf("squeeze_dims has %d entries, at most %d are allowed", n, maxSqueezeDims)
	}
	return &SqueezeOptions{SqueezeDims: intList(o.SqueezeDimsLength(), o.SqueezeDims)}, nil
}

// Prepare validates the node and sets the output shape.
func (k *Squeeze) Prepare(n *ops.Node) error {
	*k = Squeeze{}
	var opts SqueezeOptions
	if o, ok := n.Options.(*SqueezeOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SqueezeOptions", n.Options)
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	rank := in.Rank()
	drop := make([]bool, rank)
	if len(opts.SqueezeDims) == 0 {
		for i, d := range in.Shape {
			drop[i] = d == 1
		}
	}
	for _, sd := range opts.SqueezeDims {
		d := sd
		if d < 0 {
			d += rank
		}
		if d < 0 || d >= rank {
			return fmt.Errorf("options: squeeze dimension %d is outside an input of rank %d", sd, rank)
		}
		if in.Shape[d] != 1 {
			return fmt.Errorf("options: squeeze dimension %d has size %d, need 1", sd, in.Shape[d])
		}
		drop[d] = true
	}
	shape := []int{}
	for i, d := range in.Shape {
		if !drop[i] {
			shape = append(shape, d)
		}
	}
	out.Shape = shape
	k.bytes = in.Bytes()
	return nil
}

// Eval copies the data.
func (k *Squeeze) Eval(n *ops.Node) error { return copyEval(n, k.bytes) }
