package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of RFFT2D, REAL, IMAG and COMPLEX_ABS: power-of-two FFT
// lengths with inputs cropped and zero-padded in each dimension, batches
// of slices, the [1, n] rows audio front ends use, and complex64 and
// complex128 inputs for the three part operators.

// rfftModel is RFFT2D of a float32 input of shape in with a constant
// fft_length, followed (when parts is set) by REAL, IMAG and COMPLEX_ABS
// of its result; the model's outputs are the complex result and the
// parts.
func rfftModel(in []int32, fftH, fftW int32, parts bool) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, in, nil)
	l := b.Const("fft_length", schema.TensorTypeINT32, []int32{2}, nil, optest.I32(fftH, fftW))
	out := append([]int32(nil), in...)
	out[len(out)-2], out[len(out)-1] = fftH, fftW/2+1
	y := b.Tensor("rfft", schema.TensorTypeCOMPLEX64, out, nil)
	b.Op(schema.BuiltinOperatorRFFT2D, 1, []int32{x, l}, []int32{y}, nil)
	outs := []int32{y}
	if parts {
		for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorREAL, schema.BuiltinOperatorIMAG, schema.BuiltinOperatorCOMPLEX_ABS} {
			p := b.Tensor(schema.EnumNamesBuiltinOperator[op], schema.TensorTypeFLOAT32, out, nil)
			b.Op(op, 1, []int32{y}, []int32{p}, nil)
			outs = append(outs, p)
		}
	}
	b.Inputs(x)
	b.Outputs(outs...)
	return b.Bytes()
}

// partModel is one of REAL, IMAG, COMPLEX_ABS on a complex input.
func partModel(op schema.BuiltinOperator, typ schema.TensorType, shape []int32) []byte {
	outType := schema.TensorTypeFLOAT32
	if typ == schema.TensorTypeCOMPLEX128 {
		outType = schema.TensorTypeFLOAT64
	}
	b := optest.NewBuilder()
	x := b.Tensor("x", typ, shape, nil)
	y := b.Tensor("y", outType, shape, nil)
	b.Op(op, 1, []int32{x}, []int32{y}, nil)
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

func rfft2dCases() []goldenModel {
	return []goldenModel{
		{variant: "f32_4x8", model: rfftModel([]int32{4, 8}, 4, 8, true)},
		{variant: "f32_pad_both", model: rfftModel([]int32{2, 3, 3, 5}, 4, 8, false)},
		{variant: "f32_crop_both", model: rfftModel([]int32{6, 11}, 4, 8, false)},
		{variant: "f32_rows_1x32", model: rfftModel([]int32{3, 1, 20}, 1, 32, true)},
		{variant: "f32_16x2", model: rfftModel([]int32{16, 2}, 16, 2, false)},
		{variant: "f32_2x64", model: rfftModel([]int32{2, 50}, 2, 64, false)},
		{variant: "f32_32x16", model: rfftModel([]int32{1, 30, 16}, 32, 16, false)},
	}
}

func complexPartCases() []goldenModel {
	var cs []goldenModel
	for _, op := range []struct {
		name string
		code schema.BuiltinOperator
	}{{"real", schema.BuiltinOperatorREAL}, {"imag", schema.BuiltinOperatorIMAG}, {"abs", schema.BuiltinOperatorCOMPLEX_ABS}} {
		cs = append(cs,
			goldenModel{variant: op.name + "_c64", model: partModel(op.code, schema.TensorTypeCOMPLEX64, []int32{2, 3, 5})},
			goldenModel{variant: op.name + "_c128", model: partModel(op.code, schema.TensorTypeCOMPLEX128, []int32{7})},
		)
	}
	return cs
}

func TestRecordRfft2d(t *testing.T) { recordGoldenFrom(t, "rfft2d", rfft2dCases(), 7) }
func TestRecordComplexParts(t *testing.T) {
	recordGoldenFrom(t, "complex_parts", complexPartCases(), 7)
}
func TestGoldenRfft2d(t *testing.T)       { checkGolden(t, "rfft2d") }
func TestGoldenComplexParts(t *testing.T) { checkGolden(t, "complex_parts") }
