package interpreter

import (
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/tflrun/tflrun/arch"
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
	// MaxArenaBytes bounds the memory (bytes) AllocateTensors may take for
	// activations, scratch, variable and precomputed tensors together
	// (ArenaBytes + VariableBytes + PrecomputedBytes), so a hostile
	// model cannot make the process allocate without limit. 0 means
	// DefaultMaxArenaBytes; a negative value means no limit.
	MaxArenaBytes int64
	// ISA, when not empty, forces the vector code to an instruction-set
	// level: "generic", "avx2", "avx512", "neon" or "neon-dotprod" (the
	// values of TFLRUN_ISA). New fails with an *arch.LevelError when this
	// CPU or build lacks the level. The level is process-wide (arch.Use):
	// it applies to every interpreter, so set it before running any, never
	// while another interpreter's Invoke is in progress.
	ISA string
}

// DefaultMaxArenaBytes is the allocation bound used when
// Options.MaxArenaBytes is 0: 2 GiB, or 512 MiB where int has 32 bits
// (a 32-bit process has at most 4 GiB of address space, and a failed
// allocation there is a fatal error, not a recoverable one).
const DefaultMaxArenaBytes = min(2<<30, math.MaxInt/4+1)

// ErrNotAllocated is returned by Invoke before a successful
// AllocateTensors (and after a resize that needs a new plan).
var ErrNotAllocated = errors.New("tensors are not allocated: call AllocateTensors first")

// Interpreter runs subgraph 0 of a Model. It owns its tensors, its arena
// and its variable state; it is not safe for concurrent use (make one
// Interpreter per goroutine; they may share the Model).
type Interpreter struct {
	model    *Model
	resolver *ops.Resolver
	maxBytes int64
	sg       *subgraph

	arena      []byte // activations and scratch, re-planned by AllocateTensors
	persistent []byte // variable tensors (precomputed tensors have storage of their own)
	arenaBytes int
	varBytes   int
	preBytes   int
	allocated  bool

	profiling bool
	opNanos   []int64
	opCounts  []int64
}

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
}

