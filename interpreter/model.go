package interpreter

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/tflrun/tflrun/ops"
)

// Model is a loaded and verified TFLite model. It is immutable and may be
// shared by any number of Interpreters (each has its own tensors and
// arena), from any goroutines. Constant tensors are views of the model
// bytes, so the bytes must stay unchanged while the Model is in use; Close
// releases a memory map once the Model's interpreters are closed too (see
// Close).
type Model struct {
	data []byte
	life *modelLife

	// Version is the schema version of the file (always 3: older ones are
	// refused at load, as TFLite does).
	Version uint32
	// Description is the model's description string (often the converter
	// that wrote it).
	Description string
	// Subgraphs are the model's subgraphs; subgraph 0 is the one Invoke
	// runs. Treat them as read-only.
	Subgraphs []SubgraphInfo
	// Signatures are the model's SignatureDefs.
	Signatures []SignatureInfo
	// Metadata are the model's named metadata buffers.
	Metadata []MetadataInfo
	// BufferBytes is the total size in bytes of the model's constant
	// buffers.
	BufferBytes int64
	// Size is the size in bytes of the model file.
	Size int
}

// SubgraphInfo describes one subgraph of a model: its tensors, its inputs
// and outputs (tensor indices), and its operators in execution order.
type SubgraphInfo struct {
	Name      string
	Tensors   []TensorInfo
	Inputs    []int
	Outputs   []int
	Operators []OperatorInfo
}

// TensorInfo describes one tensor as the model declares it.
type TensorInfo struct {
	Index int
	Name  string
	Type  ops.DataType
	// Shape is the declared shape; Signature the shape_signature (nil when
	// the model gives none), with -1 for resizable dimensions.
	Shape, Signature []int
	// Quant is the quantisation, nil for none.
	Quant *ops.Quantization
	// Blockwise is a blockwise quantisation, nil for none (see
	// ops.BlockwiseQuantization).
	Blockwise *ops.BlockwiseQuantization
	// Sparsity is the sparsity of a constant stored sparse (its data is
	// densified at load), nil for none. A sparse constant that only
	// DENSIFY operators read is not densified at load: its Sparsity is
	// nil, ConstBytes counts its stored values, and DENSIFY expands it.
	Sparsity *ops.Sparsity
	// IsVariable marks persistent state (TFLite's is_variable).
	IsVariable bool
	// Buffer is the index of the tensor's buffer in the model (0 = none).
	Buffer int
	// data is the constant contents (exactly Bytes long), nil for a
	// non-constant tensor; for a deferred sparse constant, its stored
	// values.
	data []byte
	// densify expands a sparse constant that only DENSIFY reads (data
	// holds its stored values) into dst, the dense tensor; nil otherwise
	// (see deferDensify).
	densify func(dst, values []byte) error
}

// IsConst reports whether the tensor has constant data in the model.
func (t *TensorInfo) IsConst() bool { return t.data != nil }

// ConstBytes returns the size in bytes of the tensor's constant data (0
// when it has none).
func (t *TensorInfo) ConstBytes() int { return len(t.data) }

// OperatorInfo describes one operator as the model declares it.
type OperatorInfo struct {
	Index int
	// Op is the builtin code (ops.BuiltinCustom for a custom operator);
	// Name is its TFLite name ("FULLY_CONNECTED") or the custom code.
	Op      ops.BuiltinOperator
	Name    string
	Custom  string
	Version int
	// Inputs, Outputs and Intermediates are tensor indices; -1 marks an
	// omitted optional input.
	Inputs, Outputs, Intermediates []int
	// Options is the decoded builtin options (a pointer to the options
	// struct of the kernel's package: builtin.AddOptions,
	// fused.LSTMOptions, …) for the tables tflrun's kernels read, else nil.
	// OptionsType is the name of the builtin options table the model
	// carries ("" for none).
	Options     any
	OptionsType string
	// CustomOptions are the raw custom options bytes.
	CustomOptions []byte
}

// SignatureInfo is one SignatureDef: a named entry point mapping names to
// tensor indices of a subgraph.
type SignatureInfo struct {
	Key      string
	Subgraph int
	Inputs   []SignatureTensor
	Outputs  []SignatureTensor
}

// SignatureTensor maps a signature name to a tensor index.
type SignatureTensor struct {
	Name   string
	Tensor int
}

// MetadataInfo is a named metadata buffer of the model (for example
// "min_runtime_version" or "TFLITE_METADATA").
type MetadataInfo struct {
	Name string
	Data []byte
}

// Load reads and verifies the model file at path. On Linux and macOS the
// file is memory-mapped read-only (constant tensors are then views of the
// mapping, never copied); elsewhere it is read into memory. The error names
// the file and, for a malformed model, the problem and where it is.
//
// A file that shrinks while it is mapped makes reads past its new end
// fault; Load, AllocateTensors and Invoke turn such a fault into an error
// (debug.SetPanicOnFault) instead of letting SIGBUS end the process.
func Load(path string) (*Model, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	m, err := parseGuarded(data)
	if err != nil {
		if unmap != nil {
			_ = unmap()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.life.unmap = unmap
	return m, nil
}

// LoadBytes verifies a model held in memory. The Model keeps views of b
// (no copy), so b must not be modified while the Model is in use.
func LoadBytes(b []byte) (*Model, error) {
	return parseGuarded(b)
}

// parseGuarded is parseModel with its panics and memory faults (a mapped
// file truncated while it is read) turned into errors.
func parseGuarded(b []byte) (m *Model, err error) {
	defer func(old bool) {
		if r := recover(); r != nil {
			m = nil
			if isFault(r) {
				err = fmt.Errorf("%w reading the model (%v): was the file truncated or changed while it was loaded?", ErrMemoryFault, r)
			} else {
				err = fmt.Errorf("reading the model: %w: %v (a bug in tflrun: please report it with the model)", ErrPanic, r)
			}
		}
		debug.SetPanicOnFault(old)
	}(debug.SetPanicOnFault(true))
	m, err = parseModel(b)
	if m != nil {
		m.life = &modelLife{}
	}
	return m, err
}

// Close closes the model: New refuses it afterwards (ErrModelClosed).
// The interpreters already made from it keep working until each is
// closed (Interpreter.Close) or garbage-collected; the memory map of a
// model opened with Load is released when the model is closed and the
// last of them is gone, so Close never invalidates memory a running
// interpreter reads. The Model's own views of the file (MetadataInfo.Data,
// OperatorInfo.CustomOptions) must not be used after Close. Close is
// idempotent; for a model from LoadBytes it releases nothing (the caller
// owns the bytes).
func (m *Model) Close() error {
	return m.life.close()
}

// readFile is the portable fallback of mapFile.
func readFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, nil, nil
}
