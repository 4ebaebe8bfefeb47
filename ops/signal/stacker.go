package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// StackerName is the custom code of TFLite Micro's stacker
// (signal/micro/kernels/stacker.cc).
const StackerName = "SignalStacker"

// Stacker is the kernel of SignalStacker: it stacks consecutive frames of
// num_channels values, stacker_left_context before and
// stacker_right_context after the current one, across Invokes.
//
// Input 0 is int16 [num_channels]; output 0 is int16 [num_channels·(left +
// 1 + right)], output 1 the bool scalar output_valid. The kernel's buffer
// holds that many values: every Eval appends the input (the first one
// also repeats it left times, as CircularBufferExtend does) and, when the
// buffer is full, outputs it and drops stacker_step frames; otherwise
// output_valid is false and the output is left as it was. Prepare and
// ResetVariableTensors empty the buffer (StackerReset).
//
// Options (custom_options, a FlexBuffer map, read by position):
// num_channels (1 to 1<<20), stacker_left_context and
// stacker_right_context (0 to 1<<10), stacker_step (1 to left + 1 +
// right: a larger step would drop frames the buffer does not hold).
type Stacker struct {
	channels, left, right, step int
	hasFirst                    bool
	buf                         fifo
}

// NewStacker returns a SignalStacker kernel for one node.
func NewStacker() ops.Kernel { return &Stacker{} }

func init() { register(StackerName, NewStacker) }

// Prepare decodes the options, validates the node, sets the output shapes
// and empties the buffer.
func (k *Stacker) Prepare(n *ops.Node) error {
	*k = Stacker{}
	v, err := readOptions(n, option{"num_channels", optInt}, option{"stacker_left_context", optInt},
		option{"stacker_right_context", optInt}, option{"stacker_step", optInt})
	if err != nil {
		return err
	}
	if err := checkRange("num_channels", v[0], 1, 1<<20); err != nil {
		return err
	}
	if err := checkRange("stacker_left_context", v[1], 0, 1<<10); err != nil {
		return err
	}
	if err := checkRange("stacker_right_context", v[2], 0, 1<<10); err != nil {
		return err
	}
	if err := checkRange("stacker_step", v[3], 1, v[1]+v[2]+1); err != nil {
		return err
	}
	k.channels, k.left, k.right, k.step = int(v[0]), int(v[1]), int(v[2]), int(v[3])
	if err := n.CheckIO(1, 1, 2); err != nil {
		return err
	}
	_, c, err := input(n, 0, "input", ops.Int16, 1)
	if err != nil {
		return err
	}
	if c != k.channels {
		return fmt.Errorf("input 0: %d values, options say num_channels = %d", c, k.channels)
	}
	out, err := output(n, 0, "output", ops.Int16)
	if err != nil {
		return err
	}
	valid, err := output(n, 1, "output_valid", ops.Bool)
	if err != nil {
		return err
	}
	size := k.channels * (k.left + k.right + 1)
	if _, err := ops.ShapeElements([]int{size}, 2); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = []int{size}
	valid.Shape = []int{}
	if err := n.Reserve(size*2, "SignalStacker buffer"); err != nil {
		return err
	}
	k.buf = newFifo(size)
	return nil
}

// ResetState empties the buffer; see ops.StatefulKernel.
func (k *Stacker) ResetState() {
	k.buf.reset()
	k.hasFirst = false
}

// Eval appends a frame and outputs a stack when one is complete.
func (k *Stacker) Eval(n *ops.Node) error {
	in, out, valid := n.Inputs[0], n.Outputs[0], n.Outputs[1]
	if !hasData(in, out, valid) {
		return errShort
	}
	k.buf.write(in.Int16s()[:k.channels])
	if !k.hasFirst {
		k.buf.extend(k.channels, k.left)
		k.hasFirst = true
	}
	size := len(k.buf.buf)
	ok := k.buf.available() >= size
	if ok {
		k.buf.get(out.Int16s()[:size])
		k.buf.discard(k.channels * k.step)
	}
	valid.Bools()[0] = ok
	return nil
}
