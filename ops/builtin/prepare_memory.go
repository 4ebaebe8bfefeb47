package builtin

import (
	"unsafe"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The memory the convolution and FULLY_CONNECTED kernels allocate at
// Prepare, charged to the interpreter's memory bound (ops.Node.Reserve)
// before any of it is made: an upper bound of every table the kernel may
// build for the shapes at hand (packed weights, per-channel multipliers
// and requantisation tables, zero biases, row sums), whichever path it
// then takes. The sizes come from declared shapes, which a hostile model
// may make huge while the data stays empty (a [2^31-1, 0] weight matrix
// has no bytes but 2^31-1 rows), so they are checked before the kernel
// allocates rather than after.

// perChannelBytes bounds the per-output-channel tables of the quantised
// paths: the multiplier and shift (convQuant or the FULLY_CONNECTED
// fields), quantChannel, the float64 effective scale, row sums, seeds and
// a zero bias, plus arch.ChannelRequant's six rows.
const perChannelBytes = int64(4 + int(unsafe.Sizeof(int(0))) + int(unsafe.Sizeof(quantChannel{})) + 8 + 4 + 4 + 4 + 6*4)

// channelRequantFixed bounds arch.ChannelRequant's rounding of its rows up
// to 16 channels, and the 16-lane copy depthwise packing makes.
const channelRequantFixed = 2 * (6*4*16 + 64)

// reserveConv2D charges what Conv2D.Prepare allocates for outC output
// channels and patch rows of kk values: the packed float or int8 GEMM
// filter, a recentred copy of a uint8 filter, and the per-channel tables.
func reserveConv2D(n *ops.Node, outC, kk, filterElems int) error {
	b := int64(outC)*perChannelBytes + channelRequantFixed
	b += 4 * int64(arch.PackedGemmF32Len(outC, kk))
	b += int64(arch.PackedGemmInt8Len(outC, kk)) + int64(filterElems)
	return n.Memory.Reserve(b, "CONV_2D packed filter and per-channel tables")
}

// reserveDepthwise charges what DepthwiseConv2D.Prepare allocates for a
// fh×fw filter of outC channels: the float copy of an integer filter, the
// 16-lane packed filter, zero biases and the per-channel tables.
func reserveDepthwise(n *ops.Node, fh, fw, outC int) error {
	taps := int64(fh) * int64(fw)
	b := int64(outC)*perChannelBytes + channelRequantFixed
	b += 4*taps*int64(outC) + 4*16*taps
	return n.Memory.Reserve(b, "DEPTHWISE_CONV_2D converted filter and per-channel tables")
}

// reserveFullyConnected charges what FullyConnected.Prepare allocates for
// units rows of cols weights: the packed float matrix and the per-unit
// tables (row sums, per-channel multipliers, effective scales).
func reserveFullyConnected(n *ops.Node, units, cols int) error {
	b := int64(units) * perChannelBytes
	b += 4 * int64(arch.PackedLen(units, cols))
	return n.Memory.Reserve(b, "FULLY_CONNECTED packed weights and per-unit tables")
}
