package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Helpers of the control-flow kernels (WHILE, IF), which run other
// subgraphs of the model through ops.SubgraphSource and copy tensors in
// and out of them, as TFLite's control_flow_common.h does (tflrun always
// copies; TFLite shares some buffers, which changes no result).

// openSubgraph returns a runner of subgraph index for node n, naming role
// ("cond", "body", "then", "else") in its errors.
func openSubgraph(n *ops.Node, index int, role string) (ops.Subgraph, error) {
	if n.Subgraphs == nil {
		return nil, errors.New("the node has no access to the model's subgraphs (run it in an interpreter)")
	}
	sg, err := n.Subgraphs.Subgraph(index)
	if err != nil {
		return nil, fmt.Errorf("options: %s subgraph: %w", role, err)
	}
	return sg, nil
}

// checkSubgraphIO checks that sg has ins inputs and outs outputs.
func checkSubgraphIO(sg ops.Subgraph, role string, ins, outs int) error {
	if sg.InputCount() != ins || sg.OutputCount() != outs {
		return fmt.Errorf("%s subgraph %d has %d inputs and %d outputs, the operator needs %d and %d",
			role, sg.Index(), sg.InputCount(), sg.OutputCount(), ins, outs)
	}
	return nil
}

// checkSameType refuses a tensor of another type than want, and types
// without a fixed element size (strings), which tflrun's control flow
// does not carry. Resources and variants are 4-byte handles (a variable
// id, a TensorList handle) and pass as any int32.
func checkSameType(t *ops.Tensor, want ops.DataType, label string) error {
	if t == nil {
		return fmt.Errorf("%s is missing", label)
	}
	if t.Type.Size() == 0 {
		return fmt.Errorf("%s: type %s is not supported in control flow", label, t.Type)
	}
	if t.Type != want {
		return fmt.Errorf("%s: type %s differs from %s", label, t.Type, want)
	}
	return nil
}

// feedSubgraph copies src[i] into input i of sg, first resizing the
// inputs whose shapes differ and allocating sg again when any did (or it
// is not allocated). With stable shapes it allocates nothing.
func feedSubgraph(sg ops.Subgraph, src []*ops.Tensor) error {
	changed := !sg.Allocated()
	for i, t := range src {
		in := sg.Input(i)
		if !ops.SameShape(in.Shape, t.Shape) {
			if err := sg.ResizeInput(i, t.Shape); err != nil {
				return fmt.Errorf("subgraph %d input %d: %w", sg.Index(), i, err)
			}
			changed = true
		}
	}
	if changed {
		if err := sg.Allocate(); err != nil {
			return err
		}
	}
	for i, t := range src {
		if err := copyTensorData(sg.Input(i), t); err != nil {
			return fmt.Errorf("subgraph %d input %d: %w", sg.Index(), i, err)
		}
	}
	return nil
}

// copyTensorData copies src's bytes into dst, which must have its shape.
func copyTensorData(dst, src *ops.Tensor) error {
	if !ops.SameShape(dst.Shape, src.Shape) {
		return fmt.Errorf("shape %v, the value has shape %v", dst.Shape, src.Shape)
	}
	nb := src.Bytes()
	if len(dst.Data) < nb || len(src.Data) < nb {
		return errShortData
	}
	copy(dst.Data[:nb], src.Data[:nb])
	return nil
}

// setOutputFrom sizes output i of n as src (resizing it when dynamic) and
// copies src into it.
func setOutputFrom(n *ops.Node, i int, src *ops.Tensor, dynamic bool) error {
	if dynamic {
		if err := n.ResizeOutput(i, src.Shape); err != nil {
			return err
		}
	}
	if err := copyTensorData(n.Outputs[i], src); err != nil {
		return fmt.Errorf("output %d: %w", i, err)
	}
	return nil
}

