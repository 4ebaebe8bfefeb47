// Package hostile generates the hostile models of issue 10's runtime
// classes, for the interpreter's tests and for internal/hostile/hostilegen,
// which writes them to files for measurement: graphs a converter never
// writes but a file can say (a tensor with two writers, an operator
// reading its own output), declared sizes the data does not have (a
// [2^31-1, 0] weight matrix, a 2^31-1 wide pooling window, a 0-batch
// image resized to 2^31-1 × 2^31-1), and sizes that stress the
// interpreter's own algorithms (a chain of a million operators, 900 000
// graph inputs, 990 000 operators sharing one table in 4 MB).
//
// Every model is the project's own, built with internal/optest.Builder
// (or, where a builder cannot say it, the flatbuffers builder directly),
// so they may be committed and regenerated at will.
package hostile

import (
	"fmt"
	"math"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// TwoWriterOps are the operators of the two-writers class: each was seen
// to panic in its first writer's Eval when a second operator wrote the
// same tensor at another size.
var TwoWriterOps = []schema.BuiltinOperator{
	schema.BuiltinOperatorRELU, schema.BuiltinOperatorLOGISTIC, schema.BuiltinOperatorTANH,
	schema.BuiltinOperatorADD, schema.BuiltinOperatorMUL, schema.BuiltinOperatorSOFTMAX,
	schema.BuiltinOperatorFULLY_CONNECTED, schema.BuiltinOperatorCONCATENATION,
	schema.BuiltinOperatorMAXIMUM, schema.BuiltinOperatorDEQUANTIZE,
}

// f32 is the float32 tensor type, the default of the generators.
const f32 = schema.TensorTypeFLOAT32

// writer adds one operator op reading an input of width w (a graph input,
// or a constant for DEQUANTIZE) and writing tensor out.
func writer(b *optest.Builder, op schema.BuiltinOperator, w int32, out int32) error {
	in := func(name string) int32 { return b.Tensor(name, f32, []int32{1, w}, nil) }
	switch op {
	case schema.BuiltinOperatorRELU, schema.BuiltinOperatorLOGISTIC, schema.BuiltinOperatorTANH:
		x := in(fmt.Sprintf("x%d", w))
		b.Op(op, 1, []int32{x}, []int32{out}, nil)
		return addInput(b, x)
	case schema.BuiltinOperatorADD:
		x := in(fmt.Sprintf("x%d", w))
		b.Op(op, 1, []int32{x, x}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
		return addInput(b, x)
	case schema.BuiltinOperatorMUL:
		x := in(fmt.Sprintf("x%d", w))
		b.Op(op, 1, []int32{x, x}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}})
		return addInput(b, x)
	case schema.BuiltinOperatorMAXIMUM:
		x := in(fmt.Sprintf("x%d", w))
		b.Op(op, 1, []int32{x, x}, []int32{out}, nil)
		return addInput(b, x)
	case schema.BuiltinOperatorSOFTMAX:
		x := in(fmt.Sprintf("x%d", w))
		b.Op(op, 1, []int32{x}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSoftmaxOptions, Value: &schema.SoftmaxOptionsT{Beta: 1}})
		return addInput(b, x)
	case schema.BuiltinOperatorFULLY_CONNECTED:
		// [1, 2] × [w, 2]ᵀ → [1, w].
		x := b.Tensor(fmt.Sprintf("x%d", w), f32, []int32{1, 2}, nil)
		wt := b.Const(fmt.Sprintf("weights%d", w), f32, []int32{w, 2}, nil, optest.F32(make([]float32, 2*w)...))
		b.Op(op, 1, []int32{x, wt, -1}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}})
		return addInput(b, x)
	case schema.BuiltinOperatorCONCATENATION:
		x := b.Tensor(fmt.Sprintf("x%d", w), f32, []int32{1, w / 2}, nil)
		b.Op(op, 1, []int32{x, x}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions, Value: &schema.ConcatenationOptionsT{Axis: 1}})
		return addInput(b, x)
	case schema.BuiltinOperatorDEQUANTIZE:
		q := b.Const(fmt.Sprintf("q%d", w), schema.TensorTypeINT8, []int32{1, w}, optest.PerTensor(0.5, 0), make([]byte, w))
		b.Op(op, 1, []int32{q}, []int32{out}, nil)
		return nil
	}
	return fmt.Errorf("hostile: no two-writer model for %s", schema.EnumNamesBuiltinOperator[op])
}

func addInput(b *optest.Builder, x int32) error {
	m := b.Model()
	sg := m.Subgraphs[0]
	sg.Inputs = append(sg.Inputs, x)
	return nil
}

// TwoWriters is a model where two op operators write one tensor at
// different sizes: the first [1, 2], the second [1, 8] (the declared
// shape). The loader must refuse it, naming both writers.
func TwoWriters(op schema.BuiltinOperator) ([]byte, error) {
	b := optest.NewBuilder()
	out := b.Tensor("shared", f32, []int32{1, 8}, nil)
	if err := writer(b, op, 2, out); err != nil {
		return nil, err
	}
	if err := writer(b, op, 8, out); err != nil {
		return nil, err
	}
	b.Outputs(out)
	return b.Bytes(), nil
}

