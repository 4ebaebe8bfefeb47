package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// StablehloCase is the kernel of TFLite's STABLEHLO_CASE operator
// (StableHLO's case): input 0 is an int32 index of one element, the other
// inputs are passed to the branch subgraph it picks, and that branch's
// outputs are the operator's. An index outside [0, number of branches)
// picks the last branch, as StableHLO and TFLite's stablehlo_case.cc
// specify. Every branch is prepared at the inputs' shapes; when a branch
// has a dynamic output or the branches' output shapes differ, the outputs
// are dynamic tensors. (TFLite's Prepare also requires every subgraph of
// the model but the first, branch or not, to have the node's numbers of
// inputs and outputs; tflrun checks the branches only.)
type StablehloCase struct {
	branches []ops.Subgraph
	dynamic  bool
}

// StablehloCaseOptions is TFLite's StablehloCaseOptions: the subgraph of
// each branch, in index order.
type StablehloCaseOptions struct {
	BranchSubgraphIndices []int
}

// SubgraphIndices lists the subgraphs the operator runs, for the loader
// to check they exist.
func (o *StablehloCaseOptions) SubgraphIndices() []int { return o.BranchSubgraphIndices }

// NewStablehloCase returns a STABLEHLO_CASE kernel for one node.
func NewStablehloCase() ops.Kernel { return &StablehloCase{} }

func init() {
	register(ops.OpStablehloCase, NewStablehloCase, [2]int{1, 1})
	registerOptions2(schema.BuiltinOptions2StablehloCaseOptions, decodeStablehloCaseOptions)
}

// decodeStablehloCaseOptions decodes TFLite's StablehloCaseOptions table.
func decodeStablehloCaseOptions(t ops.OptionsTable) (any, error) {
	var o schema.StablehloCaseOptions
	initTable(&o, t)
	return &StablehloCaseOptions{BranchSubgraphIndices: intList(o.BranchSubgraphIndicesLength(), o.BranchSubgraphIndices)}, nil
}

// Prepare opens and prepares every branch and sizes the outputs.
func (k *StablehloCase) Prepare(n *ops.Node) error {
	*k = StablehloCase{}
	o, ok := n.Options.(*StablehloCaseOptions)
	if !ok || o == nil {
		return fmt.Errorf("options: have %T, need *StablehloCaseOptions", n.Options)
	}
	if len(o.BranchSubgraphIndices) == 0 {
		return errors.New("options: no branches")
	}
	if len(n.Inputs) < 1 || n.Inputs[0] == nil {
		return errors.New("input 0 (index) is missing")
	}
	idx := n.Inputs[0]
	if idx.Type != ops.Int32 || idx.NumElements() != 1 {
		return fmt.Errorf("input 0 (index): %s %v, need one int32", idx.Type, idx.Shape)
	}
	var err error
	k.branches, k.dynamic, err = prepareCalls(n, o.BranchSubgraphIndices, n.Inputs[1:], "branch")
	return err
}

// Eval runs the branch the index picks.
func (k *StablehloCase) Eval(n *ops.Node) error {
	if len(k.branches) == 0 {
		return errors.New("STABLEHLO_CASE: not prepared")
	}
	idx := n.Inputs[0]
	if err := checkData(idx); err != nil {
		return err
	}
	b := int(idx.Int32s()[0])
	if b < 0 || b >= len(k.branches) {
		b = len(k.branches) - 1
	}
	if err := runCall(n, k.branches[b], n.Inputs[1:], k.dynamic); err != nil {
		return fmt.Errorf("branch %d: %w", b, err)
	}
	return nil
}
