package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// OverlapAddName is the custom code of TFLite Micro's overlap-add
// (signal/micro/kernels/overlap_add.cc, arithmetic in
// signal/src/overlap_add.cc).
const OverlapAddName = "SignalOverlapAdd"

// OverlapAdd is the kernel of SignalOverlapAdd: it adds overlapping
// frames, frame_step apart, into a stream, across Invokes.
//
// Input 0 is int16 or float32 [..., frames, frame_size] (rank ≥ 2,
// frame_size ≥ frame_step); output 0 has its type and shape [...,
// frames·frame_step]. Each outer row keeps an accumulator of frame_size
// values (the kernel's state): per frame, the frame is added into it
// (int16: saturated to int16), its first frame_step values are output,
// and it shifts left by frame_step, zero-filled. Prepare and
// ResetVariableTensors clear the accumulators (OverlapAddReset).
//
// Options (custom_options, a FlexBuffer map): T (7 int16 or 0 float32,
// matching the input), frame_step (1 to frame_size).
type OverlapAdd struct {
	typ                ops.DataType
	step, size, frames int
	acc16              [][]int16
	acc32              [][]float32
}

// NewOverlapAdd returns a SignalOverlapAdd kernel for one node.
func NewOverlapAdd() ops.Kernel { return &OverlapAdd{} }

func init() { register(OverlapAddName, NewOverlapAdd) }

// Prepare decodes the options, validates the node, sets the output shape
// and clears the accumulators.
func (k *OverlapAdd) Prepare(n *ops.Node) error {
	*k = OverlapAdd{}
	v, err := readOptions(n, option{"T", optInt}, option{"frame_step", optInt})
	if err != nil {
		return err
	}
	switch v[0] {
	case 7:
		k.typ = ops.Int16
	case 0:
		k.typ = ops.Float32
	default:
		return fmt.Errorf("options: T = %d, need 7 (int16) or 0 (float32)", v[0])
	}
	if err := checkRange("frame_step", v[1], 1, 1<<20); err != nil {
		return err
	}
	k.step = int(v[1])
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, count, err := input(n, 0, "input", k.typ, -1)
	if err != nil {
		return err
	}
	if in.Rank() < 2 {
		return fmt.Errorf("input 0: shape %v, need [..., frames, frame_size]", in.Shape)
	}
	k.size, k.frames = in.Dim(-1), in.Dim(-2)
	if k.size < k.step {
		return fmt.Errorf("input 0: frame_size %d is less than frame_step %d", k.size, k.step)
	}
	out, err := output(n, 0, "output", k.typ)
	if err != nil {
		return err
	}
	shape := copyShape(in.Shape[:in.Rank()-1])
	shape[len(shape)-1] = k.frames * k.step
	out.Shape = shape
	rows := 0
	if k.frames > 0 {
		rows = count / (k.size * k.frames)
	}
	if err := n.Reserve(rows*k.size*k.typ.Size(), "SignalOverlapAdd accumulators"); err != nil {
		return err
	}
	if k.typ == ops.Int16 {
		k.acc16 = make([][]int16, rows)
		for i := range k.acc16 {
			k.acc16[i] = make([]int16, k.size)
		}
	} else {
		k.acc32 = make([][]float32, rows)
		for i := range k.acc32 {
			k.acc32[i] = make([]float32, k.size)
		}
	}
	return nil
}

// ResetState clears the accumulators; see ops.StatefulKernel.
func (k *OverlapAdd) ResetState() {
	for _, a := range k.acc16 {
		clear(a)
	}
	for _, a := range k.acc32 {
		clear(a)
	}
}

// Eval overlap-adds every frame.
func (k *OverlapAdd) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	if !hasData(in, out) {
		return errShort
	}
	if k.typ == ops.Int16 {
		x, y := in.Int16s(), out.Int16s()
		for i, acc := range k.acc16 {
			for f := 0; f < k.frames; f++ {
				at := i*k.frames + f
				frame := x[at*k.size : (at+1)*k.size]
				for j, s := range frame {
					acc[j] = int16(max(-32768, min(32767, int32(s)+int32(acc[j]))))
				}
				overlapShift(acc, y[at*k.step:(at+1)*k.step])
			}
		}
		return nil
	}
	x, y := in.Float32s(), out.Float32s()
	for i, acc := range k.acc32 {
		for f := 0; f < k.frames; f++ {
			at := i*k.frames + f
			frame := x[at*k.size : (at+1)*k.size]
			for j, s := range frame {
				acc[j] += s
			}
			overlapShift(acc, y[at*k.step:(at+1)*k.step])
		}
	}
	return nil
}

// overlapShift outputs the first len(dst) accumulated values and shifts
// the accumulator left by as many, zero-filling its end.
func overlapShift[T int16 | float32](acc, dst []T) {
	copy(dst, acc)
	copy(acc, acc[len(dst):])
	clear(acc[len(acc)-len(dst):])
}
