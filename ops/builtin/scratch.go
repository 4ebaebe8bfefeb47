package builtin

import (
	"errors"

	"github.com/tflrun/tflrun/ops"
)

// errScratch is returned by Eval when the interpreter did not provide the
// scratch buffers the kernel requested at Prepare.
var errScratch = errors.New("scratch buffer missing or smaller than requested at Prepare")

// scratchBytes returns scratch buffer id with at least size bytes.
func scratchBytes(n *ops.Node, id, size int) ([]byte, error) {
	if id < 0 || id >= len(n.Scratch) || len(n.Scratch[id]) < size {
		return nil, errScratch
	}
	return n.Scratch[id][:size], nil
}

// scratchInt32 views scratch buffer id as count int32 values.
func scratchInt32(n *ops.Node, id, count int) ([]int32, error) {
	b, err := scratchBytes(n, id, 4*count)
	if err != nil {
		return nil, err
	}
	return ops.View[int32](b)[:count:count], nil
}

// scratchFloat32 views scratch buffer id as count float32 values.
func scratchFloat32(n *ops.Node, id, count int) ([]float32, error) {
	b, err := scratchBytes(n, id, 4*count)
	if err != nil {
		return nil, err
	}
	return ops.View[float32](b)[:count:count], nil
}

// scratchInt8 views scratch buffer id as count int8 values.
func scratchInt8(n *ops.Node, id, count int) ([]int8, error) {
	b, err := scratchBytes(n, id, count)
	if err != nil {
		return nil, err
	}
	return ops.View[int8](b)[:count:count], nil
}
