package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Int4 weights of FULLY_CONNECTED (versions 10 and 13): TensorType INT4,
// two values to a byte in the model's buffer (element 2i in the low
// nibble of byte i, element 2i+1 in the high one, each sign-extended; an
// odd count leaves the last high nibble unused). TFLite's
// fully_connected.cc requires their zero points to be 0, unpacks them to
// int8 (tensor_utils::UnpackPackedIntToInt8) and then runs its int8
// arithmetic unchanged, for int8 and int16 inputs and for the hybrid
// float path. tflrun unpacks once at Prepare (the weights are constants:
// an int4 tensor has no run-time form).
//
// On the hybrid path TFLite has a second, 4-bit-specific kernel
// (optimized_4bit: its own input quantisation and accumulation) that it
// takes for constant weights whenever units ≥ 4, input_size ≥ 32 and
// input_size is even; tflrun does not implement that arithmetic and
// refuses those shapes, naming them. Smaller layers go through
// EvalHybridDense on the unpacked weights, as here.
//
// Int2 weights (version 14) take the same road: four values to a byte
// (element i in bits 2(i mod 4).. of byte i/4, sign-extended), zero points
// 0, unpacked to int8; TFLite has no 2-bit-specific kernel, so every
// shape runs the int8 arithmetic.

// fcInt4FilterWidth and fcInt4FilterDepth are TFLite's
// optimized_4bit::FilterWidth and FilterDepth, the smallest units and
// input_size its 4-bit hybrid kernel takes.
const (
	fcInt4FilterWidth = 4
	fcInt4FilterDepth = 32
)

// prepareInt4 checks int4 or int2 weights and unpacks them.
func (k *FullyConnected) prepareInt4(n *ops.Node, in, w *ops.Tensor) error {
	if w.Quant != nil {
		for i, z := range w.Quant.ZeroPoint {
			if z != 0 {
				return fmt.Errorf("%s: zero point %d at %d; %s weights must be symmetric", fcWeights, z, i, w.Type)
			}
		}
	}
	count := k.units * k.cols
	if need := w.Type.BytesFor(count); w.Kind != ops.ConstTensor || len(w.Data) < need {
		return fmt.Errorf("%s: %s weights must be a constant of %d packed bytes, have %d bytes", fcWeights, w.Type, need, len(w.Data))
	}
	if w.Type == ops.Int2 {
		if err := n.Memory.Reserve(int64(count), "FULLY_CONNECTED unpacked int2 weights"); err != nil {
			return err
		}
		k.w4 = make([]int8, count)
		for i := range k.w4 {
			k.w4[i] = int8(loadPacked(ops.Int2, w.Data, i))
		}
		return nil
	}
	if k.path == fcHybrid && k.batch > 0 && k.cols%2 == 0 && k.units >= fcInt4FilterWidth && k.cols >= fcInt4FilterDepth {
		return fmt.Errorf("%s: int4 weights [%d, %d] with float input take TensorFlow Lite's 4-bit hybrid kernel (units ≥ %d, even input_size ≥ %d), whose arithmetic tflrun does not implement", fcWeights, k.units, k.cols, fcInt4FilterWidth, fcInt4FilterDepth)
	}
	if err := n.Memory.Reserve(int64(count), "FULLY_CONNECTED unpacked int4 weights"); err != nil {
		return err
	}
	k.w4 = make([]int8, count)
	unpackInt4(k.w4, w.Data)
	return nil
}

// weights8 returns the weights as int8 values: the unpacked int4 ones, or
// the tensor's own.
func (k *FullyConnected) weights8(w *ops.Tensor) []int8 {
	if k.w4 != nil {
		return k.w4
	}
	return w.Int8s()
}

// unpackInt4 sets dst[i] to the sign-extended nibble i of src (low nibble
// first).
func unpackInt4(dst []int8, src []byte) {
	src = src[:(len(dst)+1)/2]
	for i := range dst {
		b := int8(src[i/2])
		if i%2 == 0 {
			dst[i] = b << 4 >> 4
		} else {
			dst[i] = b >> 4
		}
	}
}
