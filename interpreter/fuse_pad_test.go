package interpreter

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/schema"
)

// padCase is one PAD → CONV_2D / DEPTHWISE_CONV_2D graph of
// padConvModel.
type padCase struct {
	typ        string // "f32", "i8t" (per-tensor filter), "i8c" (per-channel), "u8"
	dw         bool
	n, h, w, c int
	pads       [4]int // top, bottom, left, right
	chanPad    int    // padding after the channels (must not fold)
	fh, fw     int
	sh, sw     int
	dh, dwf    int
	mult       int // depth multiplier (depthwise), output channels (conv)
	v2         int // 0 PAD; 1 PADV2 with the zero value; 2 PADV2 with another value
	same       bool
	twoReaders bool // a second convolution reads the padded tensor
	padOut     bool // the padded tensor is a graph output
	act        schema.ActivationFunctionType
}

func (pc padCase) String() string {
	op := "conv"
	if pc.dw {
		op = "dw"
	}
	return fmt.Sprintf("%s_%s_%dx%dx%dx%d_p%v_f%dx%d_s%d%d_d%d%d_m%d_v%d", op, pc.typ, pc.n, pc.h, pc.w, pc.c, pc.pads, pc.fh, pc.fw, pc.sh, pc.sw, pc.dh, pc.dwf, pc.mult, pc.v2)
}

