package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// FilterBankName is the custom code of TFLite Micro's mel filter bank
// (signal/micro/kernels/filter_bank.cc, arithmetic in
// signal/src/filter_bank.cc).
const FilterBankName = "SignalFilterBank"

// FilterBank is the kernel of SignalFilterBank: triangular (mel) filters
// over a spectrum of energies, accumulated in 64 bits.
//
// Inputs: 0 the uint32 energies [bins]; 1 weights and 2 unweights, int16
// [w]; 3 channel_frequency_starts, 4 channel_weight_starts, 5
// channel_widths, int16 [num_channels+1]. Output 0 is uint64
// [num_channels]. Channel c (0 ≤ c ≤ num_channels) sums
// weights[ws_c+j]·input[fs_c+j] over j < width_c into its own total and
// unweights[ws_c+j]·input[fs_c+j] into the next channel's; channel 0's
// total is dropped (FilterbankAccumulateChannels writes num_channels+1
// values, the kernel copies out all but the first). A weight is
// sign-extended to 64 bits before the product and the sums wrap, as in
// C. The tables must be constant: Prepare checks every index they give
// against the inputs' sizes (TFLite Micro trusts them).
//
// Options (custom_options, a FlexBuffer map): num_channels, 0 to 1<<20.
type FilterBank struct {
	channels                int
	freqStarts, wStarts, ws []int16
	work                    []uint64
}

// NewFilterBank returns a SignalFilterBank kernel for one node.
func NewFilterBank() ops.Kernel { return &FilterBank{} }

func init() { register(FilterBankName, NewFilterBank) }

// Prepare decodes the options, validates the node and its tables, and
// sets the output shape.
func (k *FilterBank) Prepare(n *ops.Node) error {
	*k = FilterBank{}
	v, err := readOptions(n, option{"num_channels", optInt})
	if err != nil {
		return err
	}
	if err := checkRange("num_channels", v[0], 0, 1<<20); err != nil {
		return err
	}
	k.channels = int(v[0])
	if err := n.CheckIO(6, 6, 1); err != nil {
		return err
	}
	_, bins, err := input(n, 0, "input", ops.Uint32, 1)
	if err != nil {
		return err
	}
	var tables [5][]int16
	roles := [5]string{"weights", "unweights", "channel_frequency_starts", "channel_weight_starts", "channel_widths"}
	for i := range tables {
		t, c, err := input(n, i+1, roles[i], ops.Int16, 1)
		if err != nil {
			return err
		}
		label := fmt.Sprintf("input %d (%s)", i+1, roles[i])
		if i >= 2 && c != k.channels+1 {
			return fmt.Errorf("%s: %d values, need num_channels+1 = %d", label, c, k.channels+1)
		}
		if tables[i], err = constInt16s(t, label); err != nil {
			return err
		}
	}
	weights, unweights := tables[0], tables[1]
	if len(weights) != len(unweights) {
		return fmt.Errorf("input 2 (unweights): %d values, input 1 (weights) has %d", len(unweights), len(weights))
	}
	k.freqStarts, k.wStarts, k.ws = tables[2], tables[3], tables[4]
	for c := 0; c <= k.channels; c++ {
		fs, ws, w := int(k.freqStarts[c]), int(k.wStarts[c]), int(k.ws[c])
		if w < 0 {
			continue // the loop runs no iteration
		}
		if fs < 0 || fs+w > bins {
			return fmt.Errorf("channel %d: frequency start %d and width %d leave input 0's %d bins", c, fs, w, bins)
		}
		if w > 0 && (ws < 0 || ws+w > len(weights)) {
			return fmt.Errorf("channel %d: weight start %d and width %d leave the %d weights", c, ws, w, len(weights))
		}
	}
	out, err := output(n, 0, "output", ops.Uint64)
	if err != nil {
		return err
	}
	out.Shape = []int{k.channels}
	if k.work, err = ops.Alloc[uint64](n, k.channels+1, "SignalFilterBank work area"); err != nil {
		return err
	}
	return nil
}

// Eval accumulates the channels.
func (k *FilterBank) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	wt, uw := n.Inputs[1], n.Inputs[2]
	if !hasData(in, wt, uw, out) {
		return errShort
	}
	x := in.Uint32s()
	weights, unweights := wt.Int16s(), uw.Int16s()
	var acc, unacc uint64
	for c := 0; c <= k.channels; c++ {
		fs, ws := int(k.freqStarts[c]), int(k.wStarts[c])
		for j := 0; j < int(k.ws[c]); j++ {
			e := uint64(x[fs+j])
			acc += uint64(int64(weights[ws+j])) * e
			unacc += uint64(int64(unweights[ws+j])) * e
		}
		k.work[c] = acc
		acc, unacc = unacc, 0
	}
	copy(out.Uint64s(), k.work[1:])
	return nil
}
