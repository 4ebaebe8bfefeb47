package ops

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tflrun/tflrun/internal/parallel"
)

// Kernel is one operator instance's implementation. The interpreter makes
// a fresh Kernel (Registration.New) for every operator node, so a kernel
// keeps what it derives at Prepare (quantised multipliers, packed weights,
// scratch indices) in its own fields.
//
// The split follows TFLite (and TFLite Micro): Prepare runs at
// AllocateTensors, in execution order, once the shapes of the node's
// inputs are known; it validates types and shapes, sets the shapes of the
// outputs (Tensor.Shape), may read constant inputs, and requests scratch
// memory. Eval runs at every Invoke after the arena is planned; it must
// not allocate on the heap and must not keep slices of tensor data
// between calls. The one exception: a node whose output the interpreter
// precomputes (a DEQUANTIZE of a constant, see PrecomputedTensor) has its
// Eval called once per AllocateTensors, after planning, and not at
// Invoke.
type Kernel interface {
	// Prepare validates the node and sets its output shapes. Errors name
	// the offending input or output (the interpreter adds the operator,
	// its index and subgraph).
	Prepare(n *Node) error
	// Eval computes the node's outputs from its inputs.
	Eval(n *Node) error
}

// StatefulKernel is a Kernel that keeps state across Invoke in its own
// fields, as TFLite Micro's kernels with a Reset function do (the Signal
// library's spectral subtraction, delay and framer): Prepare starts it
// afresh, and the interpreter's ResetVariableTensors calls ResetState on
// every prepared kernel that has it, as MicroInterpreter::Reset does.
type StatefulKernel interface {
	Kernel
	// ResetState returns the kernel's state to what Prepare leaves.
	ResetState()
}

// PackingKernel is a Kernel that, at Prepare, copies some of its constant
// inputs into state of its own (packed or converted weights) and never
// reads those inputs' data at Eval. PackedInputs lists their indices in
// the node's Inputs, for the path Prepare chose (it is called after a
// successful Prepare). The interpreter uses it to free what it
// precomputed for those inputs (the float32 weights a DEQUANTIZE or
// DENSIFY of a constant made, see PrecomputedTensor) once every operator
// that reads them has packed them, so the weights are not resident twice;
// TFLite's XNNPACK delegate likewise keeps only its packed copy of static
// weights. A kernel that reads an input at Eval, even in part (a bias, a
// shape), must not list it.
type PackingKernel interface {
	Kernel
	PackedInputs() []int
}

// Node is one operator of a subgraph as a kernel sees it.
type Node struct {
	// Subgraph and Index locate the operator in the model.
	Subgraph, Index int
	// OpName is the operator's TFLite name ("FULLY_CONNECTED") or, for a
	// custom operator, its custom code.
	OpName string
	// Op is the builtin operator code (BuiltinCustom for custom ops).
	Op BuiltinOperator
	// Version is the operator version recorded in the model (1 when the
	// model omits it).
	Version int
	// Inputs, Outputs and Intermediates are the node's tensors in model
	// order. An omitted optional input (index -1 in the model) is nil.
	Inputs, Outputs, Intermediates []*Tensor
	// Options is the decoded builtin options table (a pointer to the
	// options struct of the operator's package, builtin.AddOptions,
	// fused.LSTMOptions, …; see OptionsDecoder), nil when the operator has
	// none or the model omits them.
	Options any
	// CustomOptions is the raw custom_options bytes (a view of the model).
	CustomOptions []byte
	// Scratch holds the scratch buffers requested at Prepare, each
	// 64-byte aligned and at least the requested size. They are valid
	// during Eval only, and their contents do not persist between calls.
	Scratch [][]byte
	// Memory is the memory bound of the interpreter the node belongs to:
	// Reserve and Alloc charge the kernel's own allocations (tables,
	// packed weights) to it. Nil means no bound (a node built by hand in
	// a test); the interpreter always sets it.
	Memory *MemoryBudget
	// Pool runs independent parts of Eval on the interpreter's threads
	// (see Node.Parallel and Node.Threads); nil runs on the caller.
	Pool *parallel.Pool
	// Resizer sizes dynamic outputs at Eval (see ResizeOutput); the
	// interpreter sets it. Nil in a node built by hand, where ResizeOutput
	// allocates the output's bytes itself.
	Resizer OutputResizer
	// Subgraphs gives control-flow kernels (WHILE, IF) the model's other
	// subgraphs; the interpreter sets it. Nil in a node built by hand.
	Subgraphs SubgraphSource
	// Resources holds the interpreter's resource variables and the
	// CALL_ONCE status (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE,
	// CALL_ONCE); the interpreter sets it. Nil in a node built by hand.
	Resources ResourceSource
	// Lists holds the interpreter's TensorList values (the Flex
	// TensorList operators; control flow freezes the lists it passes
	// into a subgraph); the interpreter sets it. Nil in a node built by
	// hand.
	Lists ListSource
	// FusedFloat lets float kernels fuse each product into its sum where
	// the CPU level has fused kernels (CONV_2D through
	// arch.GemmF32TileFused on AVX-512): results then agree with
	// TensorFlow Lite's to a few float32 ulps, as its XNNPACK kernels do,
	// instead of its builtin kernels' bits. The interpreter sets it when
	// Options.FusedFloat asks for it and the model has no dynamic-range
	// (hybrid) operators; false in a node built by hand.
	FusedFloat bool

	scratchSizes []int
}