// padConvModel builds x → PAD(paddings) → y → conv(y, filter, bias) →
// out with random constant weights from rng.
func padConvModel(pc padCase, rng *rand.Rand) *schema.ModelT {
	le := binary.LittleEndian
	var typ schema.TensorType
	var inZP int64
	switch pc.typ {
	case "f32", "hyb":
		typ = schema.TensorTypeFLOAT32
	case "u8":
		typ, inZP = schema.TensorTypeUINT8, 131
	default:
		typ, inZP = schema.TensorTypeINT8, -7
	}
	q := func(scale []float32, zp []int64, dim int32) *schema.QuantizationParametersT {
		if typ == schema.TensorTypeFLOAT32 {
			return nil
		}
		return &schema.QuantizationParametersT{Scale: scale, ZeroPoint: zp, QuantizedDimension: dim}
	}
	inScale := float32(0.05)
	yc := pc.c + pc.chanPad
	var oc int
	var fShape []int32
	if pc.dw {
		oc = yc * pc.mult
		fShape = []int32{1, int32(pc.fh), int32(pc.fw), int32(oc)}
	} else {
		oc = pc.mult
		fShape = []int32{int32(oc), int32(pc.fh), int32(pc.fw), int32(yc)}
	}
	fElems := int(fShape[0] * fShape[1] * fShape[2] * fShape[3])
	taps := pc.fh * pc.fw
	if !pc.dw {
		taps *= yc
	}
	// Filter, its quantisation, bias.
	var fData, bData []byte
	var fq, bq *schema.QuantizationParametersT
	fScales := make([]float32, oc)
	for i := range fScales {
		fScales[i] = 0.02
		if pc.typ == "i8c" {
			fScales[i] = 0.005 + 0.03*rng.Float32()
		}
	}
	fType := typ
	switch pc.typ {
	case "hyb": // float activations, int8 filter (dynamic range)
		fType = schema.TensorTypeINT8
		fData = make([]byte, fElems)
		for i := range fData {
			fData[i] = byte(rng.IntN(255) - 127)
		}
		fq = &schema.QuantizationParametersT{Scale: fScales[:1], ZeroPoint: []int64{0}}
		bData = make([]byte, 4*oc)
	case "f32":
		fData = make([]byte, 4*fElems)
		for i := range fElems {
			le.PutUint32(fData[4*i:], math.Float32bits(rng.Float32()*2-1))
		}
		bData = make([]byte, 4*oc)
		for i := range oc {
			le.PutUint32(bData[4*i:], math.Float32bits(rng.Float32()-0.5))
		}
	default:
		fData = make([]byte, fElems)
		for i := range fData {
			fData[i] = byte(rng.IntN(256))
			if pc.typ != "u8" && fData[i] == 0x80 {
				fData[i] = 0x81 // symmetric int8
			}
		}
		dim := int32(0)
		if pc.dw {
			dim = 3
		}
		switch pc.typ {
		case "i8c":
			fq = q(fScales, make([]int64, oc), dim)
		case "i8t":
			fq = q(fScales[:1], []int64{0}, dim)
		default:
			fq = q(fScales[:1], []int64{117}, 0)
		}
		bData = make([]byte, 4*oc)
		bScales := make([]float32, oc)
		for i := range oc {
			le.PutUint32(bData[4*i:], uint32(int32(rng.IntN(4001)-2000)))
			bScales[i] = inScale * fScales[i]
		}
		if pc.typ != "i8c" {
			bScales = bScales[:1]
		}
		bq = q(bScales, make([]int64, len(bScales)), 0)
	}
	bType := schema.TensorTypeINT32
	if typ == schema.TensorTypeFLOAT32 {
		bType = schema.TensorTypeFLOAT32
	}
	paddings := make([]byte, 32)
	amounts := [8]int{0, 0, pc.pads[0], pc.pads[1], pc.pads[2], pc.pads[3], 0, pc.chanPad}
	for i, v := range amounts {
		le.PutUint32(paddings[4*i:], uint32(v))
	}
	oh, ow := pc.h, pc.w
	yh, yw := pc.h+pc.pads[0]+pc.pads[1], pc.w+pc.pads[2]+pc.pads[3]
	if pc.same {
		oh, ow = (yh+pc.sh-1)/pc.sh, (yw+pc.sw-1)/pc.sw
	} else {
		oh = (yh + pc.sh - ((pc.fh-1)*pc.dh + 1)) / pc.sh
		ow = (yw + pc.sw - ((pc.fw-1)*pc.dwf + 1)) / pc.sw
	}
	outScale := float32(0.1)
	if typ != schema.TensorTypeFLOAT32 {
		outScale = inScale * 0.02 * 64 * float32(math.Sqrt(float64(taps)))
	}
	qx := q([]float32{inScale}, []int64{inZP}, 0)
	tensors := []*schema.TensorT{
		{Name: "x", Shape: []int32{int32(pc.n), int32(pc.h), int32(pc.w), int32(pc.c)}, Type: typ, Quantization: qx},
		{Name: "paddings", Shape: []int32{4, 2}, Type: schema.TensorTypeINT32, Buffer: 1},
		{Name: "y", Shape: []int32{int32(pc.n), int32(yh), int32(yw), int32(yc)}, Type: typ, Quantization: qx},
		{Name: "filter", Shape: fShape, Type: fType, Buffer: 2, Quantization: fq},
		{Name: "bias", Shape: []int32{int32(oc)}, Type: bType, Buffer: 3, Quantization: bq},
		{Name: "out", Shape: []int32{int32(pc.n), int32(oh), int32(ow), int32(oc)}, Type: typ, Quantization: q([]float32{outScale}, []int64{inZP / 3}, 0)},
	}
	buffers := []*schema.BufferT{{}, {Data: paddings}, {Data: fData}, {Data: bData}}
	padIn := []int32{0, 1}
	padOp := schema.BuiltinOperatorPAD
	if pc.v2 > 0 {
		padOp = schema.BuiltinOperatorPADV2
		v := make([]byte, 4)
		switch {
		case typ == schema.TensorTypeFLOAT32 && pc.v2 == 2:
			le.PutUint32(v, math.Float32bits(0.5))
		case typ == schema.TensorTypeFLOAT32:
		case pc.v2 == 2:
			v[0] = byte(inZP + 1)
		default:
			v[0] = byte(inZP)
		}
		if typ != schema.TensorTypeFLOAT32 {
			v = v[:1]
		}
		tensors = append(tensors, &schema.TensorT{Name: "value", Shape: []int32{1}, Type: typ, Buffer: 4, Quantization: qx})
		buffers = append(buffers, &schema.BufferT{Data: v})
		padIn = append(padIn, int32(len(tensors)-1))
	}
	padding := schema.PaddingVALID
	if pc.same {
		padding = schema.PaddingSAME
	}
	convOp, opts := schema.BuiltinOperatorCONV_2D, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{
		Padding: padding, StrideH: int32(pc.sh), StrideW: int32(pc.sw), DilationHFactor: int32(pc.dh), DilationWFactor: int32(pc.dwf), FusedActivationFunction: pc.act,
	}}
	if pc.dw {
		convOp, opts = schema.BuiltinOperatorDEPTHWISE_CONV_2D, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: &schema.DepthwiseConv2DOptionsT{
			Padding: padding, StrideH: int32(pc.sh), StrideW: int32(pc.sw), DilationHFactor: int32(pc.dh), DilationWFactor: int32(pc.dwf), DepthMultiplier: int32(pc.mult), FusedActivationFunction: pc.act,
		}}
	}
	operators := []*schema.OperatorT{
		{OpcodeIndex: 0, Inputs: padIn, Outputs: []int32{2}},
		{OpcodeIndex: 1, Inputs: []int32{2, 3, 4}, Outputs: []int32{5}, BuiltinOptions: opts},
	}
	outputs := []int32{5}
	if pc.twoReaders {
		tensors = append(tensors, &schema.TensorT{Name: "out2", Shape: tensors[5].Shape, Type: typ, Quantization: tensors[5].Quantization})
		operators = append(operators, &schema.OperatorT{OpcodeIndex: 1, Inputs: []int32{2, 3, 4}, Outputs: []int32{int32(len(tensors) - 1)}, BuiltinOptions: opts})
		outputs = append(outputs, int32(len(tensors)-1))
	}
	if pc.padOut {
		outputs = append(outputs, 2)
	}
	convVersion := int32(3)
	if pc.typ == "hyb" {
		convVersion = 6
	}
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: padOp, DeprecatedBuiltinCode: int8(padOp), Version: 2},
			{BuiltinCode: convOp, DeprecatedBuiltinCode: int8(convOp), Version: convVersion},
		},
		Buffers: buffers,
		Subgraphs: []*schema.SubGraphT{{
			Tensors: tensors, Inputs: []int32{0}, Outputs: outputs, Operators: operators,
		}},
	}
}