// SelfConsumer is a model whose RELU reads the tensor it writes.
func SelfConsumer() []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", f32, []int32{1, 4}, nil)
	t := b.Tensor("loop", f32, []int32{1, 4}, nil)
	b.Op(schema.BuiltinOperatorADD, 1, []int32{x, t}, []int32{t}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
	b.Inputs(x)
	b.Outputs(t)
	return b.Bytes()
}

// EmptyShapeReshape is a valid model TFLite runs: RESHAPE of a [1]
// input by a shape operand of shape [0] with an empty buffer and no
// producer (an empty constant: reshape to a scalar).
func EmptyShapeReshape() []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", f32, []int32{1}, nil)
	s := b.Const("shape", schema.TensorTypeINT32, []int32{0}, nil, nil)
	y := b.Tensor("y", f32, []int32{}, nil)
	b.Op(schema.BuiltinOperatorRESHAPE, 1, []int32{x, s}, []int32{y}, nil)
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

// Resize is a RESIZE_BILINEAR (or RESIZE_NEAREST_NEIGHBOR) of a float
// input of the given shape to h × w. With batch 0 and h = w = 2^31-1
// (ResizeZeroBatch) the output is empty but the interpolation tables the
// kernel built were sized by h and w: 48 GiB from a 480-byte model.
func Resize(bilinear bool, in []int32, h, w int32) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("image", f32, in, nil)
	size := b.Const("size", schema.TensorTypeINT32, []int32{2}, nil, optest.I32(h, w))
	y := b.Tensor("resized", f32, []int32{in[0], h, w, in[3]}, nil)
	if bilinear {
		b.Op(schema.BuiltinOperatorRESIZE_BILINEAR, 1, []int32{x, size}, []int32{y},
			&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsResizeBilinearOptions, Value: &schema.ResizeBilinearOptionsT{}})
	} else {
		b.Op(schema.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR, 1, []int32{x, size}, []int32{y},
			&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsResizeNearestNeighborOptions, Value: &schema.ResizeNearestNeighborOptionsT{}})
	}
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

// ResizeZeroBatch is Resize of a [0, 4, 4, 1] image to 2^31-1 × 2^31-1.
func ResizeZeroBatch(bilinear bool) []byte {
	return Resize(bilinear, []int32{0, 4, 4, 1}, math.MaxInt32, math.MaxInt32)
}

// FullyConnectedInt8Empty is an int8 FULLY_CONNECTED whose weights are
// [2^31-1, 0]: no bytes, but 2^31-1 units whose row sums (8 GiB) the
// kernel made before the memory bound was checked.
func FullyConnectedInt8Empty() []byte {
	b := optest.NewBuilder()
	q := optest.PerTensor(0.5, 0)
	x := b.Tensor("x", schema.TensorTypeINT8, []int32{1, 0}, q)
	w := b.Const("weights", schema.TensorTypeINT8, []int32{math.MaxInt32, 0}, q, nil)
	y := b.Tensor("y", schema.TensorTypeINT8, []int32{1, math.MaxInt32}, q)
	b.Op(schema.BuiltinOperatorFULLY_CONNECTED, 1, []int32{x, w, -1}, []int32{y},
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}})
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

// Pool is a MAX_POOL_2D (or AVERAGE_POOL_2D, L2_POOL_2D) of a [1, 4, 4, 2] input
// of type typ with a SAME, stride-1 window of fh × fw: with fw = 2^31-1
// the float kernel looped over every declared column (two minutes).
func Pool(op schema.BuiltinOperator, typ schema.TensorType, fh, fw int32) []byte {
	return PoolOn(op, typ, []int32{1, 4, 4, 2}, fh, fw)
}

// PoolOn is Pool of an input of NHWC shape in (on 64×64 the float
// kernel took hours with a 2^31-1 wide window).
func PoolOn(op schema.BuiltinOperator, typ schema.TensorType, in []int32, fh, fw int32) []byte {
	b := optest.NewBuilder()
	var q *optest.Quant
	if typ != f32 {
		q = optest.PerTensor(0.5, 0)
	}
	x := b.Tensor("x", typ, in, q)
	y := b.Tensor("y", typ, in, q)
	b.Op(op, 1, []int32{x}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPool2DOptions, Value: &schema.Pool2DOptionsT{
		Padding: schema.PaddingSAME, StrideW: 1, StrideH: 1, FilterWidth: fw, FilterHeight: fh}})
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

// WidePoolShape is the image of the wide-pool class: 4 rows of 32768
// pixels of 2 channels, under a SAME 1 × 2^31-1 window (PoolWide).
var WidePoolShape = []int32{1, 4, 32768, 2}