// ResourceSource is an interpreter's resource manager, shared by all the
// subgraphs it runs, as TFLite's: resource variables named by
// (container, shared_name), and which init subgraphs CALL_ONCE has run.
// Resources persist for the interpreter's lifetime (AllocateTensors and
// ResetVariableTensors keep them).
type ResourceSource interface {
	// ResourceID returns the id of the variable named (container,
	// sharedName), assigning the next id to a new name.
	ResourceID(container, sharedName string) int32
	// Variable returns the value of variable id, or nil when nothing
	// assigned it yet.
	Variable(id int32) *Tensor
	// AssignVariable sets variable id to a copy of value (type, shape,
	// bytes); its storage grows only, charged to the memory bound.
	AssignVariable(id int32, value *Tensor) error
	// Initialized reports whether CALL_ONCE ran init subgraph index;
	// MarkInitialized records that it did.
	Initialized(index int) bool
	MarkInitialized(index int)
}

// SubgraphSource makes runners of a model's subgraphs for control-flow
// kernels. The interpreter implements it.
type SubgraphSource interface {
	// Subgraph returns a new runner of subgraph index, owned by the
	// calling node, with its own tensors and arena charged to the
	// interpreter's memory bound. It refuses an index out of range and a
	// subgraph already running above the caller (recursion).
	Subgraph(index int) (Subgraph, error)
	// LoopLimit is the most iterations a loop operator may run before it
	// fails (interpreter.Options.MaxLoopIterations).
	LoopLimit() int64
}

// Subgraph runs one subgraph of a model for a control-flow kernel: set
// the inputs' shapes (ResizeInput), Allocate, write the inputs' Data,
// Invoke, read the outputs. Allocate is needed again after an input's
// shape changes. The tensors' Data is valid until the next Allocate.
type Subgraph interface {
	// Index is the subgraph's position in the model.
	Index() int
	InputCount() int
	OutputCount() int
	// Input and Output return the subgraph's input or output tensor i
	// (nil out of range).
	Input(i int) *Tensor
	Output(i int) *Tensor
	// ResizeInput sets input i's shape; a shape equal to the current one
	// changes nothing (and does not require a new Allocate).
	ResizeInput(i int, shape []int) error
	// Allocated reports whether the current shapes are allocated.
	Allocated() bool
	// Allocate prepares the subgraph's operators and plans its arena.
	Allocate() error
	// Invoke runs the subgraph once.
	Invoke() error
}

// OutputResizer gives a dynamic tensor (ops.DynamicTensor) its shape and
// bytes at Eval. The interpreter implements it: the tensor's buffer grows
// (never shrinks) and each growth is charged to the memory bound, so once
// shapes are stable a resize allocates nothing.
type OutputResizer interface {
	// ResizeOutput sets t's shape to a copy of shape and its Data to
	// t.Bytes() bytes (contents unspecified), or returns an error naming
	// the shape (overflow, memory bound).
	ResizeOutput(t *Tensor, shape []int) error
}

// SetOutputDynamic marks output i as dynamic at Prepare: its shape
// depends on the run-time values of an input and is set at Eval by
// ResizeOutput (TFLite's SetTensorToDynamic). Its Shape becomes nil until
// then. Kernels call it instead of refusing a non-constant shape input.
func (n *Node) SetOutputDynamic(i int) error {
	t := n.Output(i)
	if t == nil {
		return fmt.Errorf("output %d is missing", i)
	}
	t.Kind = DynamicTensor
	t.Shape = nil
	return nil
}

