package interpreter

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// Tensor is the tensor type users and kernels share; see ops.Tensor for
// its fields and typed views (Float32s, Int8s, …).
type Tensor = ops.Tensor

// Options configures an Interpreter. The zero value is ready to use.
type Options struct {
	// Resolver maps operators to kernels; nil means DefaultResolver(),
	// every builtin and fused kernel of tflrun.
	Resolver *ops.Resolver
	// MaxArenaBytes bounds the memory (bytes) the interpreter may take:
	// its own tensor and operator lists (charged at New), the kernels'
	// tables, packed weights and per-channel parameters (charged at each
	// Prepare, before they are allocated: KernelBytes), and the
	// activations, scratch, variable and precomputed tensors (ArenaBytes +
	// VariableBytes + PrecomputedBytes), so a hostile model cannot make
	// the process allocate without limit. 0 means DefaultMaxArenaBytes; a
	// negative value means no limit. (Load bounds the Model's own
	// description of the file separately, by the file's size.)
	MaxArenaBytes int64
	// ISA, when not empty, forces the vector code to an instruction-set
	// level: "generic", "avx2", "avx512", "neon", "neon-dotprod" or
	// "neon-i8mm" (the values of TFLRUN_ISA). New fails with an
	// *arch.LevelError when this CPU or build lacks the level. The level
	// is process-wide (arch.Use): it applies to every interpreter, so New
	// refuses to change it while any other interpreter is alive (made by
	// New, neither closed nor garbage-collected); a value equal to the
	// level in use is always accepted. Set it on the first interpreter, or
	// on all of them alike.
	ISA string
	// NumThreads is the number of threads each operator may split its
	// work over, the goroutine calling Invoke included: 0 or 1 runs on
	// the caller alone (the default, as TFLite's benchmark_model), -1
	// uses every core the process may use (runtime.GOMAXPROCS, which
	// follows the CPU affinity mask and cgroup quota), n > 1 uses n.
	// The interpreter starts n-1 worker goroutines at its first
	// AllocateTensors and stops them at Close; they sleep between
	// operators. Operators split only independent outputs (pixel tiles,
	// rows, channels, directions), so results are bit-identical for
	// every count; small operators stay on the caller. New refuses a
	// value below -1 or above MaxThreads.
	NumThreads int
	// FusedFloat lets the float convolutions fuse each product into its
	// sum on CPUs with fused kernels (AVX-512: twice the arithmetic rate,
	// float CNNs 1.3-1.6x faster at one thread). Results then agree with TensorFlow
	// Lite's builtin kernels to a few float32 ulps per operation, as its
	// XNNPACK delegate's do, rather than bit for bit; on deep,
	// ill-conditioned networks the outputs can move by more than 1e-5 of
	// their range (so can XNNPACK's). The default, false, keeps the
	// builtin kernels' summation order. Models with dynamic-range
	// (hybrid) operators, whose runtime quantisation of float activations
	// can turn a last-ulp difference into a quantisation step, keep it
	// whatever this says.
	FusedFloat bool
	// MaxLoopIterations bounds the iterations of every WHILE operator's
	// loop, per Invoke: a loop still running after that many fails with
	// an error naming the operator and the bound, so a hostile model
	// cannot hang Invoke. 0 means DefaultMaxLoopIterations; a negative
	// value means no bound.
	MaxLoopIterations int64
}

// MaxThreads is the largest Options.NumThreads New accepts.
const MaxThreads = 256

// DefaultMaxLoopIterations is the WHILE iteration bound used when
// Options.MaxLoopIterations is 0: 2^22, far above the time steps of a
// recurrent model, and reached in about 3 s by a tiny loop that never
// ends (0.7 µs an iteration on the project's machine).
const DefaultMaxLoopIterations = 1 << 22

// DefaultMaxArenaBytes is the allocation bound used when
// Options.MaxArenaBytes is 0: 2 GiB, or 512 MiB where int has 32 bits
// (a 32-bit process has at most 4 GiB of address space, and a failed
// allocation there is a fatal error, not a recoverable one).
const DefaultMaxArenaBytes = min(2<<30, math.MaxInt/4+1)

// ErrNotAllocated is returned by Invoke before a successful
// AllocateTensors (and after a resize that needs a new plan).
var ErrNotAllocated = errors.New("tensors are not allocated: call AllocateTensors first")

