package perception_test

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/perception"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of the segmentation custom operators: small models of one
// operator (or of MediaPipe's pooling pair), with seeded weights, written
// by optest.Builder; TensorFlow Lite's outputs (a native runner with
// MediaPipe's and LiteRT's kernels registered, named by TFLITE_REF) are
// recorded once into testdata/segmentation/<variant>/ by
// TestRecordSegmentationGolden (TFLRUN_RECORD=1) and checked on every run
// by TestSegmentationGolden.

// goldTensor is one tensor of a golden model: a graph input (data nil),
// a constant, or (out true) a graph output.
type goldTensor struct {
	typ   schema.TensorType
	shape []int32
	data  []byte
}

// goldOp is one custom operator of a golden model: its code, raw
// custom_options and tensor indices.
type goldOp struct {
	code     string
	opts     []byte
	ins, out []int
}

// goldModel builds a model of the tensors ts and the custom operators;
// the outputs of the last operator (and every tensor listed in outs) are
// the graph's outputs.
func goldModel(ts []goldTensor, opsList []goldOp, outs []int) []byte {
	b := optest.NewBuilder()
	idx := make([]int32, len(ts))
	var graphIns []int32
	produced := map[int]bool{}
	for _, o := range opsList {
		for _, j := range o.out {
			produced[j] = true
		}
	}
	for i, t := range ts {
		name := "t" + string(rune('a'+i))
		switch {
		case t.data != nil:
			idx[i] = b.Const(name, t.typ, t.shape, nil, t.data)
		default:
			idx[i] = b.Tensor(name, t.typ, t.shape, nil)
			if !produced[i] {
				graphIns = append(graphIns, idx[i])
			}
		}
	}
	for _, o := range opsList {
		var in, out []int32
		for _, j := range o.ins {
			in = append(in, idx[j])
		}
		for _, j := range o.out {
			out = append(out, idx[j])
		}
		b.Custom(o.code, in, out, o.opts)
	}
	var gout []int32
	for _, j := range outs {
		gout = append(gout, idx[j])
	}
	b.Inputs(graphIns...)
	b.Outputs(gout...)
	return b.Bytes()
}

// rawInts is a C struct of little-endian int32 fields.
func rawInts(v ...int32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

// seededF32 is n seeded uniform values in [-1, 1) as bytes.
func seededF32(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x676f6c64))
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*r.Float32() - 1
	}
	return optest.F32(v...)
}

// goldVariant is one recorded model.
type goldVariant struct {
	name  string
	model []byte
	gen   optest.InputGen
}

const f32 = schema.TensorTypeFLOAT32

// tconvVariant is a Convolution2DTransposeBias model: input [1, h, w,
// inC], weights [outC, f, f, inC], stride s.
func tconvVariant(name string, seed uint64, batch, h, w, inC, outC, fh, fw int32, padding, sw, sh int32) goldVariant {
	return goldVariant{name: name, model: goldModel([]goldTensor{
		{typ: f32, shape: []int32{batch, h, w, inC}},
		{typ: f32, shape: []int32{outC, fh, fw, inC}, data: seededF32(seed, int(outC*fh*fw*inC))},
		{typ: f32, shape: []int32{outC}, data: seededF32(seed+1, int(outC))},
		{typ: f32, shape: []int32{batch, 1, 1, outC}}, // resized by Prepare
	}, []goldOp{{code: perception.Convolution2DTransposeBiasName, opts: rawInts(padding, sw, sh), ins: []int{0, 1, 2}, out: []int{3}}}, []int{3})}
}

// poolOpts is a TfLitePoolParams as MediaPipe's models store it.
func poolOpts(padding, sw, sh, fw, fh, act int32) []byte {
	return rawInts(padding, sw, sh, fw, fh, act, -1, -1)
}

// argmaxVariant is a MaxPoolingWithArgmax2D model.
func argmaxVariant(name string, shape []int32, opts []byte) goldVariant {
	return goldVariant{name: name, model: goldModel([]goldTensor{
		{typ: f32, shape: shape}, {typ: f32, shape: shape}, {typ: f32, shape: shape},
	}, []goldOp{{code: perception.MaxPoolingWithArgmax2DName, opts: opts, ins: []int{0}, out: []int{1, 2}}}, []int{1, 2})}
}

