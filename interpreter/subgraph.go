package interpreter

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"unsafe"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// subgraph is the runtime form of one subgraph: tensors with their current
// shapes and data, and one node + kernel per operator.
type subgraph struct {
	index   int
	info    *SubgraphInfo
	tensors []ops.Tensor
	nodes   []node
	inputs  []int
	outputs []int
}

type node struct {
	ops.Node
	kernel ops.Kernel
	reg    ops.Registration
	// once marks a node whose output is a PrecomputedTensor: Eval ran at
	// AllocateTensors and Invoke skips it.
	once bool
	// empty marks a node with nothing to compute (see emptyNode): Invoke
	// skips it.
	empty bool
	// deferred marks a node that reads a dynamic tensor: it is prepared
	// at Invoke (see prepareDeferred). dynOut marks a node with an output
	// its kernel made dynamic (sized by its Eval).
	deferred, dynOut bool
	// valueDeps marks a deferred node whose Prepare needs the values of
	// non-constant inputs (it returned an ops.NotConstantError): it is
	// prepared again when those values change too.
	valueDeps bool
	// padFolded marks a PAD whose convolution reads its input with the
	// padding folded in (fuse_pad.go): Invoke skips it (empty is set
	// too) and its tensors take no part in the arena plan.
	// padRerouted marks that convolution: its input 0 and options are
	// not the model's until the next AllocateTensors restores them.
	padFolded, padRerouted bool
	// actFolded marks an activation whose producer applies it
	// (fuse_act.go): its kernel is a copy, in place where the planner
	// shares the buffer. actRerouted marks that producer: its options
	// are not the model's until the next AllocateTensors restores them.
	actFolded, actRerouted bool
}

// emptyNode reports whether node n, prepared, has nothing to compute:
// it has outputs, every one of them has no elements, and so has every
// variable tensor among its inputs (no state to update). A hostile model
// can give empty tensors huge outer dimensions ([2^31-1, 0, 2^31-1]), and
// kernels that loop over the outer dimensions before the inner ones
// (CONCATENATION, DEPTH_TO_SPACE, the recurrent kernels' time steps)
// spun for minutes writing nothing; skipping the node bounds them all.
// Outputs are sized at Prepare, so the decision holds for every Invoke
// until the next AllocateTensors.
func emptyNode(n *ops.Node) bool {
	if len(n.Outputs) == 0 {
		return false // ASSIGN_VARIABLE and the like act only on state
	}
	for _, out := range n.Outputs {
		if out != nil && out.NumElements() != 0 {
			return false
		}
	}
	for _, in := range n.Inputs {
		if in != nil && in.Kind == ops.VariableTensor && in.NumElements() != 0 {
			return false
		}
	}
	return true
}

func newSubgraph(index int, info *SubgraphInfo) *subgraph {
	sg := &subgraph{index: index, info: info, inputs: info.Inputs, outputs: info.Outputs}
	sg.tensors = make([]ops.Tensor, len(info.Tensors))
	for i := range info.Tensors {
		ti := &info.Tensors[i]
		t := &sg.tensors[i]
		t.Index = i
		t.Name = ti.Name
		t.Type = ti.Type
		t.Shape = append([]int(nil), ti.Shape...)
		t.Signature = ti.Signature
		t.Quant = ti.Quant
		t.Blockwise = ti.Blockwise
		t.Sparsity = ti.Sparsity
		switch {
		case ti.data != nil:
			t.Kind = ops.ConstTensor
			t.Data = ti.data
			if ti.densify != nil {
				values, densify := ti.data, ti.densify
				t.Densify = func(dst []byte) error { return densify(dst, values) }
			}
		case ti.IsVariable:
			t.Kind = ops.VariableTensor
		default:
			t.Kind = ops.ArenaTensor
		}
	}
	sg.nodes = make([]node, len(info.Operators))
	for i := range info.Operators {
		oi := &info.Operators[i]
		n := &sg.nodes[i].Node
		n.Subgraph, n.Index = index, i
		n.OpName, n.Op, n.Version = oi.Name, oi.Op, oi.Version
		n.Options, n.CustomOptions = oi.Options, oi.CustomOptions
		n.Inputs = sg.tensorList(oi.Inputs)
		n.Outputs = sg.tensorList(oi.Outputs)
		n.Intermediates = sg.tensorList(oi.Intermediates)
	}
	return sg
}