// boolValue reads the single element of a bool tensor (a scalar or a
// one-element vector), as TFLite's while.cc and if.cc read a condition.
func boolValue(t *ops.Tensor, label string) (bool, error) {
	if t == nil || t.Type != ops.Bool {
		return false, fmt.Errorf("%s must be bool", label)
	}
	if t.NumElements() != 1 || len(t.Data) < 1 {
		return false, fmt.Errorf("%s: shape %v, need a single element", label, t.Shape)
	}
	return t.Data[0] != 0, nil
}

// freezeLists marks the TensorLists held by the variant tensors among ts
// as shared (ops.TensorLists.Freeze): control flow calls it on the
// values it passes into a subgraph, which stay visible outside, so that
// a write inside copies the list instead of changing it in place.
func freezeLists(n *ops.Node, ts []*ops.Tensor) {
	if n.Lists == nil {
		return
	}
	for _, t := range ts {
		if t == nil || t.Type != ops.Variant || len(t.Data) < 4 || t.NumElements() != 1 {
			continue
		}
		n.Lists.TensorLists().Freeze(ops.View[int32](t.Data)[0])
	}
}

// prepareCalls opens the subgraphs a STABLEHLO_CASE or STABLEHLO_COMPOSITE
// node may call with the arguments args, checks their inputs and outputs
// against args and n's outputs, prepares them at the arguments' shapes
// and sizes n's outputs: dynamic when any callee's output is dynamic or
// the callees' output shapes differ (as TFLite's stablehlo_case.cc and
// stablehlo_composite.cc). role names the callees in errors.
func prepareCalls(n *ops.Node, indices []int, args []*ops.Tensor, role string) (sgs []ops.Subgraph, dynamic bool, err error) {
	for c, idx := range indices {
		r := fmt.Sprintf("%s %d", role, c)
		sg, err := openSubgraph(n, idx, r)
		if err != nil {
			return nil, false, err
		}
		if err := checkSubgraphIO(sg, r, len(args), len(n.Outputs)); err != nil {
			return nil, false, err
		}
		for i, a := range args {
			if a == nil {
				return nil, false, fmt.Errorf("argument %d is omitted", i)
			}
			if err := checkSameType(sg.Input(i), a.Type, fmt.Sprintf("%s (subgraph %d) input %d", r, sg.Index(), i)); err != nil {
				return nil, false, err
			}
			if err := sg.ResizeInput(i, a.Shape); err != nil {
				return nil, false, fmt.Errorf("%s (subgraph %d) input %d: %w", r, sg.Index(), i, err)
			}
		}
		for j, out := range n.Outputs {
			if out == nil {
				return nil, false, fmt.Errorf("output %d is omitted", j)
			}
			if err := checkSameType(sg.Output(j), out.Type, fmt.Sprintf("%s (subgraph %d) output %d", r, sg.Index(), j)); err != nil {
				return nil, false, err
			}
		}
		if err := sg.Allocate(); err != nil {
			return nil, false, err
		}
		sgs = append(sgs, sg)
	}
	for j := range n.Outputs {
		ref := sgs[0].Output(j)
		for _, sg := range sgs {
			o := sg.Output(j)
			if o.Kind == ops.DynamicTensor || !ops.SameShape(o.Shape, ref.Shape) {
				dynamic = true
			}
		}
	}
	for j := range n.Outputs {
		if dynamic {
			if err := n.SetOutputDynamic(j); err != nil {
				return nil, false, err
			}
		} else {
			n.Outputs[j].Shape = copyShape(sgs[0].Output(j).Shape)
		}
	}
	return sgs, dynamic, nil
}

// runCall runs sg on args and copies its outputs into n's.
func runCall(n *ops.Node, sg ops.Subgraph, args []*ops.Tensor, dynamic bool) error {
	freezeLists(n, args)
	if err := feedSubgraph(sg, args); err != nil {
		return err
	}
	if err := sg.Invoke(); err != nil {
		return err
	}
	for j := range n.Outputs {
		if err := setOutputFrom(n, j, sg.Output(j), dynamic); err != nil {
			return err
		}
	}
	return nil
}
