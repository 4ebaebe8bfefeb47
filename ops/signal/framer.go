package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// FramerName is the custom code of TFLite Micro's framer
// (signal/micro/kernels/framer.cc).
const FramerName = "SignalFramer"

// Framer is the kernel of SignalFramer: it cuts a stream of samples into
// overlapping frames of frame_size, frame_step apart, across Invokes.
//
// Input 0 is int16 [..., n] with n a multiple of frame_step; output 0 is
// int16 [..., n/frame_step, frame_size], output 1 the bool scalar
// output_valid. Each row has its own buffer (the kernel's state, of
// ⌈frame_size/frame_step⌉·frame_step samples): for each of the row's
// n/frame_step steps the kernel appends frame_step samples and, once
// frame_size are buffered, outputs the oldest frame_size and drops
// frame_step. output_valid is false when some frame could not be made yet;
// such a frame's output is left as it was, as in TFLite Micro. With
// prefill the buffers start with frame_size − frame_step zeros. Prepare
// and ResetVariableTensors restore the initial state (FramerReset).
//
// Options (custom_options, a FlexBuffer map): frame_size (1 to 1<<20),
// frame_step (1 to 1<<20, at most frame_size with prefill), prefill
// (bool).
type Framer struct {
	size, step, frames int
	prefill            bool
	rows               []fifo
}

// NewFramer returns a SignalFramer kernel for one node.
func NewFramer() ops.Kernel { return &Framer{} }

func init() { register(FramerName, NewFramer) }

// Prepare decodes the options, validates the node, sets the output shapes
// and resets the buffers.
func (k *Framer) Prepare(n *ops.Node) error {
	*k = Framer{}
	v, err := readOptions(n, option{"frame_size", optInt}, option{"frame_step", optInt}, option{"prefill", optBool})
	if err != nil {
		return err
	}
	if err := checkRange("frame_size", v[0], 1, 1<<20); err != nil {
		return err
	}
	maxStep := int64(1 << 20)
	if v[2] != 0 {
		maxStep = v[0] // the prefill is frame_size − frame_step zeros
	}
	if err := checkRange("frame_step", v[1], 1, maxStep); err != nil {
		return err
	}
	k.size, k.step, k.prefill = int(v[0]), int(v[1]), v[2] != 0
	if err := n.CheckIO(1, 1, 2); err != nil {
		return err
	}
	in, count, err := input(n, 0, "input", ops.Int16, -1)
	if err != nil {
		return err
	}
	if in.Rank() < 1 {
		return fmt.Errorf("input 0: shape %v, need rank at least 1", in.Shape)
	}
	inner := in.Dim(-1)
	if inner < k.step || inner%k.step != 0 {
		return fmt.Errorf("input 0: innermost dimension %d, need a positive multiple of frame_step (%d)", inner, k.step)
	}
	k.frames = inner / k.step
	out, err := output(n, 0, "output", ops.Int16)
	if err != nil {
		return err
	}
	valid, err := output(n, 1, "output_valid", ops.Bool)
	if err != nil {
		return err
	}
	shape := append(copyShape(in.Shape), k.size)
	shape[len(shape)-2] = k.frames
	if _, err := ops.ShapeElements(shape, 2); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	valid.Shape = []int{}
	rows := count / inner
	capacity := (k.size + k.step - 1) / k.step * k.step
	if err := n.Reserve(rows*capacity*2, "SignalFramer buffers"); err != nil {
		return err
	}
	k.rows = make([]fifo, rows)
	for i := range k.rows {
		k.rows[i] = newFifo(capacity)
	}
	k.ResetState()
	return nil
}

// ResetState empties the buffers (prefilled with zeros when prefill);
// see ops.StatefulKernel.
func (k *Framer) ResetState() {
	for i := range k.rows {
		k.rows[i].reset()
		if k.prefill {
			k.rows[i].writeZeros(k.size - k.step)
		}
	}
}

// Eval frames every row.
func (k *Framer) Eval(n *ops.Node) error {
	in, out, valid := n.Inputs[0], n.Outputs[0], n.Outputs[1]
	if !hasData(in, out, valid) {
		return errShort
	}
	x, y := in.Int16s(), out.Int16s()
	ok := true
	for i := range k.rows {
		r := &k.rows[i]
		for f := 0; f < k.frames; f++ {
			at := i*k.frames + f
			r.write(x[at*k.step : (at+1)*k.step])
			if r.available() >= k.size {
				r.get(y[at*k.size : (at+1)*k.size])
				r.discard(k.step)
			} else {
				ok = false
			}
		}
	}
	valid.Bools()[0] = ok
	return nil
}
