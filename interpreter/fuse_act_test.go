package interpreter

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// actCase is one producer → activation graph for TestFoldActivation.
type actCase struct {
	prod       schema.BuiltinOperator
	prodAct    schema.ActivationFunctionType
	act        schema.BuiltinOperator
	twoReaders bool // the producer's output is read again (a graph output)
	fold       bool // expected
}

// actModel is x [1, 6, 6, 4] → prod (with constant second operands:
// a 3×3 filter and bias for the convolutions, a [4]-wide vector for
// ADD/SUB/MUL, a [5, 144] matrix for FULLY_CONNECTED) → act → y.
func actModel(c actCase) *schema.ModelT {
	f32 := func(v ...float32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	}
	ramp := func(n int, scale, off float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i%7)*scale + off
		}
		return v
	}
	tensors := []*schema.TensorT{{Name: "x", Shape: []int32{1, 6, 6, 4}, Type: schema.TensorTypeFLOAT32}}
	buffers := []*schema.BufferT{{}}
	addConst := func(name string, shape []int32, v []float32) int32 {
		buffers = append(buffers, &schema.BufferT{Data: f32(v...)})
		tensors = append(tensors, &schema.TensorT{Name: name, Shape: shape, Type: schema.TensorTypeFLOAT32, Buffer: uint32(len(buffers) - 1)})
		return int32(len(tensors) - 1)
	}
	var in []int32
	var opts *schema.BuiltinOptionsT
	var tShape []int32
	version := int32(1)
	switch c.prod {
	case schema.BuiltinOperatorCONV_2D:
		in = []int32{0, addConst("w", []int32{5, 3, 3, 4}, ramp(180, 0.25, -0.8)), addConst("b", []int32{5}, ramp(5, 0.5, -1))}
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{Padding: schema.PaddingSAME, StrideH: 1, StrideW: 1, DilationHFactor: 1, DilationWFactor: 1, FusedActivationFunction: c.prodAct}}
		tShape = []int32{1, 6, 6, 5}
	case schema.BuiltinOperatorDEPTHWISE_CONV_2D:
		in = []int32{0, addConst("w", []int32{1, 3, 3, 8}, ramp(72, 0.25, -0.8)), addConst("b", []int32{8}, ramp(8, 0.5, -1))}
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: &schema.DepthwiseConv2DOptionsT{Padding: schema.PaddingVALID, StrideH: 1, StrideW: 1, DilationHFactor: 1, DilationWFactor: 1, DepthMultiplier: 2, FusedActivationFunction: c.prodAct}}
		tShape = []int32{1, 4, 4, 8}
	case schema.BuiltinOperatorFULLY_CONNECTED:
		in = []int32{0, addConst("w", []int32{5, 144}, ramp(720, 0.02, -0.06)), -1}
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{FusedActivationFunction: c.prodAct}}
		tShape = []int32{1, 5}
	case schema.BuiltinOperatorADD:
		in = []int32{0, addConst("c", []int32{4}, []float32{-0.5, 0.25, -2, 1})}
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{FusedActivationFunction: c.prodAct}}
		tShape = []int32{1, 6, 6, 4}
	case schema.BuiltinOperatorSUB:
		in = []int32{0, addConst("c", []int32{4}, []float32{-0.5, 0.25, -2, 1})}
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSubOptions, Value: &schema.SubOptionsT{FusedActivationFunction: c.prodAct}}
		tShape = []int32{1, 6, 6, 4}
	case schema.BuiltinOperatorMUL:
		in = []int32{0, addConst("c", []int32{4}, []float32{-1.5, 3, -2, 7})}
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{FusedActivationFunction: c.prodAct}}
		tShape = []int32{1, 6, 6, 4}
	}
	tensors = append(tensors, &schema.TensorT{Name: "t", Shape: tShape, Type: schema.TensorTypeFLOAT32})
	tIdx := int32(len(tensors) - 1)
	tensors = append(tensors, &schema.TensorT{Name: "y", Shape: tShape, Type: schema.TensorTypeFLOAT32})
	yIdx := int32(len(tensors) - 1)
	outputs := []int32{yIdx}
	if c.twoReaders {
		outputs = append(outputs, tIdx)
	}
	if c.prod == schema.BuiltinOperatorCONV_2D || c.prod == schema.BuiltinOperatorDEPTHWISE_CONV_2D {
		version = 3
	}
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: c.prod, DeprecatedBuiltinCode: int8(c.prod), Version: version},
			{BuiltinCode: c.act, DeprecatedBuiltinCode: int8(c.act), Version: 1},
		},
		Buffers: buffers,
		Subgraphs: []*schema.SubGraphT{{
			Tensors: tensors, Inputs: []int32{0}, Outputs: outputs,
			Operators: []*schema.OperatorT{
				{OpcodeIndex: 0, Inputs: in, Outputs: []int32{tIdx}, BuiltinOptions: opts},
				{OpcodeIndex: 1, Inputs: []int32{tIdx}, Outputs: []int32{yIdx}},
			},
		}},
	}
}

