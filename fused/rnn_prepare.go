package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// prepareCell validates one RNN direction's weights against n_input (and
// n_aux when the cell has auxiliary weights), sets c.units, and on the
// hybrid path reads the weight scales. wtype is the node's weight type,
// the type of its first input weights (float32 for the float path, int8 or
// uint8 for the hybrid path, as TFLite decides); every weight of the cell
// must have it.
func prepareCell(n *ops.Node, roles ioRoles, c *rnnCell, wtype ops.DataType) error {
	w, err := roles.require(n, c.w)
	if err != nil {
		return err
	}
	if err := roles.rank(n, c.w, 2); err != nil {
		return err
	}
	if w.Dim(1) != c.nInput {
		return fmt.Errorf("%s has shape %v, needs [units, %d] (the input size)", roles.label(n, c.w), w.Shape, c.nInput)
	}
	c.units = w.Dim(0)
	u := c.units
	if _, err := roles.require(n, c.rec); err != nil {
		return err
	}
	if err := roles.shape(n, c.rec, u, u); err != nil {
		return err
	}
	if _, err := roles.require(n, c.bias); err != nil {
		return err
	}
	if err := roles.shape(n, c.bias, u); err != nil {
		return err
	}
	if err := roles.dtype(n, c.bias, ops.Float32, "float and hybrid"); err != nil {
		return err
	}
	if c.aux >= 0 {
		if _, err := roles.require(n, c.aux); err != nil {
			return err
		}
		if err := roles.shape(n, c.aux, u, c.nAux); err != nil {
			return err
		}
	}
	if wtype != ops.Float32 {
		return c.prepareHybrid(n, roles, wtype)
	}
	c.hybrid = false
	for _, i := range []int{c.w, c.rec, c.aux} {
		if i < 0 {
			continue
		}
		if err := roles.dtype(n, i, ops.Float32, "float"); err != nil {
			return err
		}
	}
	return nil
}

// weightPath returns the node's weight type, the type of the weights
// input i: float32 (float path), or int8 or uint8 (hybrid path; TFLite's
// kernels read uint8 weights as int8 bit patterns, the legacy hybrid
// form). Other types are refused.
func weightPath(n *ops.Node, roles ioRoles, i int) (ops.DataType, error) {
	w, err := roles.require(n, i)
	if err != nil {
		return 0, err
	}
	switch w.Type {
	case ops.Float32, ops.Int8, ops.Uint8:
		return w.Type, nil
	}
	return 0, fmt.Errorf("%s is %s; the RNN kernels take float32 (float path) or int8 (hybrid path) weights", roles.label(n, i), w.Type)
}

// floatInput checks that input i is float32 (TFLite's RNN kernels take
// float activations on both paths).
func floatInput(n *ops.Node, roles ioRoles, i int) error {
	t := n.Input(i)
	if t.Type != ops.Float32 {
		return fmt.Errorf("%s is %s; the RNN kernels take float32 input (int8 weights make the hybrid path, integer RNNs do not exist in TFLite)", roles.label(n, i), t.Type)
	}
	return nil
}

// floatOutput checks that output i is float32.
func floatOutput(n *ops.Node, i int) error {
	t := n.Output(i)
	if t == nil {
		return fmt.Errorf("output %d is missing", i)
	}
	if t.Type != ops.Float32 {
		return fmt.Errorf("output %d (tensor %d) is %s, needs float32", i, t.Index, t.Type)
	}
	return nil
}
