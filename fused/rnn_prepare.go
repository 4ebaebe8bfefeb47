package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// prepareCell validates one RNN direction's weights against n_input (and
// n_aux when the cell has auxiliary weights), sets c.units, and on the
// hybrid path reads the weight scales. hybrid says which path the node
// takes (chosen by the type of its first input weights, as TFLite does);
// every weight of the cell must have that path's type.
func prepareCell(n *ops.Node, roles ioRoles, c *rnnCell, hybrid bool) error {
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
	if hybrid {
		return c.prepareHybrid(n, roles)
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

// weightPath decides between the float and hybrid paths from the type of
// the weights input i, and refuses the types TFLite's RNN kernels do not
// compute correctly.
func weightPath(n *ops.Node, roles ioRoles, i int) (hybrid bool, err error) {
	w, err := roles.require(n, i)
	if err != nil {
		return false, err
	}
	switch w.Type {
	case ops.Float32:
		return false, nil
	case ops.Int8:
		return true, nil
	case ops.Uint8:
		return false, fmt.Errorf("%s is uint8: hybrid weights must be int8 (TFLite reinterprets uint8 weights as int8)", roles.label(n, i))
	}
	return false, fmt.Errorf("%s is %s; the RNN kernels take float32 (float path) or int8 (hybrid path) weights", roles.label(n, i), w.Type)
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
