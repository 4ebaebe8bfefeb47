package interpreter

import (
	"fmt"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// Checked access to tensors.
//
// A Tensor's fields are the kernels' contract and stay writable, so the
// interpreter checks from the outside what a caller can get wrong: the
// typed views (Float32s, Int8s, …) return nil for a tensor of another
// type, Elements and CopyFrom/CopyTo return an error, InputTensor and
// OutputTensor return an error for an index or name that does not exist,
// and Invoke refuses to run when a graph input's Type, Shape or Data no
// longer is what AllocateTensors planned (see checkInputs).

// DataType is the element type of a tensor (ops.DataType, numbered as
// TFLite's TensorType), re-exported so that one import suffices.
type DataType = ops.DataType

// Element types, numbered as TFLite's TensorType (the constants of
// package ops).
const (
	Float32      = ops.Float32
	Float16      = ops.Float16
	Int32        = ops.Int32
	Uint8        = ops.Uint8
	Int64        = ops.Int64
	String       = ops.String
	Bool         = ops.Bool
	Int16        = ops.Int16
	Complex64    = ops.Complex64
	Int8         = ops.Int8
	Float64      = ops.Float64
	Complex128   = ops.Complex128
	Uint64       = ops.Uint64
	Resource     = ops.Resource
	Variant      = ops.Variant
	Uint32       = ops.Uint32
	Uint16       = ops.Uint16
	Int4         = ops.Int4
	BFloat16     = ops.BFloat16
	Int2         = ops.Int2
	Uint4        = ops.Uint4
	Float8E4M3FN = ops.Float8E4M3FN
	Float8E5M2   = ops.Float8E5M2
)

// Quantization is a tensor's affine quantisation (ops.Quantization):
// real = Scale * (q - ZeroPoint).
type Quantization = ops.Quantization

// Elements returns t's data as a []E sharing its memory, or an error when
// t is nil, E is not t's element type, or t's Data does not hold exactly
// its shape's bytes (see ops.Elements). It is the checked form of the
// typed views: Elements[float32](it.Input(0)) fails where
// it.Input(0).Float32s() returns nil.
func Elements[E ops.Element](t *Tensor) ([]E, error) { return ops.Elements[E](t) }

// InputTensor returns input i of the entry subgraph, or an error naming
// the index and the input count when there is no input i (Input returns
// nil instead).
func (it *Interpreter) InputTensor(i int) (*Tensor, error) {
	if t := it.Input(i); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("no input %d (the model has %d)", i, it.InputCount())
}

// OutputTensor returns output i of the entry subgraph, or an error naming
// the index and the output count when there is no output i (Output
// returns nil instead).
func (it *Interpreter) OutputTensor(i int) (*Tensor, error) {
	if t := it.Output(i); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("no output %d (the model has %d)", i, it.OutputCount())
}

// InputByName returns the input tensor called name, or an error listing
// the input names (see InputIndex; for the names of a SignatureDef use a
// SignatureRunner).
func (it *Interpreter) InputByName(name string) (*Tensor, error) {
	i, err := it.InputIndex(name)
	if err != nil {
		return nil, err
	}
	return it.Input(i), nil
}

// OutputByName returns the output tensor called name, or an error listing
// the output names.
func (it *Interpreter) OutputByName(name string) (*Tensor, error) {
	i, err := it.OutputIndex(name)
	if err != nil {
		return nil, err
	}
	return it.Output(i), nil
}

// plannedInput is what AllocateTensors planned for one graph input:
// checkInputs compares the tensor with it before every Invoke.
type plannedInput struct {
	typ   ops.DataType
	shape []int
	data  *byte // start of the tensor's Data in the arena
	n     int   // len(Data)
}

// savePlannedInputs records every graph input as AllocateTensors left it.
// It runs at the end of a successful allocation, never at Invoke (which
// must not allocate).
func (it *Interpreter) savePlannedInputs() {
	ins := it.sg.inputs
	if cap(it.planned) < len(ins) {
		it.planned = make([]plannedInput, len(ins))
	}
	it.planned = it.planned[:len(ins)]
	for k, ti := range ins {
		t := &it.sg.tensors[ti]
		it.planned[k] = plannedInput{
			typ:   t.Type,
			shape: append(it.planned[k].shape[:0], t.Shape...),
			data:  unsafe.SliceData(t.Data),
			n:     len(t.Data),
		}
	}
}

// checkInputs returns an error naming the first graph input whose Type,
// Shape or Data a caller changed since AllocateTensors: a kernel would
// otherwise read past the input's bytes or compute on a shape the plan
// does not hold. Changing a shape goes through ResizeInputTensor and
// AllocateTensors; writing an input goes into its Data (or CopyFrom),
// never by replacing the slice. It allocates nothing unless it fails.
func (it *Interpreter) checkInputs() error {
	if len(it.planned) != len(it.sg.inputs) {
		return fmt.Errorf("the inputs were not planned: call AllocateTensors")
	}
	for k, ti := range it.sg.inputs {
		t, p := &it.sg.tensors[ti], &it.planned[k]
		switch {
		case t.Type != p.typ:
			return fmt.Errorf("input %d (%s): Type was changed from %s after AllocateTensors (a tensor's type is the model's)", k, t, p.typ)
		case !ops.SameShape(t.Shape, p.shape):
			return fmt.Errorf("input %d (%s): Shape was changed from %v after AllocateTensors (use ResizeInputTensor, then AllocateTensors)", k, t, p.shape)
		case len(t.Data) != p.n:
			return fmt.Errorf("input %d (%s): Data holds %d bytes, the planned %d (write into Data or use CopyFrom; never replace or reslice it)", k, t, len(t.Data), p.n)
		case p.n > 0 && unsafe.SliceData(t.Data) != p.data:
			return fmt.Errorf("input %d (%s): Data was replaced by another slice after AllocateTensors (write into Data or use CopyFrom)", k, t)
		}
	}
	return nil
}