// pairVariant is MediaPipe's pooling pair: MaxPoolingWithArgmax2D, then
// MaxUnpooling2D of its maxima by its indices.
func pairVariant(name string, shape []int32, opts []byte) goldVariant {
	return goldVariant{name: name, model: goldModel([]goldTensor{
		{typ: f32, shape: shape}, {typ: f32, shape: shape}, {typ: f32, shape: shape}, {typ: f32, shape: shape},
	}, []goldOp{
		{code: perception.MaxPoolingWithArgmax2DName, opts: opts, ins: []int{0}, out: []int{1, 2}},
		{code: perception.MaxUnpooling2DName, opts: opts, ins: []int{1, 2}, out: []int{3}},
	}, []int{3, 1})}
}

// liteRTUnpoolVariant is LiteRT's MaxUnpooling2D (int32 indices, drawn
// in [0, outImg)) under the custom code code.
func liteRTUnpoolVariant(name, code string, shape []int32, padding, sw, sh, fw, fh int32, outImg int) goldVariant {
	return goldVariant{name: name, model: goldModel([]goldTensor{
		{typ: f32, shape: shape}, {typ: schema.TensorTypeINT32, shape: shape}, {typ: f32, shape: shape},
	}, []goldOp{{code: code, opts: rawInts(padding, sw, sh, fw, fh, 0, 0, 0, 0, 0), ins: []int{0, 1}, out: []int{2}}}, []int{2}),
		gen: func(r *rand.Rand, input int, typ ops.DataType) float64 {
			if typ == ops.Int32 {
				return float64(r.IntN(outImg))
			}
			return 2*r.Float64() - 1
		}}
}

// litePoolVariant is LiteRT's MaxPoolWithArgmax (FlexBuffer options).
func litePoolVariant(t testing.TB, name string, shape []int32, padding string, fh, fw, sh, sw int64) goldVariant {
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("include_batch_in_index")
	b.Bool(false)
	b.Key("padding")
	b.String(padding)
	for _, kv := range []struct {
		key string
		v   []int64
	}{{"ksize", []int64{1, fh, fw, 1}}, {"strides", []int64{1, sh, sw, 1}}} {
		b.Key(kv.key)
		v := b.StartVector()
		for _, x := range kv.v {
			b.Int(x)
		}
		b.EndVector(v, true, false)
	}
	b.EndMap(m)
	opts, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return goldVariant{name: name, model: goldModel([]goldTensor{
		{typ: f32, shape: shape}, {typ: f32, shape: shape}, {typ: schema.TensorTypeINT32, shape: shape},
	}, []goldOp{{code: perception.MaxPoolWithArgmaxName, opts: opts, ins: []int{0}, out: []int{1, 2}}}, []int{1, 2})}
}

// warpVariant is LiteRT's DenseImageWarp with flows in [-3, 3), some
// reaching past the border.
func warpVariant(name string, shape []int32) goldVariant {
	fshape := []int32{shape[0], shape[1], shape[2], 2}
	return goldVariant{name: name, model: goldModel([]goldTensor{
		{typ: f32, shape: shape}, {typ: f32, shape: fshape}, {typ: f32, shape: shape},
	}, []goldOp{{code: perception.DenseImageWarpName, ins: []int{0, 1}, out: []int{2}}}, []int{2}),
		gen: func(r *rand.Rand, input int, _ ops.DataType) float64 {
			if input == 1 {
				return 6*r.Float64() - 3
			}
			return 2*r.Float64() - 1
		}}
}