// runPadConv runs model m on input x with the fusion on or off and
// returns every output's bytes and whether the PAD was folded.
func runPadConv(t *testing.T, m *Model, x []byte, fold bool, threads int) (outs [][]byte, folded bool) {
	t.Helper()
	old := foldPads
	foldPads = fold
	defer func() { foldPads = old }()
	it, err := New(m, &Options{NumThreads: threads})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it.Input(0).Data, x)
	for range 2 { // twice: the second run sees the first's arena
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range it.OutputCount() {
		outs = append(outs, bytes.Clone(it.Output(i).Data))
	}
	folded = it.sg.nodes[0].padFolded
	if folded {
		if !it.sg.nodes[0].empty || it.sg.tensors[2].Data != nil {
			t.Fatalf("folded PAD: empty %v, padded tensor has %d bytes of arena", it.sg.nodes[0].empty, len(it.sg.tensors[2].Data))
		}
	}
	return outs, folded
}

func randomInput(rng *rand.Rand, pc padCase) []byte {
	elems := pc.n * pc.h * pc.w * pc.c
	if pc.typ != "f32" {
		x := make([]byte, elems)
		for i := range x {
			x[i] = byte(rng.IntN(256))
		}
		return x
	}
	x := make([]byte, 4*elems)
	for i := range elems {
		binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(rng.Float32()*4-2))
	}
	return x
}

// randomPadCase draws a foldable case: PAD amounts 0-3 on each side,
// strides 1-2, filters 1, 3 or 5 (square or not), dilation 1-2, channel
// counts that are not multiples of 8 or 16 (and some that are).
func randomPadCase(rng *rand.Rand, typ string, dw bool) padCase {
	pick := func(v ...int) int { return v[rng.IntN(len(v))] }
	pc := padCase{typ: typ, dw: dw, n: pick(1, 1, 2), c: pick(1, 3, 5, 8, 13, 17, 24, 33)}
	for i := range pc.pads {
		pc.pads[i] = rng.IntN(4)
	}
	pc.fh, pc.fw = pick(1, 3, 5), pick(1, 3, 5)
	if rng.IntN(2) == 0 {
		pc.fw = pc.fh
	}
	pc.sh, pc.sw = pick(1, 2), pick(1, 2)
	pc.dh, pc.dwf = pick(1, 1, 2), pick(1, 1, 2)
	if dw {
		pc.mult = pick(1, 2)
	} else {
		pc.mult = pick(1, 4, 7, 16, 19, 40)
	}
	// The smallest image whose VALID output is not empty, and some more.
	pc.h = max(1, (pc.fh-1)*pc.dh+1-pc.pads[0]-pc.pads[1]) + rng.IntN(12)
	pc.w = max(1, (pc.fw-1)*pc.dwf+1-pc.pads[2]-pc.pads[3]) + rng.IntN(12)
	pc.v2 = pick(0, 0, 1)
	pc.act = schema.ActivationFunctionType(pick(0, 0, 1, 3))
	return pc
}

