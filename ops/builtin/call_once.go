package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// CallOnce is the kernel of TFLite's CALL_ONCE operator: the first Eval
// runs the init subgraph (no inputs, no outputs: it usually assigns
// resource variables), once for the interpreter's lifetime, as TFLite's
// call_once.cc; later ones do nothing.
type CallOnce struct {
	init ops.Subgraph
	idx  int
}

// NewCallOnce returns a CALL_ONCE kernel for one node.
func NewCallOnce() ops.Kernel { return &CallOnce{} }

// CallOnceOptions is TFLite's CallOnceOptions.
type CallOnceOptions struct {
	InitSubgraphIndex int
}

// SubgraphIndices lists the subgraph the operator runs, for the loader
// to check it exists.
func (o *CallOnceOptions) SubgraphIndices() []int { return []int{o.InitSubgraphIndex} }

func init() {
	register(ops.OpCallOnce, NewCallOnce, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsCallOnceOptions, decodeCallOnceOptions)
}

// decodeCallOnceOptions decodes TFLite's CallOnceOptions table.
func decodeCallOnceOptions(t ops.OptionsTable) (any, error) {
	var o schema.CallOnceOptions
	initTable(&o, t)
	return &CallOnceOptions{InitSubgraphIndex: int(o.InitSubgraphIndex())}, nil
}

// Prepare checks the node and the init subgraph.
func (k *CallOnce) Prepare(n *ops.Node) error {
	*k = CallOnce{}
	o, ok := n.Options.(*CallOnceOptions)
	if !ok || o == nil {
		return fmt.Errorf("options: have %T, need *CallOnceOptions", n.Options)
	}
	if err := n.CheckIO(0, 0, 0); err != nil {
		return err
	}
	if n.Resources == nil {
		return errors.New("the node has no resource manager (run it in an interpreter)")
	}
	k.idx = o.InitSubgraphIndex
	if n.Resources.Initialized(k.idx) {
		return nil
	}
	var err error
	if k.init, err = openSubgraph(n, k.idx, "init"); err != nil {
		return err
	}
	return checkSubgraphIO(k.init, "init", 0, 0)
}

// Eval runs the init subgraph the first time.
func (k *CallOnce) Eval(n *ops.Node) error {
	if n.Resources.Initialized(k.idx) {
		return nil
	}
	if k.init == nil {
		return errors.New("CALL_ONCE: not prepared")
	}
	if err := k.init.Allocate(); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if err := k.init.Invoke(); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	n.Resources.MarkInitialized(k.idx)
	return nil
}