// TestFoldActivation checks the activation folding: for every producer,
// standalone activation and producer activation, the folded graph gives
// the unfolded graph's bits (inputs with ±0, large values and NaN), at 1
// and 2 threads, two Invokes per AllocateTensors and two of those per
// interpreter; a producer activation that does not compose, or a producer
// output that is read again, is not folded.
func TestFoldActivation(t *testing.T) {
	run := func(m *Model, fold bool, threads int) (outs [][]byte, folded bool) {
		t.Helper()
		old := foldActs
		foldActs = fold
		defer func() { foldActs = old }()
		it, err := New(m, &Options{NumThreads: threads})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for range 2 {
			// The second AllocateTensors restores the model's options
			// and folds again.
			if err := it.AllocateTensors(); err != nil {
				t.Fatal(err)
			}
			x := it.Input(0).Float32s()
			for i := range x {
				x[i] = float32(i%11)*0.7 - 3.1
			}
			x[3], x[17] = float32(math.Copysign(0, -1)), 1e30
			x[40] = float32(math.NaN())
			for range 2 {
				if err := it.Invoke(); err != nil {
					t.Fatal(err)
				}
			}
			outs = outs[:0]
			for i := range it.OutputCount() {
				outs = append(outs, bytes.Clone(it.Output(i).Data))
			}
		}
		_, folded = it.sg.nodes[1].kernel.(foldedActKernel)
		if folded && !it.sg.nodes[0].actRerouted {
			t.Fatal("activation folded but its producer's options are the model's")
		}
		return outs, folded
	}
	prods := []schema.BuiltinOperator{schema.BuiltinOperatorCONV_2D, schema.BuiltinOperatorDEPTHWISE_CONV_2D, schema.BuiltinOperatorFULLY_CONNECTED,
		schema.BuiltinOperatorADD, schema.BuiltinOperatorSUB, schema.BuiltinOperatorMUL}
	acts := []schema.BuiltinOperator{schema.BuiltinOperatorRELU, schema.BuiltinOperatorRELU6, schema.BuiltinOperatorRELU_N1_TO_1}
	prodActs := []schema.ActivationFunctionType{schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6}
	for _, p := range prods {
		for _, a := range acts {
			for _, pa := range prodActs {
				for _, two := range []bool{false, true} {
					c := actCase{prod: p, prodAct: pa, act: a, twoReaders: two}
					c.fold = !two && !(a == schema.BuiltinOperatorRELU_N1_TO_1 && pa != schema.ActivationFunctionTypeNONE)
					m := mustLoad(t, actModel(c))
					want, f := run(m, false, 1)
					if f {
						t.Fatal("folded with folding off")
					}
					for _, threads := range []int{1, 2} {
						got, folded := run(m, true, threads)
						if folded != c.fold {
							t.Errorf("%v(%v) → %v, read again %v: folded %v, want %v", p, pa, a, two, folded, c.fold)
						}
						for j := range want {
							if !bytes.Equal(got[j], want[j]) {
								t.Fatalf("%v(%v) → %v, read again %v, %d threads: output %d differs from the unfolded graph's", p, pa, a, two, threads, j)
							}
						}
					}
					m.Close()
				}
			}
		}
	}
}

// actFoldCorpusModels are corpus models with standalone activations
// that fold, and how many.
var actFoldCorpusModels = []corpusFusionCase{
	{"face_hand/gotflite_face_detection_front.tflite", 17},
	{"face_hand/mediapipe_face_detection_short_range.tflite", 17},
	{"segmentation/mediapipe_selfie_segmentation.tflite", 22},
}

// TestCorpusFoldActivation runs corpus models with their activations
// folded, at 1 and 3 threads, and requires the outputs of the unfolded
// graph, bit for bit, and the expected number folded.
func TestCorpusFoldActivation(t *testing.T) {
	testCorpusFusion(t, "activations folded", actFoldCorpusModels, &foldActs, func(it *Interpreter) (n int) {
		for k := range it.sg.nodes {
			if _, ok := it.sg.nodes[k].kernel.(foldedActKernel); ok {
				n++
			}
		}
		return n
	})
}