// New makes an Interpreter for subgraph 0 of m. Kernels are looked up (and
// unsupported operators reported) by AllocateTensors, as in TFLite.
func New(m *Model, opts *Options) (*Interpreter, error) {
	if m == nil || len(m.Subgraphs) == 0 {
		return nil, errors.New("model has no subgraphs")
	}
	it := &Interpreter{model: m, maxBytes: DefaultMaxArenaBytes}
	if opts != nil {
		it.resolver = opts.Resolver
		switch {
		case opts.MaxArenaBytes > 0:
			it.maxBytes = opts.MaxArenaBytes
		case opts.MaxArenaBytes < 0:
			it.maxBytes = -1
		}
		if opts.ISA != "" {
			if err := arch.UseName(opts.ISA); err != nil {
				return nil, fmt.Errorf("Options.ISA: %w", err)
			}
		}
	}
	if it.resolver == nil {
		it.resolver = DefaultResolver()
	}
	it.sg = newSubgraph(0, &m.Subgraphs[0])
	return it, nil
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
		switch {
		case ti.data != nil:
			t.Kind = ops.ConstTensor
			t.Data = ti.data
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

// Model returns the model the interpreter runs.
func (it *Interpreter) Model() *Model { return it.model }

// AllocateTensors resolves a kernel for every operator, runs the kernels'
// Prepare in execution order (propagating shapes), plans the arena and
// binds every tensor to its memory. Variable tensors are (re)allocated and
// reset (see ResetVariableTensors). A DEQUANTIZE whose input is a constant
// gets its output as an ops.PrecomputedTensor (see precomputable): the
// output is placed outside the arena and the operator's Eval runs here,
// once, right after its Prepare (so the operators that read it see a
// constant at their own Prepare), instead of at every Invoke; its errors
// are reported here too.
// It must be called before the first
// Invoke and after ResizeInputTensor. Errors name the operator (its
// TFLite name, version, index and subgraph): an operator tflrun lacks, an
// unsupported version or type combination, or a shape mismatch.
func (it *Interpreter) AllocateTensors() error {
	it.allocated = false
	sg := it.sg
	// Arena tensors get their shapes from Prepare; drop stale data.
	// Precomputed tensors start as arena tensors again and are decided
	// anew below.
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind == ops.PrecomputedTensor {
			t.Kind = ops.ArenaTensor
		}
		if t.Kind != ops.ConstTensor {
			t.Data = nil
		}
	}
	isInput := make([]bool, len(sg.tensors))
	for _, i := range sg.inputs {
		isInput[i] = true
	}
	it.preBytes = 0
	writers := make([]int, len(sg.tensors))
	for i := range sg.nodes {
		for _, out := range sg.nodes[i].Outputs {
			if out != nil {
				writers[out.Index]++
			}
		}
	}
	for i := range sg.nodes {
		nd := &sg.nodes[i]
		nd.once = false
		reg, err := it.lookup(&nd.Node)
		if err != nil {
			return fmt.Errorf("%s: %w", nd.Node.String(), err)
		}
		nd.reg = reg
		nd.kernel = reg.New()
		nd.ResetScratch()
		for _, out := range nd.Outputs {
			if out != nil && out.Kind == ops.ArenaTensor && !isInput[out.Index] {
				out.Shape = nil
			}
		}
		if err := nd.kernel.Prepare(&nd.Node); err != nil {
			return fmt.Errorf("%s: %w", nd.Node.String(), err)
		}
		for k, out := range nd.Outputs {
			if out == nil {
				continue
			}
			if out.Shape == nil && out.Kind == ops.ArenaTensor {
				return fmt.Errorf("%s: kernel did not set the shape of output %d (%s)", nd.Node.String(), k, out)
			}
			if _, err := ops.ShapeElements(out.Shape, out.Type.Size()); err != nil {
				return fmt.Errorf("%s: output %d (tensor %d): %w", nd.Node.String(), k, out.Index, err)
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
	}
	if err := it.plan(); err != nil {
		return err
	}
	it.opNanos = make([]int64, len(sg.nodes))
	it.opCounts = make([]int64, len(sg.nodes))
	it.allocated = true
	it.ResetVariableTensors()
	return nil
}

// precomputable reports whether node n's output can be computed once at
// AllocateTensors and kept (an ops.PrecomputedTensor): n is a DEQUANTIZE
// with one constant input and one output that is an arena tensor, not a
// subgraph input, and written by no other operator. This is the case
// TFLite's dequantize kernel (tensorflow/lite/kernels/dequantize.cc)
// handles: IsConstantOrPersistentTensor(input) → the output becomes
// kTfLiteArenaRwPersistent and is filled once
// (float_dequantized_weights_initialized). The extra conditions keep
// hostile graphs (an output that another operator overwrites, or that the
// user writes as an input) computing what they computed per Invoke.
func precomputable(n *ops.Node, isInput []bool, writers []int) bool {
	if n.Op != ops.OpDequantize || len(n.Inputs) != 1 || len(n.Outputs) != 1 || len(n.ScratchSizes()) > 0 {
		return false
	}
	in, out := n.Inputs[0], n.Outputs[0]
	return in != nil && in.Kind == ops.ConstTensor &&
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
	if it.maxBytes >= 0 && int64(it.preBytes)+int64(size) > it.maxBytes {
		return fmt.Errorf("precomputed tensors (%d bytes with %s) exceed the limit of %d (Options.MaxArenaBytes)", it.preBytes+size, out, it.maxBytes)
	}
	out.Kind = ops.PrecomputedTensor
	out.Data = alignedBytes(size)[:out.Bytes():out.Bytes()]
	it.preBytes += size
	nd.once = true
	return nd.kernel.Eval(&nd.Node)
}

func (it *Interpreter) lookup(n *ops.Node) (ops.Registration, error) {
	if n.Op == ops.BuiltinCustom {
		return it.resolver.FindCustom(n.OpName)
	}
	return it.resolver.FindBuiltin(n.Op, n.Version)
}

// plan computes tensor lifetimes, places arena tensors and scratch with
// planGreedy, allocates the arena and the persistent storage (variable
// tensors, then precomputed tensors, never shared), and binds every
// tensor's Data.
func (it *Interpreter) plan() error {
	sg := it.sg
	nOps := len(sg.nodes)
	const unused = -2
	first := make([]int, len(sg.tensors))
	last := make([]int, len(sg.tensors))
	for i := range first {
		first[i], last[i] = unused, unused
	}
	use := func(t *ops.Tensor, at int) {
		if t == nil || t.Kind != ops.ArenaTensor {
			return
		}
		if first[t.Index] == unused || at < first[t.Index] {
			first[t.Index] = at
		}
		if at > last[t.Index] {
			last[t.Index] = at
		}
	}
	// Graph inputs live for the whole invoke so users may re-run or read
	// them back; graph outputs until the end.
	for _, i := range sg.inputs {
		use(&sg.tensors[i], -1)
		use(&sg.tensors[i], nOps)
	}
	for k := range sg.nodes {
		nd := &sg.nodes[k]
		for _, t := range nd.Inputs {
			use(t, k)
		}
		for _, t := range nd.Outputs {
			use(t, k)
		}
		for _, t := range nd.Intermediates {
			use(t, k)
		}
	}
	for _, i := range sg.outputs {
		use(&sg.tensors[i], nOps)
	}

	var bufs []planBuffer
	var owners []int // tensor index, or -(1+scratch slot) for scratch
	type scratchRef struct{ node, id int }
	var scratch []scratchRef
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind != ops.ArenaTensor || first[i] == unused {
			continue
		}
		bufs = append(bufs, planBuffer{size: t.Bytes(), first: first[i], last: last[i]})
		owners = append(owners, i)
	}
	for k := range sg.nodes {
		for id, size := range sg.nodes[k].ScratchSizes() {
			bufs = append(bufs, planBuffer{size: size, first: k, last: k})
			owners = append(owners, -1-len(scratch))
			scratch = append(scratch, scratchRef{k, id})
		}
	}
	total, err := planGreedy(bufs)
	if err != nil {
		return fmt.Errorf("planning the arena: %w", err)
	}
	if it.maxBytes >= 0 && int64(total)+int64(it.preBytes) > it.maxBytes {
		return fmt.Errorf("the arena needs %d bytes besides the precomputed tensors (%d bytes), above the limit of %d (Options.MaxArenaBytes)", total, it.preBytes, it.maxBytes)
	}
	if cap(it.arena) < total {
		it.arena = alignedBytes(total)
	}
	it.arena = it.arena[:total]
	clear(it.arena)
	it.arenaBytes = total
	for k := range sg.nodes {
		nd := &sg.nodes[k]
		nd.Scratch = make([][]byte, len(nd.ScratchSizes()))
	}
	for j, b := range bufs {
		var data []byte
		if b.size > 0 {
			data = it.arena[b.offset : b.offset+b.size : b.offset+b.size]
		}
		if o := owners[j]; o >= 0 {
			sg.tensors[o].Data = data
		} else {
			ref := scratch[-1-o]
			sg.nodes[ref.node].Scratch[ref.id] = data
		}
	}

	// Variable tensors: one persistent block, never shared (precomputed
	// tensors got their storage at their operator's Prepare).
	var persTotal int
	offsets := make([]int, len(sg.tensors))
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind != ops.VariableTensor {
			continue
		}
		if _, err := ops.ShapeElements(t.Shape, t.Type.Size()); err != nil {
			return fmt.Errorf("variable %s: %w", t, err)
		}
		size, ok := alignUp(t.Bytes())
		if !ok || persTotal > math.MaxInt-arenaAlign-size {
			return fmt.Errorf("variable %s is too large", t)
		}
		offsets[i] = persTotal
		persTotal += size
	}
	if it.maxBytes >= 0 && int64(total)+int64(persTotal)+int64(it.preBytes) > it.maxBytes {
		return fmt.Errorf("variable tensors (%d bytes) and precomputed tensors (%d bytes) need %d bytes besides the %d-byte arena, above the limit of %d (Options.MaxArenaBytes)", persTotal, it.preBytes, persTotal+it.preBytes, total, it.maxBytes)
	}
	if cap(it.persistent) < persTotal {
		it.persistent = alignedBytes(persTotal)
	}
	it.persistent = it.persistent[:persTotal]
	it.varBytes = persTotal
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind == ops.VariableTensor {
			n := t.Bytes()
			t.Data = it.persistent[offsets[i] : offsets[i]+n : offsets[i]+n]
		}
	}
	return nil
}

