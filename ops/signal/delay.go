package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// DelayName is the custom code of TFLite Micro's delay
// (signal/micro/kernels/delay.cc).
const DelayName = "SignalDelay"

// Delay is the kernel of SignalDelay: each innermost row of the input,
// delayed by delay_length samples across Invokes.
//
// Input 0 is int16 [..., n] (n ≥ 1); output 0 is int16 of the same shape.
// Each row (one per outer index) has its own delay line, the kernel's
// state: it starts with delay_length zeros, every Eval appends the row and
// outputs the n oldest samples. Prepare and the interpreter's
// ResetVariableTensors restore the zeros (TFLite Micro's DelayReset).
//
// Options (custom_options, a FlexBuffer map): delay_length, 0 to 1<<20.
type Delay struct {
	delay, frame int
	lines        []fifo
}

// NewDelay returns a SignalDelay kernel for one node.
func NewDelay() ops.Kernel { return &Delay{} }

func init() { register(DelayName, NewDelay) }

// Prepare decodes the options, validates the node, sets the output shape
// and fills the delay lines with zeros.
func (k *Delay) Prepare(n *ops.Node) error {
	*k = Delay{}
	v, err := readOptions(n, option{"delay_length", optInt})
	if err != nil {
		return err
	}
	if err := checkRange("delay_length", v[0], 0, 1<<20); err != nil {
		return err
	}
	k.delay = int(v[0])
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, count, err := input(n, 0, "input", ops.Int16, -1)
	if err != nil {
		return err
	}
	if in.Rank() < 1 || in.Dim(-1) < 1 {
		return fmt.Errorf("input 0: shape %v, need rank at least 1 and a non-empty innermost dimension", in.Shape)
	}
	out, err := output(n, 0, "output", ops.Int16)
	if err != nil {
		return err
	}
	out.Shape = copyShape(in.Shape)
	k.frame = in.Dim(-1)
	rows := count / k.frame
	if err := n.Reserve(rows*(k.frame+k.delay)*2, "SignalDelay delay lines"); err != nil {
		return err
	}
	k.lines = make([]fifo, rows)
	for i := range k.lines {
		k.lines[i] = newFifo(k.frame + k.delay)
	}
	k.ResetState()
	return nil
}

// ResetState refills the delay lines with zeros; see ops.StatefulKernel.
func (k *Delay) ResetState() {
	for i := range k.lines {
		k.lines[i].reset()
		k.lines[i].writeZeros(k.delay)
	}
}

// Eval delays every row.
func (k *Delay) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	if !hasData(in, out) {
		return errShort
	}
	x, y := in.Int16s(), out.Int16s()
	for i := range k.lines {
		l := &k.lines[i]
		row := i * k.frame
		l.write(x[row : row+k.frame])
		l.get(y[row : row+k.frame])
		l.discard(k.frame)
	}
	return nil
}