func (sg *subgraph) tensorList(idx []int) []*ops.Tensor {
	l := make([]*ops.Tensor, len(idx))
	for i, x := range idx {
		if x >= 0 {
			l[i] = &sg.tensors[x]
		}
	}
	return l
}

// AllocateTensors resolves a kernel for every operator, runs the kernels'
// Prepare in execution order (propagating shapes), plans the arena and
// binds every tensor to its memory. Variable tensors are (re)allocated and
// reset (see ResetVariableTensors). A DEQUANTIZE or DENSIFY whose input is
// a constant (or such a precomputed output) gets its output as an
// ops.PrecomputedTensor (see precomputable): the
// output is placed outside the arena and the operator's Eval runs here,
// once, right after its Prepare (so the operators that read it see a
// constant at their own Prepare), instead of at every Invoke; its errors
// are reported here too.
// It must be called before the first
// Invoke and after ResizeInputTensor. Errors name the operator (its
// TFLite name, version, index and subgraph): an operator tflrun lacks, an
// unsupported version or type combination, a shape mismatch, or memory
// beyond Options.MaxArenaBytes (every kernel's tables and packed weights
// are charged before they are made). As in Invoke, a kernel panic or a
// memory fault becomes an error naming the operator and its kernel
// (wrapping ErrPanic or ErrMemoryFault).
func (it *Interpreter) AllocateTensors() (err error) {
	if err := it.enter(); err != nil {
		return err
	}
	defer it.exit()
	it.allocated = false
	arch.BeginRun()
	defer it.guard(&err, debug.SetPanicOnFault(true))
	return it.allocate()
}

// nodeOverhead is the memory charged per operator for what its kernel
// allocates without reserving it: the kernel value and lists of a few
// words per input, output and dimension.
func nodeOverhead(n *ops.Node) int64 {
	words := int64(len(n.Inputs) + len(n.Outputs) + len(n.Intermediates))
	for _, list := range [][]*ops.Tensor{n.Inputs, n.Outputs, n.Intermediates} {
		for _, t := range list {
			if t != nil {
				words += int64(len(t.Shape))
			}
		}
	}
	return 64 + 16*words
}

