package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// FilterBankSquareRootName is the custom code of TFLite Micro's filter
// bank square root (signal/micro/kernels/filter_bank_square_root.cc and
// _common.cc, arithmetic in signal/src/filter_bank_square_root.cc,
// square_root_32.cc and square_root_64.cc).
const FilterBankSquareRootName = "SignalFilterBankSquareRoot"

// FilterBankSquareRoot is the kernel of SignalFilterBankSquareRoot: the
// integer square root of each channel, shifted right.
//
// Input 0 is uint64 [c], input 1 the int32 scalar scale_bits (SignalFft
// AutoScale's shift); output 0 is uint32 [c] = Sqrt64(input) >>
// scale_bits, where Sqrt64 is TFLite Micro's bitwise square root rounded
// to nearest (it adds one when the remainder exceeds the root, short of
// 0xFFFFFFFF; Sqrt32, the same with a 0xFFFF cap, for inputs below
// 2^32). A scale_bits outside 0 to 31 (a shift C leaves undefined) is an
// error at Eval. No options.
type FilterBankSquareRoot struct{}

// NewFilterBankSquareRoot returns a SignalFilterBankSquareRoot kernel for
// one node.
func NewFilterBankSquareRoot() ops.Kernel { return &FilterBankSquareRoot{} }

func init() { register(FilterBankSquareRootName, NewFilterBankSquareRoot) }

// Prepare validates the node and sets the output shape.
func (k *FilterBankSquareRoot) Prepare(n *ops.Node) error {
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, _, err := input(n, 0, "input", ops.Uint64, 1)
	if err != nil {
		return err
	}
	if _, _, err := input(n, 1, "scale_bits", ops.Int32, 0); err != nil {
		return err
	}
	out, err := output(n, 0, "output", ops.Uint32)
	if err != nil {
		return err
	}
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval takes the roots.
func (k *FilterBankSquareRoot) Eval(n *ops.Node) error {
	in, sb, out := n.Inputs[0], n.Inputs[1], n.Outputs[0]
	if !hasData(in, sb, out) {
		return errShort
	}
	s := sb.Int32s()[0]
	if s < 0 || s > 31 {
		return fmt.Errorf("input 1 (scale_bits): %d, need 0 to 31", s)
	}
	y := out.Uint32s()
	for i, v := range in.Uint64s()[:in.NumElements()] {
		y[i] = sqrt64(v) >> uint(s)
	}
	return nil
}

// sqrt32 is tflm_signal::Sqrt32.
func sqrt32(num uint32) uint16 {
	if num == 0 {
		return 0
	}
	var res uint32
	maxBit := int(32-msb32(num)) | 1
	bit := uint32(1) << (31 - maxBit)
	for it := (31-maxBit)/2 + 1; it > 0; it-- {
		if num >= res+bit {
			num -= res + bit
			res = res>>1 + bit
		} else {
			res >>= 1
		}
		bit >>= 2
	}
	if num > res && res != 0xFFFF {
		res++
	}
	return uint16(res)
}

// sqrt64 is tflm_signal::Sqrt64.
func sqrt64(num uint64) uint32 {
	if num>>32 == 0 {
		return uint32(sqrt32(uint32(num)))
	}
	var res uint64
	maxBit := int(64-msb64(num)) | 1
	bit := uint64(1) << (63 - maxBit)
	for it := (63-maxBit)/2 + 1; it > 0; it-- {
		if num >= res+bit {
			num -= res + bit
			res = res>>1 + bit
		} else {
			res >>= 1
		}
		bit >>= 2
	}
	if num > res && res != 0xFFFFFFFF {
		res++
	}
	return uint32(res)
}
