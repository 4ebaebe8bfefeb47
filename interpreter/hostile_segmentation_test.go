package interpreter

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/schema"
)

// Hostile models of the segmentation custom operators of package
// ops/perception (MediaPipe's Convolution2DTransposeBias,
// MaxPoolingWithArgmax2D and MaxUnpooling2D, LiteRT's MaxUnpooling2D):
// their custom_options are raw C structs, so short, empty or corrupted
// options, zero or huge strides and windows, mismatched shapes and
// indices out of range at run time must each fail with an error naming
// the operator, never panic or allocate without bound.

// segCustomModel is singleOpModel for the custom operator code with raw
// custom_options opts.
func segCustomModel(code string, opts []byte, ins, outs []hTensor) *schema.ModelT {
	m := singleOpModel(schema.BuiltinOperatorCUSTOM, 1, nil, ins, outs)
	m.OperatorCodes[0].CustomCode = code
	m.Subgraphs[0].Operators[0].CustomOptions = opts
	return m
}

// segPoolOpts is a TfLitePoolParams as MediaPipe's models store it.
func segPoolOpts(padding, strideW, strideH, filterW, filterH int32) []byte {
	return i32s(padding, strideW, strideH, filterW, filterH, 0, -1, -1)
}

func segTconvModel() *schema.ModelT {
	return segCustomModel("Convolution2DTransposeBias", i32s(1, 2, 2),
		[]hTensor{f32t("in", nil, 1, 4, 4, 3), f32t("w", zerosF32(2*3*3*3), 2, 3, 3, 3), f32t("bias", zerosF32(2), 2)},
		[]hTensor{f32t("out", nil, 1, 8, 8, 2)})
}

func segArgmaxModel() *schema.ModelT {
	return segCustomModel("MaxPoolingWithArgmax2D", segPoolOpts(1, 2, 2, 2, 2),
		[]hTensor{f32t("in", nil, 1, 4, 4, 3)},
		[]hTensor{f32t("out", nil, 1, 2, 2, 3), f32t("idx", nil, 1, 2, 2, 3)})
}

func segUnpoolModel() *schema.ModelT {
	return segCustomModel("MaxUnpooling2D", segPoolOpts(2, 2, 2, 2, 2),
		[]hTensor{f32t("in", nil, 1, 2, 2, 3), f32t("idx", nil, 1, 2, 2, 3)},
		[]hTensor{f32t("out", nil, 1, 4, 4, 3)})
}

func segLiteRTUnpoolModel() *schema.ModelT {
	return segCustomModel("LiteRtMaxUnpooling2D", i32s(1, 2, 2, 2, 2, 0, 0, 0, 0, 0),
		[]hTensor{f32t("in", nil, 1, 2, 2, 3), i32t("idx", nil, 1, 2, 2, 3)},
		[]hTensor{f32t("out", nil, 1, 4, 4, 3)})
}

// segLitePoolModel is LiteRT's MaxPoolWithArgmax with FlexBuffer
// options (SAME, 2×2 windows, stride 2).
func segLitePoolModel() *schema.ModelT {
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("include_batch_in_index")
	b.Bool(false)
	b.Key("padding")
	b.String("SAME")
	for _, key := range []string{"ksize", "strides"} {
		b.Key(key)
		v := b.StartVector()
		for _, x := range []int64{1, 2, 2, 1} {
			b.Int(x)
		}
		b.EndVector(v, true, false)
	}
	b.EndMap(m)
	opts, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return segCustomModel("MaxPoolWithArgmax", opts,
		[]hTensor{f32t("in", nil, 1, 4, 4, 3)},
		[]hTensor{f32t("out", nil, 1, 2, 2, 3), i32t("idx", nil, 1, 2, 2, 3)})
}

func segWarpModel() *schema.ModelT {
	return segCustomModel("DenseImageWarp", nil,
		[]hTensor{f32t("in", nil, 1, 4, 4, 3), f32t("flow", nil, 1, 4, 4, 2)},
		[]hTensor{f32t("out", nil, 1, 4, 4, 3)})
}