// alignedBytes returns a zeroed byte slice of length n whose first byte is
// arenaAlign-aligned.
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	raw := make([]byte, n+arenaAlign)
	pad := int((arenaAlign - uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%arenaAlign) % arenaAlign)
	return raw[pad : pad+n : pad+n]
}

// Invoke runs every operator of subgraph 0 once, in order, except those
// whose output is precomputed (a DEQUANTIZE of a constant, computed at
// AllocateTensors). After the first call it allocates nothing on the heap.
// The error names the operator that failed.
func (it *Interpreter) Invoke() error {
	if !it.allocated {
		return ErrNotAllocated
	}
	nodes := it.sg.nodes
	if it.profiling {
		for k := range nodes {
			if nodes[k].once {
				// Listed with no time, as TFLite's profiler lists the
				// dequantize Eval that returns at once.
				it.opCounts[k]++
				continue
			}
			start := time.Now()
			if err := nodes[k].kernel.Eval(&nodes[k].Node); err != nil {
				return fmt.Errorf("%s: %w", nodes[k].Node.String(), err)
			}
			it.opNanos[k] += int64(time.Since(start))
			it.opCounts[k]++
		}
		return nil
	}
	for k := range nodes {
		if nodes[k].once {
			continue
		}
		if err := nodes[k].kernel.Eval(&nodes[k].Node); err != nil {
			return fmt.Errorf("%s: %w", nodes[k].Node.String(), err)
		}
	}
	return nil
}

