package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// StablehloComposite is the kernel of TFLite's STABLEHLO_COMPOSITE
// operator: a named composite (Name, Version, attributes) that TFLite's
// builtin kernel runs as a call of its decomposition subgraph on all the
// node's inputs, the subgraph's outputs being the operator's (TFLite's
// stablehlo_composite.cc; the name and attributes do not change the
// result). The subgraph is prepared at the inputs' shapes; a dynamic
// subgraph output makes the operator's outputs dynamic.
type StablehloComposite struct {
	sg      ops.Subgraph
	dynamic bool
}

// StablehloCompositeOptions is TFLite's StableHLOCompositeOptions.
// CompositeAttributes (a FlexBuffer) is kept as bytes, unread by the
// kernel.
type StablehloCompositeOptions struct {
	Name                       string
	DecompositionSubgraphIndex int
	CompositeAttributes        []byte
	Version                    int
}

// SubgraphIndices lists the subgraph the operator runs, for the loader to
// check it exists.
func (o *StablehloCompositeOptions) SubgraphIndices() []int {
	return []int{o.DecompositionSubgraphIndex}
}

// NewStablehloComposite returns a STABLEHLO_COMPOSITE kernel for one node.
func NewStablehloComposite() ops.Kernel { return &StablehloComposite{} }

func init() {
	register(ops.OpStablehloComposite, NewStablehloComposite, [2]int{1, 1})
	registerOptions2(schema.BuiltinOptions2StableHLOCompositeOptions, decodeStablehloCompositeOptions)
}

// decodeStablehloCompositeOptions decodes TFLite's
// StableHLOCompositeOptions table.
func decodeStablehloCompositeOptions(t ops.OptionsTable) (any, error) {
	var o schema.StableHLOCompositeOptions
	initTable(&o, t)
	return &StablehloCompositeOptions{
		Name:                       string(o.Name()),
		DecompositionSubgraphIndex: int(o.DecompositionSubgraphIndex()),
		CompositeAttributes:        append([]byte(nil), o.CompositeAttributesBytes()...),
		Version:                    int(o.Version()),
	}, nil
}

// Prepare opens and prepares the decomposition and sizes the outputs.
func (k *StablehloComposite) Prepare(n *ops.Node) error {
	*k = StablehloComposite{}
	o, ok := n.Options.(*StablehloCompositeOptions)
	if !ok || o == nil {
		return fmt.Errorf("options: have %T, need *StablehloCompositeOptions", n.Options)
	}
	if len(n.Inputs) == 0 {
		return errors.New("has no inputs (TFLite requires at least one)")
	}
	sgs, dyn, err := prepareCalls(n, []int{o.DecompositionSubgraphIndex}, n.Inputs, "decomposition "+fmt.Sprintf("%q", o.Name))
	if err != nil {
		return err
	}
	k.sg, k.dynamic = sgs[0], dyn
	return nil
}

// Eval calls the decomposition.
func (k *StablehloComposite) Eval(n *ops.Node) error {
	if k.sg == nil {
		return errors.New("STABLEHLO_COMPOSITE: not prepared")
	}
	return runCall(n, k.sg, n.Inputs, k.dynamic)
}
