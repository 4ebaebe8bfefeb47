package perception_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// The corpus models of MediaPipe's segmentation (internal/corpus
// tflite.tsv), read from $TFLRUN_TFLITE_CORPUS.
var segmentationModels = []string{
	"segmentation/mediapipe_selfie_segmentation.tflite",
	"segmentation/mediapipe_hair_segmentation.tflite",
}

// corpusModel returns the bytes of a corpus model, or skips naming where
// it looked.
func corpusModel(t *testing.T, rel string) []byte {
	t.Helper()
	dir := os.Getenv("TFLRUN_TFLITE_CORPUS")
	if dir == "" {
		t.Skipf("TFLRUN_TFLITE_CORPUS is not set: point it at the .tflite corpus (internal/corpus/README.md) to run %s", rel)
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Skipf("%s: %v", rel, err)
	}
	return b
}

// withBuiltinTransposeConv rewrites every Convolution2DTransposeBias of
// m as TFLite's TRANSPOSE_CONV (with MediaPipe's output shape as a
// constant output_shape) followed by an ADD of the bias: the same
// operator written with builtin kernels. It returns how many it
// rewrote.
func withBuiltinTransposeConv(t *testing.T, m *schema.ModelT) int {
	t.Helper()
	// The operator of a code: old models leave builtin_code 0 and set
	// only deprecated_builtin_code.
	opOf := func(c *schema.OperatorCodeT) schema.BuiltinOperator {
		return max(c.BuiltinCode, schema.BuiltinOperator(c.DeprecatedBuiltinCode))
	}
	code := func(op schema.BuiltinOperator) uint32 {
		for i, c := range m.OperatorCodes {
			if opOf(c) == op {
				return uint32(i)
			}
		}
		m.OperatorCodes = append(m.OperatorCodes, &schema.OperatorCodeT{BuiltinCode: op, DeprecatedBuiltinCode: int8(op), Version: 1})
		return uint32(len(m.OperatorCodes) - 1)
	}
	rewritten := 0
	for _, sg := range m.Subgraphs {
		var out []*schema.OperatorT
		for _, op := range sg.Operators {
			if c := m.OperatorCodes[op.OpcodeIndex]; opOf(c) != schema.BuiltinOperatorCUSTOM || c.CustomCode != "Convolution2DTransposeBias" {
				out = append(out, op)
				continue
			}
			o := op.CustomOptions
			padding := int32(binary.LittleEndian.Uint32(o))
			sw, sh := int(int32(binary.LittleEndian.Uint32(o[4:]))), int(int32(binary.LittleEndian.Uint32(o[8:])))
			in, w := sg.Tensors[op.Inputs[0]], sg.Tensors[op.Inputs[1]]
			size := func(in, f, s int) int {
				p := 0
				if padding == 1 {
					p = max(0, f-(in-1)%s-1)
				}
				return s*(in-1) + f - p
			}
			shape := []int32{in.Shape[0], int32(size(int(in.Shape[1]), int(w.Shape[1]), sh)), int32(size(int(in.Shape[2]), int(w.Shape[2]), sw)), w.Shape[0]}
			m.Buffers = append(m.Buffers, &schema.BufferT{Data: optest.I32(shape...)})
			sg.Tensors = append(sg.Tensors, &schema.TensorT{Name: "output_shape", Shape: []int32{4}, Type: schema.TensorTypeINT32, Buffer: uint32(len(m.Buffers) - 1)})
			shapeT := int32(len(sg.Tensors) - 1)
			sg.Tensors = append(sg.Tensors, &schema.TensorT{Name: "transpose_conv", Shape: shape, Type: schema.TensorTypeFLOAT32})
			tmp := int32(len(sg.Tensors) - 1)
			pad := schema.PaddingVALID
			if padding == 1 {
				pad = schema.PaddingSAME
			}
			out = append(out,
				&schema.OperatorT{OpcodeIndex: code(schema.BuiltinOperatorTRANSPOSE_CONV),
					Inputs: []int32{shapeT, op.Inputs[1], op.Inputs[0]}, Outputs: []int32{tmp},
					BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsTransposeConvOptions,
						Value: &schema.TransposeConvOptionsT{Padding: pad, StrideW: int32(sw), StrideH: int32(sh)}}},
				&schema.OperatorT{OpcodeIndex: code(schema.BuiltinOperatorADD),
					Inputs: []int32{tmp, op.Inputs[2]}, Outputs: op.Outputs,
					BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}}})
			rewritten++
		}
		sg.Operators = out
	}
	return rewritten
}

// runModel runs model bytes b on inputs and returns its outputs.
func runModel(t *testing.T, b []byte, inputs [][]float32) [][]float32 {
	t.Helper()
	m, err := interpreter.LoadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for i, v := range inputs {
		copy(it.Input(i).Float32s(), v)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	var outs [][]float32
	for j := 0; j < it.OutputCount(); j++ {
		outs = append(outs, append([]float32(nil), it.Output(j).Float32s()...))
	}
	return outs
}

// TestSegmentationModelsAgainstTransposeConv runs MediaPipe's selfie and
// hair segmentation models as they are and with every
// Convolution2DTransposeBias written as TRANSPOSE_CONV + ADD, on random
// images: the whole models' outputs agree within 1e-5 of the largest
// output magnitude.
func TestSegmentationModelsAgainstTransposeConv(t *testing.T) {
	for _, rel := range segmentationModels {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			b := corpusModel(t, rel)
			m := schema.GetRootAsModel(b, 0).UnPack()
			if n := withBuiltinTransposeConv(t, m); n == 0 {
				t.Fatal("no Convolution2DTransposeBias in the model")
			}
			alt := optest.Pack(m)
			mm, err := interpreter.LoadBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			it, err := interpreter.New(mm, nil)
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			for i := 0; i < it.InputCount(); i++ {
				sizes = append(sizes, it.Input(i).NumElements())
			}
			it.Close()
			mm.Close()
			r := rand.New(rand.NewPCG(17, 18))
			for run := 0; run < 3; run++ {
				var inputs [][]float32
				for _, n := range sizes {
					v := make([]float32, n)
					for i := range v {
						v[i] = 2*r.Float32() - 1
					}
					inputs = append(inputs, v)
				}
				got, want := runModel(t, b, inputs), runModel(t, alt, inputs)
				for j := range want {
					peak := 0.0
					for _, v := range want[j] {
						peak = math.Max(peak, math.Abs(float64(v)))
					}
					worst := 0.0
					for i, v := range want[j] {
						worst = math.Max(worst, math.Abs(float64(got[j][i])-float64(v)))
					}
					if worst > 1e-5*math.Max(1, peak) {
						t.Fatalf("run %d output %d: max |custom − builtin| %g (peak %g)", run, j, worst, peak)
					}
					t.Logf("run %d output %d: max |custom − builtin| %.3g (peak %.3g)", run, j, worst, peak)
				}
			}
		})
	}
}