// Interpreter runs subgraph 0 of a Model (a SignatureRunner runs the
// subgraph its signature names). It owns its tensors, its arena
// and its variable state; it is not safe for concurrent use (make one
// Interpreter per goroutine; they may share the Model): a call made while
// another goroutine runs it returns ErrConcurrentUse. Close releases it
// (see Model.Close for the lifetime rule).
type Interpreter struct {
	model    *Model
	resolver *ops.Resolver
	maxBytes int64
	sg       *subgraph

	// budget counts the memory committed against maxBytes; baseBytes is
	// the part New charged (the interpreter's own lists), kernelBytes
	// what the kernels reserved at the last AllocateTensors.
	budget      *ops.MemoryBudget
	baseBytes   int64
	kernelBytes int64

	inUse   atomic.Int32 // 1 while a goroutine runs a method (enter/exit)
	closed  bool
	lease   *lease
	cleanup runtime.Cleanup
	cur     int // the operator being prepared or run, for panicError

	arena      []byte // activations and scratch, re-planned by AllocateTensors
	persistent []byte // variable tensors (precomputed tensors have storage of their own)
	arenaBytes int
	varBytes   int
	preBytes   int
	// preFree holds the buffers of precomputed tensors freed during this
	// AllocateTensors (see releasePrecomputed), for later precomputed
	// tensors to reuse; preKept is the storage still held by precomputed
	// tensors afterwards.
	preFree   [][]byte
	preBufs   map[int][]byte // tensor index → its whole precomputed buffer
	preKept   int
	allocated bool
	planned   []plannedInput // the graph inputs as planned (tensor_access.go)

	// threads is Options.NumThreads resolved; pool (threads > 1) is
	// started by the first AllocateTensors and stopped by Close.
	threads int
	pool    *parallel.Pool
	// fusedFloat is Options.FusedFloat (see ops.Node.FusedFloat).
	fusedFloat bool
	// Dynamic tensors (see dynamic.go): a buffer per tensor, the
	// Invoke-time preparation state per node, and the bytes charged for
	// them since AllocateTensors.
	dyn      []dynBuf
	deferred []deferState
	dynBytes int64

	profiling bool
	opNanos   []int64
	opCounts  []int64

	// Control flow (control.go): the loop bound, and the subgraphs
	// running above this one (this interpreter is a child made for a
	// WHILE or IF when parent is set).
	loopLimit int64
	parent    *Interpreter

	// diag collects the errors of every operator while Diagnose runs
	// (nil otherwise).
	diag *[]error

	// resources are the resource variables and CALL_ONCE status
	// (resources.go), kept by the root interpreter.
	resources *resources
	// tensorLists are the TensorList values of the current Invoke
	// (lists.go), kept by the root interpreter.
	tensorLists *ops.TensorLists
}

// New makes an Interpreter for subgraph 0 of m. Kernels are looked up (and
// unsupported operators reported) by AllocateTensors, as in TFLite.
//
// New fails with ErrModelClosed after m.Close, with an error naming the
// bound when the interpreter's own lists of m's tensors and operators
// exceed Options.MaxArenaBytes, and as Options.ISA says.
func New(m *Model, opts *Options) (*Interpreter, error) {
	return newInterpreter(m, 0, opts)
}

