package builtin

import (
	"errors"

	"github.com/tflrun/tflrun/ops"
)

// BitwiseXor is the kernel of TFLite's BITWISE_XOR operator: out[i] =
// a[i] ^ b[i] with numpy-style broadcasting, on the two's-complement bits.
// Types, as TFLite's bitwise_xor.cc: int8, uint8, int16, uint16, int32,
// uint32 (both inputs and the output of one type). Version 1, as TFLite's
// register.cc.
type BitwiseXor struct {
	bc   broadcast
	elem int
}

// NewBitwiseXor returns a BITWISE_XOR kernel for one node.
func NewBitwiseXor() ops.Kernel { return &BitwiseXor{} }

func init() {
	register(ops.OpBitwiseXor, NewBitwiseXor, [2]int{1, 1})
}

// Prepare checks the types and the broadcast.
func (k *BitwiseXor) Prepare(n *ops.Node) error {
	*k = BitwiseXor{}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Int8, ops.Uint8, ops.Int16, ops.Uint16, ops.Int32, ops.Uint32); err != nil {
		return err
	}
	k.elem = a.Type.Size()
	return nil
}

// Eval computes the XORs.
func (k *BitwiseXor) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("BITWISE_XOR: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	// XOR is the same on signed and unsigned bits: view every type as
	// unsigned words of its size.
	switch k.elem {
	case 1:
		broadcastApply(&k.bc, a.Data, b.Data, out.Data, func(x, y uint8) uint8 { return x ^ y })
	case 2:
		broadcastApply(&k.bc, ops.View[uint16](a.Data), ops.View[uint16](b.Data), ops.View[uint16](out.Data), func(x, y uint16) uint16 { return x ^ y })
	default:
		broadcastApply(&k.bc, ops.View[uint32](a.Data), ops.View[uint32](b.Data), ops.View[uint32](out.Data), func(x, y uint32) uint32 { return x ^ y })
	}
	return nil
}
