package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// WindowName is the custom code of TFLite Micro's window
// (signal/micro/kernels/window.cc, arithmetic in signal/src/window.cc).
const WindowName = "SignalWindow"

// Window is the kernel of SignalWindow: each input sample times its
// window weight, shifted right and saturated to int16.
//
// Input 0 is int16 [..., n] (rank ≥ 1), input 1 the int16 weights [w];
// output 0 is int16 of the input's shape. The input is taken as
// consecutive blocks of w samples (its element count must be a multiple
// of w; TFLite Micro does not check), output[i] =
// saturate16((input[i]·weights[i mod w]) >> shift), the product in int32
// and the shift arithmetic.
//
// Options (custom_options, a FlexBuffer map): shift, 0 to 31.
type Window struct {
	shift uint
}

// NewWindow returns a SignalWindow kernel for one node.
func NewWindow() ops.Kernel { return &Window{} }

func init() { register(WindowName, NewWindow) }

// Prepare decodes the options, validates the node and sets the output
// shape.
func (k *Window) Prepare(n *ops.Node) error {
	*k = Window{}
	v, err := readOptions(n, option{"shift", optInt})
	if err != nil {
		return err
	}
	if err := checkRange("shift", v[0], 0, 31); err != nil {
		return err
	}
	k.shift = uint(v[0])
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, count, err := input(n, 0, "input", ops.Int16, -1)
	if err != nil {
		return err
	}
	if in.Rank() < 1 {
		return fmt.Errorf("input 0: shape %v, need rank at least 1", in.Shape)
	}
	_, w, err := input(n, 1, "weights", ops.Int16, 1)
	if err != nil {
		return err
	}
	if w == 0 || count%w != 0 {
		return fmt.Errorf("input 1 (weights): %d weights, the input's %d samples are not a whole number of windows", w, count)
	}
	out, err := output(n, 0, "output", ops.Int16)
	if err != nil {
		return err
	}
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval applies the window to every block.
func (k *Window) Eval(n *ops.Node) error {
	in, wt, out := n.Inputs[0], n.Inputs[1], n.Outputs[0]
	if !hasData(in, wt, out) {
		return errShort
	}
	x := in.Int16s()[:in.NumElements()]
	w := wt.Int16s()[:wt.NumElements()]
	y := out.Int16s()
	for b := 0; b < len(x); b += len(w) {
		applyWindow(x[b:b+len(w)], w, k.shift, y[b:b+len(w)])
	}
	return nil
}

// applyWindow is tflm_signal::ApplyWindow.
func applyWindow(x, w []int16, shift uint, y []int16) {
	for i := range w {
		raw := (int32(x[i]) * int32(w[i])) >> shift
		switch {
		case raw < -32768:
			y[i] = -32768
		case raw > 32767:
			y[i] = 32767
		default:
			y[i] = int16(raw)
		}
	}
}