// newInterpreter is New for an interpreter whose entry is subgraph entry
// (a SignatureRunner's signature may name any subgraph).
func newInterpreter(m *Model, entry int, opts *Options) (*Interpreter, error) {
	if m == nil || len(m.Subgraphs) == 0 {
		return nil, errors.New("model has no subgraphs")
	}
	if entry < 0 || entry >= len(m.Subgraphs) {
		return nil, fmt.Errorf("no subgraph %d (the model has %d)", entry, len(m.Subgraphs))
	}
	it := &Interpreter{model: m, maxBytes: DefaultMaxArenaBytes, cur: -1, threads: 1, loopLimit: DefaultMaxLoopIterations}
	if opts != nil {
		switch t := opts.NumThreads; {
		case t < -1 || t > MaxThreads:
			return nil, fmt.Errorf("Options.NumThreads is %d: need -1 (every core), 0 or 1 (one thread) or up to %d", t, MaxThreads)
		case t == -1:
			it.threads = min(parallel.Threads(-1), MaxThreads)
		case t > 1:
			it.threads = t
		}
		it.resolver = opts.Resolver
		it.fusedFloat = opts.FusedFloat
		switch {
		case opts.MaxLoopIterations > 0:
			it.loopLimit = opts.MaxLoopIterations
		case opts.MaxLoopIterations < 0:
			it.loopLimit = -1
		}
		switch {
		case opts.MaxArenaBytes > 0:
			it.maxBytes = opts.MaxArenaBytes
		case opts.MaxArenaBytes < 0:
			it.maxBytes = -1
		}
	}
	if it.resolver == nil {
		it.resolver = DefaultResolver()
	}
	it.budget = ops.NewMemoryBudget(it.maxBytes)
	info := &m.Subgraphs[entry]
	if err := it.budget.Reserve(subgraphBytes(info), "the interpreter's tensor and operator lists"); err != nil {
		return nil, err
	}
	it.baseBytes = it.budget.Used()
	if err := m.life.hold(); err != nil {
		return nil, err
	}
	if opts != nil && opts.ISA != "" {
		if err := useLevel(opts.ISA); err != nil {
			m.life.release()
			return nil, fmt.Errorf("Options.ISA: %w", err)
		}
	}
	it.sg = newSubgraph(entry, info)
	for k := range it.sg.nodes {
		it.sg.nodes[k].Memory = it.budget
	}
	it.lease = &lease{life: m.life}
	it.lease.id = liveInterpreters.add(it)
	it.cleanup = runtime.AddCleanup(it, (*lease).release, it.lease)
	return it, nil
}

// subgraphBytes is the memory newSubgraph takes for info: a tensor per
// model tensor with its shape, a node per operator with its tensor
// lists.
func subgraphBytes(info *SubgraphInfo) int64 {
	const word = int64(unsafe.Sizeof(uintptr(0)))
	b := int64(len(info.Tensors)) * int64(unsafe.Sizeof(ops.Tensor{}))
	for i := range info.Tensors {
		b += word * int64(len(info.Tensors[i].Shape))
	}
	b += int64(len(info.Operators)) * int64(unsafe.Sizeof(node{}))
	for i := range info.Operators {
		o := &info.Operators[i]
		b += word * int64(len(o.Inputs)+len(o.Outputs)+len(o.Intermediates))
	}
	return b
}

// Model returns the model the interpreter runs.
func (it *Interpreter) Model() *Model { return it.model }

// ArenaBytes is the size in bytes of the activation arena of the current
// plan (0 before AllocateTensors).
func (it *Interpreter) ArenaBytes() int { return it.arenaBytes }

// VariableBytes is the size in bytes of the persistent variable-tensor
// storage (0 before AllocateTensors).
func (it *Interpreter) VariableBytes() int { return it.varBytes }

// KernelBytes is the memory in bytes the kernels reserved at the last
// AllocateTensors for their own tables, packed weights and per-operator
// state (0 before AllocateTensors); it counts against
// Options.MaxArenaBytes with the arena.
func (it *Interpreter) KernelBytes() int64 { return it.kernelBytes }

// PrecomputedBytes is the size in bytes of the persistent storage of the
// precomputed tensors (ops.PrecomputedTensor: the float32 outputs of
// DEQUANTIZE operators with constant inputs, each rounded up to 64 bytes),
// which lives outside the arena and beside the variable tensors; 0 before
// AllocateTensors. TFLite counts the same tensors in its persistent arena.
// Precomputed tensors that every reading operator packed into weights of
// its own at Prepare (ops.PackingKernel: CONV_2D's float filters) are
// freed at AllocateTensors and not counted; their Data is nil afterwards
// (Tensor reports no bytes for them).
func (it *Interpreter) PrecomputedBytes() int { return it.preKept }

// TensorCount is the number of tensors in subgraph 0.
func (it *Interpreter) TensorCount() int { return len(it.sg.tensors) }

// Tensor returns tensor i of subgraph 0, or nil when i is out of range.
func (it *Interpreter) Tensor(i int) *Tensor {
	if i < 0 || i >= len(it.sg.tensors) {
		return nil
	}
	return &it.sg.tensors[i]
}

