package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// VarHandle is the kernel of TFLite's VAR_HANDLE operator: its output (a
// resource scalar) receives the id of the resource variable named by
// VarHandleOptions' container and shared_name in the interpreter's
// resource manager, as TFLite's var_handle.cc (ids are given in the order
// names are first met).
type VarHandle struct {
	id int32
}

// NewVarHandle returns a VAR_HANDLE kernel for one node.
func NewVarHandle() ops.Kernel { return &VarHandle{} }

// VarHandleOptions is TFLite's VarHandleOptions.
type VarHandleOptions struct {
	Container, SharedName string
}

func init() {
	register(ops.OpVarHandle, NewVarHandle, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsVarHandleOptions, decodeVarHandleOptions)
}

// decodeVarHandleOptions decodes TFLite's VarHandleOptions table.
func decodeVarHandleOptions(t ops.OptionsTable) (any, error) {
	var o schema.VarHandleOptions
	initTable(&o, t)
	return &VarHandleOptions{Container: string(o.Container()), SharedName: string(o.SharedName())}, nil
}

// Prepare looks the variable up and makes the output a resource scalar.
func (k *VarHandle) Prepare(n *ops.Node) error {
	*k = VarHandle{}
	if err := n.CheckIO(0, 0, 1); err != nil {
		return err
	}
	var o VarHandleOptions
	if p, ok := n.Options.(*VarHandleOptions); ok && p != nil {
		o = *p
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *VarHandleOptions", n.Options)
	}
	if n.Resources == nil {
		return errors.New("the node has no resource manager (run it in an interpreter)")
	}
	out := n.Output(0)
	if out.Type != ops.Resource && out.Type != ops.Int32 {
		return fmt.Errorf("output 0: type %s, need resource", out.Type)
	}
	k.id = n.Resources.ResourceID(o.Container, o.SharedName)
	out.Shape = []int{}
	return nil
}

// Eval writes the id.
func (k *VarHandle) Eval(n *ops.Node) error {
	out := n.Output(0)
	if out == nil || len(out.Data) < 4 {
		return errShortData
	}
	ops.View[int32](out.Data)[0] = k.id
	return nil
}

// resourceID reads the variable id held by a resource (or int32) tensor
// of one element, as READ_VARIABLE and ASSIGN_VARIABLE take it.
func resourceID(t *ops.Tensor) (int32, error) {
	if len(t.Data) < 4 {
		return 0, errShortData
	}
	return ops.View[int32](t.Data)[0], nil
}

// checkResourceInput validates input 0 of READ_VARIABLE and
// ASSIGN_VARIABLE: a resource (or int32) tensor of one element.
func checkResourceInput(n *ops.Node) error {
	t, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if t.Type != ops.Resource && t.Type != ops.Int32 {
		return fmt.Errorf("input 0 (resource): type %s, need resource or int32", t.Type)
	}
	if t.NumElements() != 1 {
		return fmt.Errorf("input 0 (resource): shape %v, need one element", t.Shape)
	}
	if n.Resources == nil {
		return errors.New("the node has no resource manager (run it in an interpreter)")
	}
	return nil
}

func errUnsupportedValueType(t *ops.Tensor) error {
	return fmt.Errorf("input 1 (value): type %s is not supported", t.Type)
}