func TestHostileSegmentationModels(t *testing.T) {
	bases := map[string]func() *schema.ModelT{
		"Convolution2DTransposeBias": segTconvModel, "MaxPoolingWithArgmax2D": segArgmaxModel,
		"MaxUnpooling2D": segUnpoolModel, "LiteRtMaxUnpooling2D": segLiteRTUnpoolModel,
		"MaxPoolWithArgmax": segLitePoolModel, "DenseImageWarp": segWarpModel,
	}
	for name, f := range bases {
		if err := loadAndAllocate(pack(f())); err != nil {
			t.Fatalf("base %s must be valid: %v", name, err)
		}
	}
	edit := func(base func() *schema.ModelT, f func(sg *schema.SubGraphT, m *schema.ModelT)) []byte {
		m := base()
		f(m.Subgraphs[0], m)
		return pack(m)
	}
	setOpts := func(b []byte) func(sg *schema.SubGraphT, _ *schema.ModelT) {
		return func(sg *schema.SubGraphT, _ *schema.ModelT) { sg.Operators[0].CustomOptions = b }
	}
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"tconv no options", edit(segTconvModel, setOpts(nil)), []string{"Convolution2DTransposeBias", "custom_options"}},
		{"tconv 8-byte options", edit(segTconvModel, setOpts(i32s(1, 2))), []string{"Convolution2DTransposeBias", "custom_options", "8 bytes"}},
		{"tconv zero stride", edit(segTconvModel, setOpts(i32s(1, 0, 2))), []string{"Convolution2DTransposeBias", "strides"}},
		{"tconv huge stride", edit(segTconvModel, setOpts(i32s(2, 1<<31-1, 1<<31-1))), []string{"Convolution2DTransposeBias", "strides"}},
		{"tconv output too large", edit(segTconvModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].CustomOptions = i32s(2, 30000, 30000)
			sg.Tensors[0].Shape = []int32{1, 300, 300, 3}
		}), []string{"Convolution2DTransposeBias"}},
		{"tconv bias size", edit(segTconvModel, func(sg *schema.SubGraphT, m *schema.ModelT) {
			sg.Tensors[2].Shape = []int32{3}
			m.Buffers[sg.Tensors[2].Buffer].Data = zerosF32(3)
		}), []string{"Convolution2DTransposeBias", "bias"}},
		{"tconv weights rank 3", edit(segTconvModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{2, 9, 3}
		}), []string{"Convolution2DTransposeBias", "weights"}},
		{"tconv depth mismatch", edit(segTconvModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[0].Shape = []int32{1, 4, 4, 2}
		}), []string{"Convolution2DTransposeBias", "channels"}},
		{"tconv two inputs", edit(segTconvModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].Inputs = sg.Operators[0].Inputs[:2]
		}), []string{"Convolution2DTransposeBias", "inputs"}},
		{"argmax short options", edit(segArgmaxModel, setOpts(i32s(1, 2, 2, 2, 2))), []string{"MaxPoolingWithArgmax2D", "custom_options", "20 bytes"}},
		{"argmax zero filter", edit(segArgmaxModel, setOpts(segPoolOpts(1, 2, 2, 0, 2))), []string{"MaxPoolingWithArgmax2D", "filter"}},
		{"argmax negative stride", edit(segArgmaxModel, setOpts(segPoolOpts(1, -1, 2, 2, 2))), []string{"MaxPoolingWithArgmax2D", "strides"}},
		{"argmax unknown padding", edit(segArgmaxModel, setOpts(segPoolOpts(7, 2, 2, 2, 2))), []string{"MaxPoolingWithArgmax2D", "padding 7"}},
		{"argmax one output", edit(segArgmaxModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Operators[0].Outputs = sg.Operators[0].Outputs[:1]
			sg.Outputs = sg.Outputs[:1]
		}), []string{"MaxPoolingWithArgmax2D", "outputs"}},
		{"unpool no options", edit(segUnpoolModel, setOpts(nil)), []string{"MaxUnpooling2D", "custom_options"}},
		{"unpool huge window", edit(segUnpoolModel, setOpts(segPoolOpts(2, 2, 2, 30000, 30000))), []string{"MaxUnpooling2D"}},
		{"unpool indices shape", edit(segUnpoolModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{1, 2, 3, 3}
		}), []string{"MaxUnpooling2D", "indices"}},
		{"litert unpool float indices", edit(segLiteRTUnpoolModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Type = schema.TensorTypeFLOAT32
		}), []string{"LiteRtMaxUnpooling2D", "int32"}},
		{"litert pool no options", edit(segLitePoolModel, setOpts(nil)), []string{"MaxPoolWithArgmax", "custom_options"}},
		{"litert pool raw struct options", edit(segLitePoolModel, setOpts(segPoolOpts(1, 2, 2, 2, 2))), []string{"MaxPoolWithArgmax", "custom_options"}},
		{"litert pool float indices", edit(segLitePoolModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[2].Type = schema.TensorTypeFLOAT32
		}), []string{"MaxPoolWithArgmax", "int32"}},
		{"warp flow depth", edit(segWarpModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[1].Shape = []int32{1, 4, 4, 3}
		}), []string{"DenseImageWarp", "flow"}},
		{"warp width 1", edit(segWarpModel, func(sg *schema.SubGraphT, _ *schema.ModelT) {
			sg.Tensors[0].Shape = []int32{1, 4, 1, 3}
			sg.Tensors[1].Shape = []int32{1, 4, 1, 2}
		}), []string{"DenseImageWarp", "at least 2"}},
		{"litert unpool padding unknown", edit(segLiteRTUnpoolModel, setOpts(i32s(0, 2, 2, 2, 2, 0))), []string{"LiteRtMaxUnpooling2D", "padding 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := loadAndAllocate(c.b)
			if err == nil {
				t.Fatal("accepted")
			}
			if isGuarded(err) {
				t.Fatalf("kernel panicked: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestHostileSegmentationOptionBytes corrupts every byte of each base
// model's custom_options (to 0x00, 0x80, 0xff and +1) and truncates them
// at every length: each model must load and run, or fail with an error,
// never panic.
func TestHostileSegmentationOptionBytes(t *testing.T) {
	for _, base := range []func() *schema.ModelT{segTconvModel, segArgmaxModel, segUnpoolModel, segLiteRTUnpoolModel, segLitePoolModel} {
		opts := base().Subgraphs[0].Operators[0].CustomOptions
		var variants [][]byte
		for i := range opts {
			for _, v := range []func(byte) byte{
				func(byte) byte { return 0 }, func(byte) byte { return 0x80 },
				func(byte) byte { return 0xff }, func(b byte) byte { return b + 1 },
			} {
				o := append([]byte(nil), opts...)
				o[i] = v(o[i])
				variants = append(variants, o)
			}
			variants = append(variants, opts[:i])
		}
		for _, o := range variants {
			m := base()
			m.Subgraphs[0].Operators[0].CustomOptions = o
			if err := loadAndAllocate(pack(m)); err != nil && isGuarded(err) {
				t.Fatalf("%s options % x: kernel panicked: %v", m.OperatorCodes[0].CustomCode, o, err)
			}
		}
	}
}

// TestHostileSegmentationRuntimeIndices feeds MaxUnpooling2D (MediaPipe's
// float indices and LiteRT's int32 ones) indices that would write outside
// the output: Invoke must fail naming the operator and the index, and a
// later valid Invoke must succeed.
func TestHostileSegmentationRuntimeIndices(t *testing.T) {
	t.Run("mediapipe", func(t *testing.T) {
		it := mustAllocate(t, segUnpoolModel())
		idx := it.Input(1).Float32s()
		for _, bad := range []float32{4.1, -1, 1e9, float32(nan())} {
			for i := range idx {
				idx[i] = bad
			}
			err := it.Invoke()
			if err == nil || !strings.Contains(err.Error(), "MaxUnpooling2D") || !strings.Contains(err.Error(), "index") {
				t.Fatalf("index %g: err %v", bad, err)
			}
		}
		for i := range idx {
			idx[i] = 3.1
		}
		if err := it.Invoke(); err != nil {
			t.Fatalf("valid indices after a failure: %v", err)
		}
	})
	t.Run("litert", func(t *testing.T) {
		it := mustAllocate(t, segLiteRTUnpoolModel())
		idx := it.Input(1).Int32s()
		for _, bad := range []int32{48, -1, 1 << 30} {
			clear(idx)
			idx[0] = bad
			err := it.Invoke()
			if err == nil || !strings.Contains(err.Error(), "LiteRtMaxUnpooling2D") || !strings.Contains(err.Error(), "index") {
				t.Fatalf("index %d: err %v", bad, err)
			}
		}
		for i := range idx {
			idx[i] = int32(i)
		}
		if err := it.Invoke(); err != nil {
			t.Fatalf("valid indices after a failure: %v", err)
		}
	})
}

// mustAllocate loads m into an interpreter with allocated tensors.
func mustAllocate(t *testing.T, m *schema.ModelT) *Interpreter {
	t.Helper()
	it, err := New(mustLoad(t, m), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	return it
}

// nan is a float64 NaN.
func nan() float64 { var z float64; return z / z }