func (it *Interpreter) allocate() error {
	sg := it.sg
	it.unfoldPads() // fuse_pad.go
	// Forget the charges of the previous allocation: its kernels, arena
	// and persistent storage are replaced below.
	it.budget.SetUsed(it.baseBytes)
	it.kernelBytes = 0
	it.tensorLists = nil // its charges are gone with the rest (lists.go)
	// Arena tensors get their shapes from Prepare; drop stale data.
	// Precomputed tensors start as arena tensors again and are decided
	// anew below.
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind == ops.PrecomputedTensor || t.Kind == ops.DynamicTensor {
			t.Kind = ops.ArenaTensor
		}
		if t.Kind != ops.ConstTensor {
			t.Data = nil
		}
	}
	fusedFloat := it.fusedFloat && !hasHybridOps(sg)
	for k := range sg.nodes {
		sg.nodes[k].FusedFloat = fusedFloat
	}
	if it.threads > 1 && it.pool == nil {
		it.pool = parallel.New(it.threads)
		it.lease.pool = it.pool
		for k := range sg.nodes {
			sg.nodes[k].Pool = it.pool
		}
	}
	isInput := make([]bool, len(sg.tensors))
	for _, i := range sg.inputs {
		isInput[i] = true
	}
	it.preBytes, it.preKept, it.preFree, it.preBufs = 0, 0, nil, nil
	it.dynBytes = 0
	if err := it.budget.Reserve(int64(len(sg.tensors))*int64(unsafe.Sizeof(dynBuf{}))+int64(len(sg.nodes))*int64(unsafe.Sizeof(deferState{})), "the dynamic-tensor state"); err != nil {
		return err
	}
	it.dyn = make([]dynBuf, len(sg.tensors))
	it.deferred = make([]deferState, len(sg.nodes))
	writers := make([]int, len(sg.tensors))
	for i := range sg.nodes {
		for _, out := range sg.nodes[i].Outputs {
			if out != nil {
				writers[out.Index]++
			}
		}
	}
	// A tensor larger than the whole bound is refused before any kernel
	// sees it: kernels may loop over its dimensions at Prepare (bands,
	// tables) before the planner would refuse it.
	for i := range sg.tensors {
		if t := &sg.tensors[i]; t.Kind == ops.VariableTensor || isInput[i] {
			if err := it.fits(t); err != nil {
				return err
			}
		}
	}
	rel := it.newReleaser(isInput)
	fold := it.newPadFold()
	for i := range sg.nodes {
		var err error
		if p, opts := fold.foldable(it, i, isInput); p >= 0 {
			err = it.prepareFolded(i, p, opts, isInput, writers)
		} else if a, opts := fold.actFoldable(it, i, isInput); a >= 0 {
			err = it.prepareActFolded(i, a, opts, isInput, writers)
		} else {
			err = it.prepareNode(i, isInput, writers)
		}
		if err == nil && sg.nodes[i].actFolded {
			it.finishActFold(i)
		}
		if err == nil && it.diag == nil {
			rel.prepared(&sg.nodes[i], i)
		}
		if err != nil {
			if it.diag == nil {
				return err
			}
			// Diagnose: note it and go on with the outputs at the
			// shapes the model declares.
			*it.diag = append(*it.diag, err)
			nd := &sg.nodes[i]
			nd.kernel = nil
			for _, out := range nd.Outputs {
				if out != nil && !isInput[out.Index] && out.Kind != ops.ConstTensor {
					out.Kind = ops.ArenaTensor
					out.Shape = append([]int(nil), sg.info.Tensors[out.Index].Shape...)
				}
			}
		}
	}
	if it.diag != nil {
		it.cur = -1
		return nil
	}
	it.cur = -1
	it.preFree = nil
	it.fuseLUTs()
	it.kernelBytes = it.budget.Used() - it.baseBytes - int64(it.preBytes)
	if err := it.plan(); err != nil {
		return err
	}
	it.opNanos = make([]int64, len(sg.nodes))
	it.opCounts = make([]int64, len(sg.nodes))
	it.allocated = true
	it.savePlannedInputs() // tensor_access.go
	it.resetVariables()
	return nil
}