// ResetVariableTensors sets every variable tensor to its initial state:
// zero bytes, except int8 tensors, which are set to their zero point —
// exactly what TFLite's ResetVariableTensors does (so a uint8 state with
// zero point 128 starts at real value -128·scale, as in TFLite).
func (it *Interpreter) ResetVariableTensors() {
	for i := range it.sg.tensors {
		t := &it.sg.tensors[i]
		if t.Kind != ops.VariableTensor {
			continue
		}
		var fill byte
		if t.Type == ops.Int8 {
			fill = byte(int8(t.ZeroPoint()))
		}
		for j := range t.Data {
			t.Data[j] = fill
		}
	}
}

// ArenaBytes is the size in bytes of the activation arena of the current
// plan (0 before AllocateTensors).
func (it *Interpreter) ArenaBytes() int { return it.arenaBytes }

// VariableBytes is the size in bytes of the persistent variable-tensor
// storage (0 before AllocateTensors).
func (it *Interpreter) VariableBytes() int { return it.varBytes }

// PrecomputedBytes is the size in bytes of the persistent storage of the
// precomputed tensors (ops.PrecomputedTensor: the float32 outputs of
// DEQUANTIZE operators with constant inputs, each rounded up to 64 bytes),
// which lives outside the arena and beside the variable tensors; 0 before
// AllocateTensors. TFLite counts the same tensors in its persistent arena.
func (it *Interpreter) PrecomputedBytes() int { return it.preBytes }

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

// Input returns input i of subgraph 0 (nil when out of range). Its Data is
// valid after AllocateTensors; write the input there (or with CopyFrom)
// before Invoke.
func (it *Interpreter) Input(i int) *Tensor {
	if i < 0 || i >= len(it.sg.inputs) {
		return nil
	}
	return &it.sg.tensors[it.sg.inputs[i]]
}

// Output returns output i of subgraph 0 (nil when out of range). Its Data
// holds the result after Invoke.
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
	return it.ResizeInputTensor(i, shape)
}

// OpProfile is the time spent in one operator over the invokes run while
// profiling was on.
type OpProfile struct {
	Index   int
	Name    string
	Version int
	// Count is the number of invokes; Total the summed time.
	Count int64
	Total time.Duration
	// Precomputed is set for an operator whose output is an
	// ops.PrecomputedTensor (a DEQUANTIZE of a constant): it ran once at
	// AllocateTensors, which profiling does not time, and Invoke skips
	// it. Count still counts the invokes and Total stays 0, the way
	// TFLite's profiler lists its dequantize kernel's Eval that returns
	// at once (times called 1 per run, about no time).
	Precomputed bool
}

// SetProfiling turns per-operator timing on or off. Timing adds two clock
// reads per operator per Invoke; it allocates nothing.
func (it *Interpreter) SetProfiling(on bool) { it.profiling = on }

// Profile returns the per-operator times accumulated since
// AllocateTensors, in execution order.
func (it *Interpreter) Profile() []OpProfile {
	p := make([]OpProfile, len(it.sg.nodes))
	for k := range it.sg.nodes {
		n := &it.sg.nodes[k].Node
		p[k] = OpProfile{Index: k, Name: n.OpName, Version: n.Version, Precomputed: it.sg.nodes[k].once}
		if k < len(it.opNanos) {
			p[k].Count = it.opCounts[k]
			p[k].Total = time.Duration(it.opNanos[k])
		}
	}
	return p
}