// segmentationVariants are the recorded models: the shapes of MediaPipe's
// segmentation models scaled down, and the paddings, overlaps and
// windows their kernels treat differently.
func segmentationVariants(t testing.TB) []goldVariant {
	return []goldVariant{
		// MediaPipe selfie's last layer: 2×2 stride 2 to one channel.
		tconvVariant("tconv_2x2s2_to1", 10, 1, 8, 8, 16, 1, 2, 2, 1, 2, 2),
		// Hair's 2×2 stride-2 layers (direct GEMM: 2·8 products per row).
		tconvVariant("tconv_2x2s2_to8_batch2", 20, 2, 6, 5, 32, 8, 2, 2, 1, 2, 2),
		// Hair's 3×3 stride-2 SAME layers: overlapping taps, trailing crop.
		tconvVariant("tconv_3x3s2_same", 30, 1, 5, 6, 8, 8, 3, 3, 1, 2, 2),
		// VALID, stride 1, 3×2 filter: every output sums several taps.
		tconvVariant("tconv_3x2s1_valid", 40, 1, 4, 5, 3, 5, 3, 2, 2, 1, 1),
		// SAME with leading padding (filter 4, stride 1), unequal strides.
		tconvVariant("tconv_4x4_same_lead", 50, 1, 3, 4, 2, 3, 4, 4, 1, 1, 2),
		argmaxVariant("argmax_2x2s2_same", []int32{1, 8, 8, 8}, poolOpts(1, 2, 2, 2, 2, 0)),
		argmaxVariant("argmax_3x3s2_same_odd", []int32{1, 7, 9, 3}, poolOpts(1, 2, 2, 3, 3, 0)),
		argmaxVariant("argmax_2x3s1_valid_relu6", []int32{2, 5, 6, 2}, poolOpts(2, 1, 1, 3, 2, 3)),
		pairVariant("pair_2x2s2", []int32{1, 8, 6, 4}, poolOpts(2, 2, 2, 2, 2, 0)),
		pairVariant("pair_3x3s3", []int32{1, 9, 6, 2}, poolOpts(2, 3, 3, 3, 3, 0)),
		liteRTUnpoolVariant("litert_unpool_same", perception.LiteRtMaxUnpooling2DName, []int32{1, 4, 4, 8}, 1, 2, 2, 2, 2, 8*8*8),
		liteRTUnpoolVariant("litert_unpool_valid", perception.LiteRtMaxUnpooling2DName, []int32{2, 2, 4, 2}, 2, 3, 2, 2, 2, 4*11*2),
		litePoolVariant(t, "litert_argmax_same", []int32{1, 7, 8, 3}, "SAME", 2, 2, 2, 2),
		litePoolVariant(t, "litert_argmax_valid", []int32{2, 6, 7, 2}, "VALID", 3, 2, 2, 3),
		warpVariant("warp", []int32{2, 5, 6, 3}),
	}
}

// goldenRoot is where the cases are recorded.
var goldenRoot = filepath.Join("testdata", "segmentation")

func TestRecordSegmentationGolden(t *testing.T) {
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording skipped: run with %s=1 %s=/path/to/tflite_ref_custom (MediaPipe's and LiteRT's perception kernels registered) to rewrite %s", optest.RecordEnv, optest.RefEnv, goldenRoot)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(goldenRoot); err != nil {
		t.Fatal(err)
	}
	for i, v := range segmentationVariants(t) {
		if err := optest.RecordCases(ref, filepath.Join(goldenRoot, v.name), v.model, 3, uint64(1000*i+1), v.gen, optest.Case{}); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
	}
}

func TestSegmentationGolden(t *testing.T) {
	optest.Check(t, goldenRoot, nil)
}

// TestSegmentationGoldenModelsRun runs every golden model once through
// tflrun on inputs drawn as the recorder draws them: the models are
// valid, whatever the recorded cases say.
func TestSegmentationGoldenModelsRun(t *testing.T) {
	dir := t.TempDir()
	for i, v := range segmentationVariants(t) {
		p := filepath.Join(dir, v.name+".tflite")
		if err := os.WriteFile(p, v.model, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := optest.RandomInputs(p, uint64(1000*i+1), v.gen, nil)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if _, err := optest.Run(&optest.Case{Model: p, Inputs: in}, nil); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
	}
}
