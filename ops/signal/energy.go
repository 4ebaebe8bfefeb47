package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// EnergyName is the custom code of TFLite Micro's spectrum energy
// (signal/micro/kernels/energy.cc, arithmetic in signal/src/energy.cc).
const EnergyName = "SignalEnergy"

// Energy is the kernel of SignalEnergy: the squared magnitude of a range
// of complex int16 bins.
//
// Input 0 is int16 [2·b] (b complex bins as real, imaginary pairs);
// output 0 is uint32 [b]. For start_index ≤ i < end_index, output[i] =
// re²+im² in 32 bits (2·(−32768)² wraps to 2^31 as in TFLite Micro). The
// other outputs are zero, as TensorFlow's SignalEnergy documents (TFLite
// Micro leaves them unwritten).
//
// Options (custom_options, a FlexBuffer map): end_index, start_index,
// with 0 ≤ start_index ≤ end_index ≤ b.
type Energy struct {
	start, end int
}

// NewEnergy returns a SignalEnergy kernel for one node.
func NewEnergy() ops.Kernel { return &Energy{} }

func init() { register(EnergyName, NewEnergy) }

// Prepare decodes the options, validates the node and sets the output
// shape.
func (k *Energy) Prepare(n *ops.Node) error {
	*k = Energy{}
	v, err := readOptions(n, option{"end_index", optInt}, option{"start_index", optInt})
	if err != nil {
		return err
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	_, count, err := input(n, 0, "input", ops.Int16, 1)
	if err != nil {
		return err
	}
	if count%2 != 0 {
		return fmt.Errorf("input 0: %d values, need complex pairs (an even count)", count)
	}
	bins := count / 2
	if err := checkRange("start_index", v[1], 0, int64(bins)); err != nil {
		return err
	}
	if err := checkRange("end_index", v[0], v[1], int64(bins)); err != nil {
		return err
	}
	k.end, k.start = int(v[0]), int(v[1])
	out, err := output(n, 0, "output", ops.Uint32)
	if err != nil {
		return err
	}
	out.Shape = []int{bins}
	return nil
}

// Eval computes the energies.
func (k *Energy) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	if !hasData(in, out) {
		return errShort
	}
	x := ops.View[cpx[int16]](in.Data)
	y := out.Uint32s()[:out.NumElements()]
	clear(y[:k.start])
	for i := k.start; i < k.end; i++ {
		re, im := int32(x[i].r), int32(x[i].i)
		y[i] = uint32(re*re) + uint32(im*im)
	}
	clear(y[k.end:])
	return nil
}