// PoolWide is PoolOn of WidePoolShape with a 1 × 2^31-1 window: every
// window clips to the whole row, so a loop over each output's clipped
// window is O(W²) per row (the int8 AVERAGE_POOL_2D of this 536-byte
// model took 17 s). op is MAX_POOL_2D, AVERAGE_POOL_2D or L2_POOL_2D
// (float32 only).
func PoolWide(op schema.BuiltinOperator, typ schema.TensorType) []byte {
	return PoolOn(op, typ, WidePoolShape, 1, math.MaxInt32)
}

// Chain is n RELU operators in a row on a [1] float input: the memory
// planner was quadratic in it (300 000 operators: two minutes).
func Chain(n int) []byte {
	b := optest.NewBuilder()
	prev := b.Tensor("", f32, []int32{1}, nil)
	b.Inputs(prev)
	for range n {
		next := b.Tensor("", f32, []int32{1}, nil)
		b.Op(schema.BuiltinOperatorRELU, 1, []int32{prev}, []int32{next}, nil)
		prev = next
	}
	b.Outputs(prev)
	return b.Bytes()
}

// ManyInputs is n graph inputs of shape [1] concatenated into one [n]
// output: every input lives for the whole run, the planner's worst case
// (900 000 inputs: about forty minutes).
func ManyInputs(n int) []byte {
	b := optest.NewBuilder()
	ins := make([]int32, n)
	for i := range ins {
		ins[i] = b.Tensor("", f32, []int32{1}, nil)
	}
	y := b.Tensor("all", f32, []int32{int32(n)}, nil)
	b.Op(schema.BuiltinOperatorCONCATENATION, 1, ins, []int32{y},
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions, Value: &schema.ConcatenationOptionsT{Axis: 0}})
	b.Inputs(ins...)
	b.Outputs(y)
	return b.Bytes()
}

// SharedOperators is a model of n operators that all share one operator
// table (flatbuffers allow it; no converter writes it): 4 bytes of file
// per operator, 990 000 of them in 4 MB. Parsing such a file took 539 MB
// before the loader's budget; now it is refused.
func SharedOperators(n int) []byte {
	fb := flatbuffers.NewBuilder(4*n + 1024)
	ints := func(start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT, v ...int32) flatbuffers.UOffsetT {
		start(fb, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			fb.PrependInt32(v[i])
		}
		return fb.EndVector(len(v))
	}
	shape := ints(schema.TensorStartShapeVector, 1)
	var tensors [2]flatbuffers.UOffsetT
	for i := range tensors {
		schema.TensorStart(fb)
		schema.TensorAddShape(fb, shape)
		schema.TensorAddType(fb, schema.TensorTypeFLOAT32)
		tensors[i] = schema.TensorEnd(fb)
	}
	schema.SubGraphStartTensorsVector(fb, 2)
	fb.PrependUOffsetT(tensors[1])
	fb.PrependUOffsetT(tensors[0])
	tv := fb.EndVector(2)
	opIn := ints(schema.OperatorStartInputsVector, 0)
	opOut := ints(schema.OperatorStartOutputsVector, 1)
	schema.OperatorStart(fb)
	schema.OperatorAddInputs(fb, opIn)
	schema.OperatorAddOutputs(fb, opOut)
	op := schema.OperatorEnd(fb)
	schema.SubGraphStartOperatorsVector(fb, n)
	for range n {
		fb.PrependUOffsetT(op)
	}
	ov := fb.EndVector(n)
	sgIn := ints(schema.SubGraphStartInputsVector, 0)
	sgOut := ints(schema.SubGraphStartOutputsVector, 1)
	schema.SubGraphStart(fb)
	schema.SubGraphAddTensors(fb, tv)
	schema.SubGraphAddInputs(fb, sgIn)
	schema.SubGraphAddOutputs(fb, sgOut)
	schema.SubGraphAddOperators(fb, ov)
	sg := schema.SubGraphEnd(fb)
	schema.OperatorCodeStart(fb)
	schema.OperatorCodeAddBuiltinCode(fb, schema.BuiltinOperatorRELU)
	schema.OperatorCodeAddDeprecatedBuiltinCode(fb, int8(schema.BuiltinOperatorRELU))
	schema.OperatorCodeAddVersion(fb, 1)
	oc := schema.OperatorCodeEnd(fb)
	schema.ModelStartOperatorCodesVector(fb, 1)
	fb.PrependUOffsetT(oc)
	ocv := fb.EndVector(1)
	schema.ModelStartSubgraphsVector(fb, 1)
	fb.PrependUOffsetT(sg)
	sgv := fb.EndVector(1)
	schema.BufferStart(fb)
	buf := schema.BufferEnd(fb)
	schema.ModelStartBuffersVector(fb, 1)
	fb.PrependUOffsetT(buf)
	bv := fb.EndVector(1)
	schema.ModelStart(fb)
	schema.ModelAddVersion(fb, 3)
	schema.ModelAddOperatorCodes(fb, ocv)
	schema.ModelAddSubgraphs(fb, sgv)
	schema.ModelAddBuffers(fb, bv)
	fb.FinishWithFileIdentifier(schema.ModelEnd(fb), []byte("TFL3"))
	return fb.FinishedBytes()
}
