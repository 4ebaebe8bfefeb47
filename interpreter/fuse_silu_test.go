package interpreter

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// siluFloatModel is x → LOGISTIC → s, y = MUL(x, s) (MUL(s, x) with
// sFirst) on float32 [3, 2301]: blocks of the fused kernel and a tail
// that is not a multiple of 4.
func siluFloatModel(sFirst bool) *schema.ModelT {
	mulIn := []int32{0, 1}
	if sFirst {
		mulIn = []int32{1, 0}
	}
	shape := []int32{3, 2301}
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: schema.BuiltinOperatorLOGISTIC, DeprecatedBuiltinCode: 14, Version: 1},
			{BuiltinCode: schema.BuiltinOperatorMUL, DeprecatedBuiltinCode: 18, Version: 1},
		},
		Buffers: []*schema.BufferT{{}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "x", Shape: shape, Type: schema.TensorTypeFLOAT32},
				{Name: "s", Shape: shape, Type: schema.TensorTypeFLOAT32},
				{Name: "y", Shape: shape, Type: schema.TensorTypeFLOAT32},
			},
			Inputs:  []int32{0},
			Outputs: []int32{2},
			Operators: []*schema.OperatorT{
				{OpcodeIndex: 0, Inputs: []int32{0}, Outputs: []int32{1}},
				{OpcodeIndex: 1, Inputs: mulIn, Outputs: []int32{2},
					BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}},
			},
		}},
	}
}

// TestFuseSiLUFloat checks the float SiLU fusion: the fused graph gives
// the unfused graph's bits (values over the logistic's whole range,
// ±0, ±Inf, NaN, beyond its clamps), either operand order, at 1 to 3
// threads.
func TestFuseSiLUFloat(t *testing.T) {
	run := func(m *schema.ModelT, fuse bool, threads int) (out []byte, fused bool) {
		t.Helper()
		old := fuseByteTables
		fuseByteTables = fuse
		defer func() { fuseByteTables = old }()
		it, err := New(mustLoad(t, m), &Options{NumThreads: threads})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		x := it.Input(0).Data
		specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -104.5, -88, 16.7, 1e-40}
		for i := 0; i < len(x)/4; i++ {
			v := float32(i%997)*0.05 - 25
			if i%53 == 0 {
				v = specials[(i/53)%len(specials)]
			}
			binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(v))
		}
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		_, fused = it.sg.nodes[1].kernel.(*siluKernel)
		return bytes.Clone(it.Output(0).Data), fused
	}
	for _, sFirst := range []bool{false, true} {
		m := siluFloatModel(sFirst)
		want, f := run(m, false, 1)
		if f {
			t.Fatal("fused with fusion off")
		}
		for threads := 1; threads <= 3; threads++ {
			got, fused := run(m, true, threads)
			if !fused {
				t.Fatalf("sFirst %v: not fused", sFirst)
			}
			for i := 0; i+4 <= len(want); i += 4 {
				g, w := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:])
				gf, wf := math.Float32frombits(g), math.Float32frombits(w)
				if g != w && !(gf != gf && wf != wf) {
					t.Fatalf("sFirst %v threads %d element %d: fused %v, unfused %v", sFirst, threads, i/4, gf, wf)
				}
			}
		}
	}
}

// siluCorpusModels are corpus models with float SiLU pairs, and how many.
var siluCorpusModels = []corpusFusionCase{
	{"audio/litert_torchaudio_conformer.tflite", 3},
	{"detection/flutter_yolox_nano_float32.tflite", 104},
	{"detection/nxp_yolov8n_int8.tflite", 57},
}

// TestCorpusFuseSiLU runs corpus models with their float SiLU pairs fused
// against the unfused graph, bit for bit.
func TestCorpusFuseSiLU(t *testing.T) {
	testCorpusFusion(t, "SiLU pairs fused", siluCorpusModels, &fuseByteTables, func(it *Interpreter) (n int) {
		for k := range it.sg.nodes {
			if _, ok := it.sg.nodes[k].kernel.(*siluKernel); ok {
				n++
			}
		}
		return n
	})
}