// TestFoldPad checks the PAD → CONV_2D / DEPTHWISE_CONV_2D fusion: on
// random shapes, paddings, strides, filters, dilations and multipliers,
// for float32, int8 (per-tensor and per-channel filters) and uint8, the
// folded graph gives the unfused one's bytes, at 1 and 3 threads and at
// every instruction-set level (the int8 and uint8 depthwise byte path of
// AVX-512, the float indirect GEMM, the per-pixel paths).
func TestFoldPad(t *testing.T) {
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	perKind := 12
	if testing.Short() {
		perKind = 4
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var cases []padCase
	for _, typ := range []string{"f32", "i8t", "i8c", "u8"} {
		for _, dw := range []bool{false, true} {
			for range perKind {
				cases = append(cases, randomPadCase(rng, typ, dw))
			}
			// A 1×1 stride-1 convolution whose padding grows the image
			// (out ≠ in: not the direct path), and padding on one side
			// only, larger than SAME would give.
			cases = append(cases, padCase{typ: typ, dw: dw, n: 1, h: 5, w: 6, c: 5, pads: [4]int{0, 3, 0, 2}, fh: 1, fw: 1, sh: 1, sw: 1, dh: 1, dwf: 1, mult: 2})
			cases = append(cases, padCase{typ: typ, dw: dw, n: 1, h: 9, w: 7, c: 17, pads: [4]int{3, 0, 3, 0}, fh: 3, fw: 3, sh: 2, sw: 2, dh: 1, dwf: 1, mult: 1})
			cases = append(cases, padCase{typ: typ, dw: dw, n: 2, h: 12, w: 12, c: 24, pads: [4]int{0, 1, 0, 1}, fh: 3, fw: 3, sh: 2, sw: 2, dh: 1, dwf: 1, mult: 1})
		}
	}
	for _, level := range arch.Levels() {
		lm := mustLoad(t, fcModel())
		li, err := New(lm, &Options{ISA: level.String()}) // sets the level
		if err != nil {
			t.Fatal(err)
		}
		li.Close()
		lm.Close()
		for ci, pc := range cases {
			t.Run(fmt.Sprintf("%s/%d_%s", level, ci, pc), func(t *testing.T) {
				m := mustLoad(t, padConvModel(pc, rand.New(rand.NewPCG(uint64(ci), 3))))
				x := randomInput(rand.New(rand.NewPCG(uint64(ci), 5)), pc)
				want, folded := runPadConv(t, m, x, false, 1)
				if folded {
					t.Fatal("folded with the fusion off")
				}
				for _, threads := range []int{1, 3} {
					got, folded := runPadConv(t, m, x, true, threads)
					if !folded {
						t.Fatalf("%d threads: PAD not folded", threads)
					}
					for i := range want {
						if !bytes.Equal(got[i], want[i]) {
							t.Fatalf("%d threads: output %d differs from the unfused graph's", threads, i)
						}
					}
				}
			})
		}
	}
}

// TestFoldPadRefused checks graphs whose PAD must stay: two readers of
// the padded tensor, a SAME convolution, channel padding, a non-zero pad
// value, the padded tensor a graph output, and a hybrid convolution
// (whose kernel refuses the explicit padding: the interpreter prepares
// it unfused). Their outputs are the unfused ones.
func TestFoldPadRefused(t *testing.T) {
	base := padCase{n: 1, h: 9, w: 8, c: 5, pads: [4]int{1, 2, 0, 1}, fh: 3, fw: 3, sh: 2, sw: 1, dh: 1, dwf: 1, mult: 2}
	for _, typ := range []string{"f32", "i8c", "u8", "hyb"} {
		for _, dw := range []bool{false, true} {
			for _, kind := range []string{"twoReaders", "same", "chanPad", "value", "padOut", "control"} {
				if typ == "hyb" && kind != "control" {
					continue
				}
				pc := base
				pc.typ, pc.dw = typ, dw
				switch kind {
				case "twoReaders":
					pc.twoReaders = true
				case "same":
					pc.same = true
				case "chanPad":
					pc.chanPad = 3
				case "value":
					pc.v2 = 2
				case "padOut":
					pc.padOut = true
				}
				t.Run(kind+"_"+pc.String(), func(t *testing.T) {
					m := mustLoad(t, padConvModel(pc, rand.New(rand.NewPCG(1, 2))))
					x := randomInput(rand.New(rand.NewPCG(3, 4)), pc)
					want, _ := runPadConv(t, m, x, false, 1)
					got, folded := runPadConv(t, m, x, true, 2)
					if folded != (kind == "control" && typ != "hyb") {
						t.Fatalf("folded %v", folded)
					}
					for i := range want {
						if !bytes.Equal(got[i], want[i]) {
							t.Fatalf("output %d differs", i)
						}
					}
				})
			}
		}
	}
}

// TestFoldPadReallocate checks that AllocateTensors undoes and redoes
// the fusion: after a resize of the input the convolution is folded for
// the new shape, and with the fusion off it reads the PAD's output again.
func TestFoldPadReallocate(t *testing.T) {
	pc := padCase{typ: "i8c", n: 1, h: 9, w: 8, c: 5, pads: [4]int{1, 2, 0, 1}, fh: 3, fw: 3, sh: 2, sw: 2, dh: 1, dwf: 1, mult: 6}
	m := mustLoad(t, padConvModel(pc, rand.New(rand.NewPCG(1, 2))))
	it, err := New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	run := func(fold bool, h, w int) ([]byte, bool) {
		t.Helper()
		old := foldPads
		foldPads = fold
		defer func() { foldPads = old }()
		if err := it.ResizeInputTensor(0, []int{1, h, w, 5}); err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		x := it.Input(0).Data
		for i := range x {
			x[i] = byte(i*37 + 11)
		}
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		return bytes.Clone(it.Output(0).Data), it.sg.nodes[0].padFolded
	}
	for _, size := range [][2]int{{9, 8}, {14, 11}, {9, 8}} {
		a, fa := run(true, size[0], size[1])
		b, fb := run(false, size[0], size[1])
		c, fc := run(true, size[0], size[1])
		if !fa || fb || !fc {
			t.Fatalf("%v: folded %v, %v, %v", size, fa, fb, fc)
		}
		if !bytes.Equal(a, b) || !bytes.Equal(c, b) {
			t.Fatalf("%v: folded output differs", size)
		}
	}
}

// foldPadCorpusModels are corpus models (TFLRUN_TFLITE_CORPUS) with
// foldable PADs: float32 (MediaPipe's pose detector and landmarks, its
// face detector with sparse weights, YOLOX) and int8 (PyTorch
// MobileNetV2, a MicroNet, YOLOv8 and YOLO11), each with the number of
// PADs folded.
var foldPadCorpusModels = []corpusFusionCase{
	{"pose/mediapipe_pose_detection.tflite", 5},
	{"face_hand/mediapipe_face_detection_full_range_sparse.tflite", 43},
	{"image_cls/micro_pytorch_mobilenet_v2_quantized.tflite", 18},
	{"audio/micro_id_model.tflite", 20},
	{"image_cls/support_idDetector.tflite", 5},
	{"detection/nxp_yolo11n_full_integer_quant.tflite", 7},
	{"detection/nxp_yolov8n_int8.tflite", 1},
	{"detection/flutter_yolox_nano_float32.tflite", 6},
	{"pose/mediapipe_pose_landmark_lite.tflite", 5},
	{"detection/flutter_fazaza_model_1.tflite", 6},
}

// TestCorpusFoldPad runs corpus models with foldable PADs folded, at 1
// and 3 threads, and requires the outputs of the unfused graph, bit for
// bit, and the expected number of PADs folded.
func TestCorpusFoldPad(t *testing.T) {
	testCorpusFusion(t, "PADs folded", foldPadCorpusModels, &foldPads, func(it *Interpreter) (n int) {
		for k := range it.sg.nodes {
			if it.sg.nodes[k].padFolded {
				n++
			}
		}
		return n
	})
}