// fits returns an error when tensor t alone needs more than the memory
// bound (nil when its shape is not known yet).
func (it *Interpreter) fits(t *ops.Tensor) error {
	if it.maxBytes < 0 || t.Shape == nil {
		return nil
	}
	n, err := ops.ShapeElements(t.Shape, t.Type.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	if b := int64(n) * int64(t.Type.Size()); b > it.maxBytes {
		return &ops.MemoryError{What: t.String(), Bytes: b, Used: it.budget.Used(), Limit: it.maxBytes}
	}
	return nil
}

// precomputable reports whether node n's output can be computed once at
// AllocateTensors and kept (an ops.PrecomputedTensor): n is a DEQUANTIZE
// or a DENSIFY whose one input is a constant or itself precomputed, with
// one output that is an arena tensor, not a subgraph input, and written
// by no other operator. These are the cases TFLite's kernels compute
// once: dequantize.cc fills a constant input's output at its first Eval
// (float_dequantized_weights_initialized) and densify.cc its output
// (dense_weights_initialized). TFLite's DEQUANTIZE of a DENSIFY output
// (sparse float16 weights, as in MediaPipe's models) runs at every Invoke
// on the builtin kernels; XNNPACK takes such weights as static. The values
// are the same at every Invoke either way, so computing them once changes
// no output. The extra conditions keep hostile graphs (an output that
// another operator overwrites, or that the user writes as an input)
// computing what they computed per Invoke.
func precomputable(n *ops.Node, isInput []bool, writers []int) bool {
	if n.Op != ops.OpDequantize && n.Op != ops.OpDensify || len(n.Inputs) != 1 || len(n.Outputs) != 1 || len(n.ScratchSizes()) > 0 {
		return false
	}
	in, out := n.Inputs[0], n.Outputs[0]
	return in != nil && (in.Kind == ops.ConstTensor || in.Kind == ops.PrecomputedTensor) &&
		out != nil && out.Kind == ops.ArenaTensor && !isInput[out.Index] && writers[out.Index] == 1
}

// precompute gives the output of the precomputable node nd storage of its
// own outside the arena, counted in PrecomputedBytes against the
// MaxArenaBytes limit, and runs nd's Eval once to fill it (as TFLite's
// dequantize kernel does at its first Eval), before later operators are
// prepared. Invoke then skips nd.
func (it *Interpreter) precompute(nd *node) error {
	out := nd.Outputs[0]
	size, ok := alignUp(out.Bytes())
	if !ok || it.preBytes > math.MaxInt-size {
		return fmt.Errorf("precomputed tensor %s is too large", out)
	}
	if it.freeBuffer(size) < 0 {
		// A freed buffer is already counted.
		if err := it.budget.Reserve(int64(size), fmt.Sprintf("precomputed tensors (%d bytes with %s)", it.preBytes+size, out)); err != nil {
			return err
		}
		it.preBytes += size
	}
	out.Kind = ops.PrecomputedTensor
	out.Data = it.precomputedBuffer(out, size)[:out.Bytes():out.Bytes()]
	nd.once = true
	return nd.kernel.Eval(&nd.Node)
}

func (it *Interpreter) lookup(n *ops.Node) (ops.Registration, error) {
	if n.Op == ops.BuiltinCustom {
		return it.resolver.FindCustom(n.OpName)
	}
	return it.resolver.FindBuiltin(n.Op, n.Version)
}

// prepareNode looks up node i's kernel and prepares it (see allocate).
func (it *Interpreter) prepareNode(i int, isInput []bool, writers []int) error {
	sg := it.sg
	nd := &sg.nodes[i]
	it.cur = i
	nd.once, nd.empty, nd.deferred, nd.dynOut, nd.valueDeps = false, false, false, false, false
	nd.kernel = nil
	nd.Resizer = (*host)(it)
	nd.Subgraphs = (*host)(it)
	nd.Resources = (*host)(it)
	nd.Lists = (*host)(it)
	if err := it.budget.Reserve(nodeOverhead(&nd.Node), "the kernel's state"); err != nil {
		return fmt.Errorf("%s: %w", nd.Node.String(), err)
	}
	reg, err := it.lookup(&nd.Node)
	if err != nil {
		return fmt.Errorf("%s: %w", nd.Node.String(), err)
	}
	nd.reg = reg
	nd.kernel = reg.New()
	nd.ResetScratch()
	for _, in := range nd.Inputs {
		if in != nil && in.Kind == ops.DynamicTensor {
			nd.deferred = true
		}
	}
	for _, out := range nd.Outputs {
		if out != nil && out.Kind == ops.ArenaTensor && !isInput[out.Index] {
			out.Shape = nil
			if nd.deferred {
				out.Kind = ops.DynamicTensor
			}
		}
	}
	if nd.deferred {
		// Prepared at Invoke, once its inputs have shapes.
		return nil
	}
	before := it.budget.Used()
	if err := nd.kernel.Prepare(&nd.Node); err != nil {
		var nc *ops.NotConstantError
		if !errors.As(err, &nc) {
			return fmt.Errorf("%s: %w", nd.Node.String(), err)
		}
		// Its outputs' shapes depend on input values: prepared at
		// Invoke with the values at hand, as a deferred node.
		nd.deferred, nd.valueDeps = true, true
		nd.ResetScratch()
		it.budget.SetUsed(before)
		for _, out := range nd.Outputs {
			if out != nil && out.Kind == ops.ArenaTensor && !isInput[out.Index] {
				out.Kind, out.Shape = ops.DynamicTensor, nil
			}
		}
		return nil
	}
	for k, out := range nd.Outputs {
		if out == nil {
			continue
		}
		if out.Kind == ops.DynamicTensor {
			if isInput[out.Index] {
				return fmt.Errorf("%s: output %d (%s) is a subgraph input and cannot be dynamic", nd.Node.String(), k, out)
			}
			nd.dynOut = true
			continue
		}
		if out.Shape == nil && out.Kind == ops.ArenaTensor {
			return fmt.Errorf("%s: kernel did not set the shape of output %d (%s)", nd.Node.String(), k, out)
		}
		if _, err := ops.ShapeElements(out.Shape, out.Type.Size()); err != nil {
			return fmt.Errorf("%s: output %d (tensor %d): %w", nd.Node.String(), k, out.Index, err)
		}
		if err := it.fits(out); err != nil {
			return fmt.Errorf("%s: output %d: %w", nd.Node.String(), k, err)
		}
		// A kernel never changes an output's rank from what the model
		// declares (TFLite Micro relies on that too); a mismatch means
		// the model contradicts itself.
		if decl := sg.info.Tensors[out.Index].Shape; len(decl) > 0 && len(decl) != len(out.Shape) {
			return fmt.Errorf("%s: output %d (tensor %d %q) produces shape %v but the model declares %v", nd.Node.String(), k, out.Index, out.Name, out.Shape, decl)
		}
	}
	if precomputable(&nd.Node, isInput, writers) {
		if err := it.precompute(nd); err != nil {
			return fmt.Errorf("%s: %w", nd.Node.String(), err)
		}
	}
	// A kernel that packs or converts a constant (CONV_2D, FULLY_CONNECTED
	// and DEPTHWISE_CONV_2D weights) has read the file's pages once and
	// keeps its own copy: drop them from the resident set, so the weights
	// are not resident twice. Constants Eval still reads come back from
	// the page cache at their first read, as they were before.
	for _, in := range nd.Inputs {
		if in != nil && in.Kind == ops.ConstTensor {
			it.model.life.dropConstPages(it.model.data, in.Data)
		}
	}
	nd.empty = !nd.once && emptyNode(&nd.Node)
	return nil
}

// Diagnose prepares every operator of subgraph 0 as AllocateTensors
// does, but goes on past failures and returns all of them, each naming
// its operator: every operator tflrun lacks, every version or type
// combination its kernels refuse, every shape they reject. An operator
// that fails leaves its outputs at the shapes the model declares, so the
// operators after it are checked too (a later error may then follow from
// an earlier one). Operators whose shapes are only known at Invoke are
// not prepared. Nothing is planned: the interpreter is left unallocated
// (call AllocateTensors before Invoke). Diagnose returns nil for a model
// AllocateTensors would accept, and ErrConcurrentUse or ErrClosed as
// AllocateTensors does.
func (it *Interpreter) Diagnose() (errs []error) {
	if err := it.enter(); err != nil {
		return []error{err}
	}
	defer it.exit()
	it.allocated = false
	arch.BeginRun()
	var err error
	func() {
		defer it.guard(&err, debug.SetPanicOnFault(true))
		it.diag = &errs
		err = it.allocate()
		it.diag = nil
		if err == nil && len(errs) == 0 {
			// Every operator prepared: what remains is the plan's memory.
			err = it.allocate()
		}
	}()
	it.diag = nil
	it.allocated = false
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}

// hasHybridOps reports whether an operator of sg is a dynamic-range
// (hybrid) one: a float32 input 0 with a constant int8 or uint8 input
// (its weights), which the kernel quantises at run time (see
// Options.FusedFloat).
func hasHybridOps(sg *subgraph) bool {
	for i := range sg.nodes {
		n := &sg.nodes[i].Node
		if len(n.Inputs) == 0 || n.Inputs[0] == nil || n.Inputs[0].Type != ops.Float32 {
			continue
		}
		for _, t := range n.Inputs[1:] {
			if t != nil && t.Kind == ops.ConstTensor && (t.Type == ops.Int8 || t.Type == ops.Uint8) {
				return true
			}
		}
	}
	return false
}