// ResizeOutput gives dynamic output i (see SetOutputDynamic) the shape
// shape and bytes for it; call it from Eval before writing the output.
// A non-dynamic output is accepted only when shape equals its current
// shape. Once the shapes a node sees are stable, it allocates nothing.
func (n *Node) ResizeOutput(i int, shape []int) error {
	t := n.Output(i)
	if t == nil {
		return fmt.Errorf("output %d is missing", i)
	}
	if t.Kind != DynamicTensor {
		if SameShape(t.Shape, shape) {
			return nil
		}
		return fmt.Errorf("output %d (%s): cannot resize to %v: the tensor is not dynamic", i, t, shape)
	}
	if n.Resizer != nil {
		if err := n.Resizer.ResizeOutput(t, shape); err != nil {
			return fmt.Errorf("output %d: %w", i, err)
		}
		return nil
	}
	size, err := ShapeElements(shape, t.Type.Size())
	if err != nil {
		return fmt.Errorf("output %d: shape %v: %w", i, shape, err)
	}
	bytes := t.Type.BytesFor(size)
	if t.Shape == nil || cap(t.Shape) < len(shape) {
		t.Shape = make([]int, len(shape)) // non-nil even for a scalar
	}
	t.Shape = t.Shape[:len(shape)]
	copy(t.Shape, shape)
	if cap(t.Data) < bytes {
		t.Data = make([]byte, bytes)
	}
	t.Data = t.Data[:bytes:bytes]
	return nil
}

// MemoryBudget counts the bytes an interpreter has committed against its
// memory bound (interpreter.Options.MaxArenaBytes): the kernels' own
// allocations at Prepare, the arena, the variable and the precomputed
// tensors. Every charge is made before the memory is allocated, so a
// hostile model is refused with an error instead of exhausting memory.
// A MemoryBudget is used by one interpreter (one goroutine) at a time.
type MemoryBudget struct {
	limit  int64 // < 0: no bound
	used   int64
	parent *MemoryBudget // charges go to it too (Sub)
}

// Sub returns a budget whose charges count against b as well (the
// subgraphs a control-flow operator runs): its own count can be reset
// with SetUsed without touching b's other charges. It has no bound of
// its own.
func (b *MemoryBudget) Sub() *MemoryBudget { return &MemoryBudget{limit: -1, parent: b} }

// NewMemoryBudget returns a budget of limit bytes; a negative limit means
// no bound (charges are only counted).
func NewMemoryBudget(limit int64) *MemoryBudget { return &MemoryBudget{limit: limit} }

// Limit is the bound in bytes (negative: none).
func (b *MemoryBudget) Limit() int64 { return b.limit }

// Used is the number of bytes charged so far.
func (b *MemoryBudget) Used() int64 { return b.used }

// SetUsed sets the count of charged bytes, for the interpreter to forget
// the charges of a previous AllocateTensors (whose allocations it drops)
// while keeping those of its own structures.
func (b *MemoryBudget) SetUsed(bytes int64) {
	if b.parent != nil {
		b.parent.SetUsed(b.parent.used + bytes - b.used)
	}
	b.used = bytes
}

// Reserve charges bytes for what (a short description: "packed
// weights") and returns an error, charging nothing, when they would take
// the total past the limit or bytes is negative (an overflowed size).
// A nil budget accepts every non-negative charge.
func (b *MemoryBudget) Reserve(bytes int64, what string) error {
	if bytes < 0 {
		return fmt.Errorf("%s: size overflows", what)
	}
	if b == nil {
		return nil
	}
	if b.limit >= 0 && bytes > b.limit-b.used {
		return &MemoryError{What: what, Bytes: bytes, Used: b.used, Limit: b.limit}
	}
	if b.parent != nil {
		if err := b.parent.Reserve(bytes, what); err != nil {
			return err
		}
	}
	b.used += bytes
	return nil
}

// MemoryError is the error of a charge that would exceed a MemoryBudget.
type MemoryError struct {
	What  string // what the memory was for
	Bytes int64  // the charge refused
	Used  int64  // bytes already charged
	Limit int64  // the bound
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s: %d more bytes would exceed the memory bound of %d bytes (Options.MaxArenaBytes; %d already committed)", e.What, e.Bytes, e.Limit, e.Used)
}

