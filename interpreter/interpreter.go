package interpreter

import (
	"errors"
	"fmt"
	"math"

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

// Model returns the model the interpreter runs.
func (it *Interpreter) Model() *Model { return it.model }

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