// InputCount is the number of inputs of subgraph 0.
func (it *Interpreter) InputCount() int { return len(it.sg.inputs) }

// OutputCount is the number of outputs of subgraph 0.
func (it *Interpreter) OutputCount() int { return len(it.sg.outputs) }

// Input returns input i of subgraph 0, or nil when i is out of range
// (InputTensor returns an error instead). Its Data is valid after
// AllocateTensors; write the input there (or with CopyFrom) before
// Invoke, without replacing the slice or changing Shape (Invoke refuses
// that, naming the input; ResizeInputTensor changes a shape).
func (it *Interpreter) Input(i int) *Tensor {
	if i < 0 || i >= len(it.sg.inputs) {
		return nil
	}
	return &it.sg.tensors[it.sg.inputs[i]]
}

// Output returns output i of subgraph 0, or nil when i is out of range
// (OutputTensor returns an error instead). Its Data holds the result
// after Invoke.
func (it *Interpreter) Output(i int) *Tensor {
	if i < 0 || i >= len(it.sg.outputs) {
		return nil
	}
	return &it.sg.tensors[it.sg.outputs[i]]
}

// InputIndex returns the position among the inputs of the input tensor
// called name, or an error listing the input names.
func (it *Interpreter) InputIndex(name string) (int, error) {
	return it.ioIndex(it.sg.inputs, "input", name)
}

// OutputIndex returns the position among the outputs of the output tensor
// called name, or an error listing the output names.
func (it *Interpreter) OutputIndex(name string) (int, error) {
	return it.ioIndex(it.sg.outputs, "output", name)
}

func (it *Interpreter) ioIndex(list []int, what, name string) (int, error) {
	var names []string
	for k, ti := range list {
		if it.sg.tensors[ti].Name == name {
			return k, nil
		}
		names = append(names, fmt.Sprintf("%q", it.sg.tensors[ti].Name))
	}
	return -1, fmt.Errorf("no %s named %q (the %ss are %v)", what, name, what, names)
}

// ResizeInputTensor sets the shape of input i, like TFLite's
// ResizeInputTensor: any shape is accepted here (dimensions must be
// non-negative and the element count must fit in an int32); the kernels
// validate it at the next AllocateTensors, which must be called before
// Invoke.
func (it *Interpreter) ResizeInputTensor(i int, shape []int) error {
	if err := it.enter(); err != nil {
		return err
	}
	defer it.exit()
	return it.resizeInput(i, shape)
}

func (it *Interpreter) resizeInput(i int, shape []int) error {
	t := it.Input(i)
	if t == nil {
		return fmt.Errorf("no input %d (the model has %d)", i, it.InputCount())
	}
	if _, err := ops.ShapeElements(shape, t.Type.Size()); err != nil {
		return fmt.Errorf("input %d (%s): %w", i, t, err)
	}
	if ops.SameShape(t.Shape, shape) {
		return nil
	}
	t.Shape = append(t.Shape[:0:0], shape...)
	it.allocated = false
	return nil
}

// ResizeInputTensorStrict is ResizeInputTensor restricted as TFLite's
// ResizeInputTensorStrict: the rank must stay the same and only dimensions
// the model's shape_signature marks -1 may change.
func (it *Interpreter) ResizeInputTensorStrict(i int, shape []int) error {
	if err := it.enter(); err != nil {
		return err
	}
	defer it.exit()
	t := it.Input(i)
	if t == nil {
		return fmt.Errorf("no input %d (the model has %d)", i, it.InputCount())
	}
	sig := t.Signature
	if sig == nil {
		sig = it.sg.info.Tensors[t.Index].Shape
	}
	if len(shape) != len(sig) {
		return fmt.Errorf("input %d (%s): rank %d, the model's signature %v has rank %d", i, t, len(shape), sig, len(sig))
	}
	for d := range shape {
		if sig[d] != -1 && shape[d] != sig[d] {
			return fmt.Errorf("input %d (%s): dimension %d must stay %d (shape signature %v)", i, t, d, sig[d], sig)
		}
	}
	return it.resizeInput(i, shape)
}

// NumThreads is the number of threads the interpreter's operators may
// run on (Options.NumThreads resolved: -1 becomes the number of cores
// the process may use).
func (it *Interpreter) NumThreads() int { return it.threads }