// Reserve charges bytes the kernel is about to allocate at Prepare (a
// lookup table, packed or transposed weights, per-channel parameters)
// to the interpreter's memory bound, before allocating them. Return its
// error from Prepare. Kernels must not allocate at Prepare what they have
// not reserved, except a few bytes per dimension or input.
func (n *Node) Reserve(bytes int, what string) error {
	return n.Memory.Reserve(int64(bytes), what)
}

// Alloc reserves count elements of type E (see Node.Reserve) and then
// allocates them, zeroed. A negative count or a size that overflows is an
// error too.
func Alloc[E any](n *Node, count int, what string) ([]E, error) {
	var z E
	size := int64(unsafe.Sizeof(z))
	if count < 0 || size > 0 && int64(count) > math.MaxInt/size {
		return nil, fmt.Errorf("%s: %d elements of %d bytes overflow", what, count, size)
	}
	if err := n.Reserve(int(int64(count)*size), what); err != nil {
		return nil, err
	}
	return make([]E, count), nil
}

// Input returns input i, or nil when i is out of range or the input is
// omitted.
func (n *Node) Input(i int) *Tensor {
	if i < 0 || i >= len(n.Inputs) {
		return nil
	}
	return n.Inputs[i]
}

// Output returns output i, or nil when i is out of range.
func (n *Node) Output(i int) *Tensor {
	if i < 0 || i >= len(n.Outputs) {
		return nil
	}
	return n.Outputs[i]
}

// RequestScratch asks for a scratch buffer of the given size in bytes,
// available in Eval as n.Scratch[id]. Call it from Prepare only; a new
// Prepare (after a resize) starts with no requests. The interpreter places
// scratch in the arena, sharing space with tensors that are not live while
// this node runs.
func (n *Node) RequestScratch(bytes int) (id int) {
	if bytes < 0 {
		bytes = 0
	}
	n.scratchSizes = append(n.scratchSizes, bytes)
	return len(n.scratchSizes) - 1
}

// ScratchSizes returns the sizes (bytes) requested at Prepare, for the
// memory planner.
func (n *Node) ScratchSizes() []int { return n.scratchSizes }

// ResetScratch forgets the scratch requests; the interpreter calls it
// before each Prepare.
func (n *Node) ResetScratch() {
	n.scratchSizes = n.scratchSizes[:0]
	n.Scratch = n.Scratch[:0]
}

// String names the node for messages: "FULLY_CONNECTED v9 (operator 3,
// subgraph 0)".
func (n *Node) String() string {
	return fmt.Sprintf("%s v%d (operator %d, subgraph %d)", n.OpName, n.Version, n.Index, n.Subgraph)
}

// CheckIO verifies the node's input and output counts: between minIn and
// maxIn inputs, exactly outs outputs. It returns an error naming the
// counts.
func (n *Node) CheckIO(minIn, maxIn, outs int) error {
	if len(n.Inputs) < minIn || len(n.Inputs) > maxIn {
		if minIn == maxIn {
			return fmt.Errorf("has %d inputs, needs %d", len(n.Inputs), minIn)
		}
		return fmt.Errorf("has %d inputs, needs %d to %d", len(n.Inputs), minIn, maxIn)
	}
	if len(n.Outputs) != outs {
		return fmt.Errorf("has %d outputs, needs %d", len(n.Outputs), outs)
	}
	return nil
}

// RequireInput returns input i, or an error when it is omitted.
func (n *Node) RequireInput(i int) (*Tensor, error) {
	t := n.Input(i)
	if t == nil {
		return nil, fmt.Errorf("input %d is required but omitted", i)
	}
	return t, nil
}

// NotConstantError is the error of a Prepare that needs the values of a
// non-constant input to size its outputs (a shape, axes, paddings, k).
// The interpreter handles it as TFLite handles such outputs (dynamic
// tensors): it prepares the node again at Invoke, before each Eval
// whose inputs' shapes or small integer values changed, with those
// values readable as constants.
type NotConstantError struct {
	// Input names the input ("input 1 (k)").
	Input string
}

func (e *NotConstantError) Error() string {
	return e.Input + ": must be a constant tensor (its values size the output, and are only known at Invoke)"
}

// NotConstant returns a *NotConstantError for the input labelled input.
func NotConstant(input string) error { return &NotConstantError{Input: input} }
