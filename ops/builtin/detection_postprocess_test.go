package builtin

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// Tests of TFLite_Detection_PostProcess: TFLite's kernel test vectors
// (detection_postprocess_test.cc), the options decoder, and the nodes and
// options TFLite refuses or would misread.

// detectionOpts builds custom options; extra entries override or add.
func detectionOpts(t *testing.T, maxDet, maxCls int, regular *bool, perClass *int, extra map[string]float64) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("max_detections")
	b.Int(int64(maxDet))
	b.Key("max_classes_per_detection")
	b.Int(int64(maxCls))
	if perClass != nil {
		b.Key("detections_per_class")
		b.Int(int64(*perClass))
	}
	if regular != nil {
		b.Key("use_regular_nms")
		b.Bool(*regular)
	}
	floats := map[string]float64{"nms_score_threshold": 0, "nms_iou_threshold": 0.5, "y_scale": 10, "x_scale": 10, "h_scale": 5, "w_scale": 5, "num_classes": 2}
	for k, v := range extra {
		floats[k] = v
	}
	for k, v := range floats {
		b.Key(k)
		if k == "num_classes" {
			b.Int(int64(v))
		} else {
			b.Float32(float32(v))
		}
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// The six boxes, scores and anchors of TFLite's tests.
var (
	detBoxes = []float32{
		0, 0, 0, 0,
		0, 1, 0, 0,
		0, -1, 0, 0,
		0, 0, 0, 0,
		0, 1, 0, 0,
		0, 0, 0, 0,
	}
	detScores  = []float32{0, .9, .8, 0, .75, .72, 0, .6, .5, 0, .93, .95, 0, .5, .4, 0, .3, .2}
	detAnchors = []float32{
		0.5, 0.5, 1, 1,
		0.5, 0.5, 1, 1,
		0.5, 0.5, 1, 1,
		0.5, 10.5, 1, 1,
		0.5, 10.5, 1, 1,
		0.5, 100.5, 1, 1,
	}
)

func detectionNode(opts []byte) *ops.Node {
	n := node(nil, []*ops.Tensor{
		tensorOf(ops.Float32, []int{1, 6, 4}, detBoxes),
		tensorOf(ops.Float32, []int{1, 6, 3}, detScores),
		constT(tensorOf(ops.Float32, []int{6, 4}, detAnchors)),
	}, outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32))
	n.CustomOptions = opts
	n.OpName = DetectionPostProcessName
	return n
}

func near(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > tol {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
}

func TestDetectionPostProcessTFLiteVectors(t *testing.T) {
	yes, one := true, 1
	cases := []struct {
		name                   string
		opts                   []byte
		boxes, classes, scores []float32
		num                    float32
	}{
		{"FloatTest", detectionOpts(t, 3, 1, nil, nil, nil),
			[]float32{0, 10, 1, 11, 0, 0, 1, 1, 0, 100, 1, 101}, []float32{1, 0, 0}, []float32{0.95, 0.9, 0.3}, 3},
		{"MaxClass2Test", detectionOpts(t, 3, 2, nil, nil, nil),
			[]float32{0, 10, 1, 11, 0, 10, 1, 11, 0, 0, 1, 1, 0, 0, 1, 1, 0, 100, 1, 101, 0, 100, 1, 101},
			[]float32{1, 0, 0, 1, 0, 1}, []float32{0.95, .93, 0.9, 0.8, 0.3, 0.2}, 3},
		{"RegularNMS", detectionOpts(t, 3, 1, &yes, &one, nil),
			[]float32{0, 10, 1, 11, 0, 10, 1, 11, 0, 0, 0, 0}, []float32{1, 0, 0}, []float32{0.95, 0.93, 0}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := detectionNode(c.opts)
			k := NewDetectionPostProcess()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, []int{1, len(c.classes), 4})
			wantShape(t, n.Outputs[3].Shape, []int{1})
			near(t, "boxes", n.Outputs[0].Float32s(), c.boxes, 3e-4)
			near(t, "classes", n.Outputs[1].Float32s(), c.classes, 0)
			near(t, "scores", n.Outputs[2].Float32s(), c.scores, 1e-6)
			near(t, "num_detections", n.Outputs[3].Float32s(), []float32{c.num}, 0)
			noAllocs(t, k, n)
		})
	}
}

func TestDetectionOptionsDecoder(t *testing.T) {
	o, err := decodeDetectionOptions(detectionOpts(t, 10, 1, nil, nil, map[string]float64{"nms_score_threshold": 0.25, "num_classes": 90}))
	if err != nil {
		t.Fatal(err)
	}
	want := detectionOptions{MaxDetections: 10, MaxClassesPerDetection: 1, DetectionsPerClass: 100, ScoreThreshold: 0.25,
		IoUThreshold: 0.5, NumClasses: 90, YScale: 10, XScale: 10, HScale: 5, WScale: 5}
	if o != want {
		t.Errorf("decoded %+v, want %+v", o, want)
	}
	// Integers given as floats and floats given as integers convert as
	// the C++ reader converts them; a wide int truncates to int32.
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("max_detections")
	b.Float64(7.9)
	b.Key("nms_iou_threshold")
	b.Int(1)
	b.Key("num_classes")
	b.Int(1<<32 + 3)
	b.Key("use_regular_nms")
	b.Int(2)
	b.Key("detections_per_class")
	b.Int(5)
	b.EndMap(m)
	buf, _ := b.Finish()
	o, err = decodeDetectionOptions(buf)
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxDetections != 7 || o.IoUThreshold != 1 || o.NumClasses != 3 || !o.UseRegularNMS || o.DetectionsPerClass != 5 {
		t.Errorf("conversions: %+v", o)
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}, {13, 4, 1}} {
		if _, err := decodeDetectionOptions(bad); err == nil {
			t.Errorf("options % x accepted", bad)
		}
	}
}

func TestDetectionPostProcessErrors(t *testing.T) {
	ok := detectionOpts(t, 3, 1, nil, nil, nil)
	mod := func(opts []byte, f func(n *ops.Node)) *ops.Node {
		n := detectionNode(opts)
		if f != nil {
			f(n)
		}
		return n
	}
	yes, zero := true, 0
	u8 := func(shape ...int) *ops.Tensor {
		return q(tensorOf(ops.Uint8, shape, make([]uint8, prod(shape))), 0.1, 128)
	}
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"no options", mod(nil, nil), []string{"custom_options are missing"}},
		{"bad options", mod([]byte{0, 0xfc, 1}, nil), []string{"custom_options"}},
		{"iou 0", mod(detectionOpts(t, 3, 1, nil, nil, map[string]float64{"nms_iou_threshold": 0}), nil), []string{"nms_iou_threshold"}},
		{"iou 1.5", mod(detectionOpts(t, 3, 1, nil, nil, map[string]float64{"nms_iou_threshold": 1.5}), nil), []string{"nms_iou_threshold"}},
		{"no classes", mod(detectionOpts(t, 3, 1, nil, nil, map[string]float64{"num_classes": 0}), nil), []string{"num_classes 0"}},
		{"classes too many", mod(detectionOpts(t, 3, 1, nil, nil, map[string]float64{"num_classes": 4}), nil), []string{"num_classes 4"}},
		{"classes too few", mod(detectionOpts(t, 3, 1, nil, nil, map[string]float64{"num_classes": 1}), nil), []string{"num_classes 1"}},
		{"max classes 0", mod(detectionOpts(t, 3, 0, nil, nil, nil), nil), []string{"max_classes_per_detection 0"}},
		{"max classes 0 regular", mod(detectionOpts(t, 3, 0, &yes, nil, nil), nil), []string{"max_classes_per_detection 0"}},
		{"negative max", mod(detectionOpts(t, -1, 1, nil, nil, nil), nil), []string{"max_detections -1"}},
		{"regular per class 0", mod(detectionOpts(t, 3, 1, &yes, &zero, nil), nil), []string{"detections_per_class 0"}},
		{"overflow", mod(detectionOpts(t, 1<<20, 1<<20, nil, nil, nil), nil), []string{"overflows"}},
		{"2 inputs", mod(ok, func(n *ops.Node) { n.Inputs = n.Inputs[:2] }), []string{"2 inputs"}},
		{"boxes rank", mod(ok, func(n *ops.Node) { n.Inputs[0] = tensorOf(ops.Float32, []int{6, 4}, detBoxes) }), []string{"input 0", "[1, num_boxes"}},
		{"batch 2", mod(ok, func(n *ops.Node) { n.Inputs[0] = tensorOf(ops.Float32, []int{2, 3, 4}, detBoxes) }), []string{"input 0"}},
		{"box width 3", mod(ok, func(n *ops.Node) { n.Inputs[0] = tensorOf(ops.Float32, []int{1, 8, 3}, detBoxes[:24]) }), []string{"input 0", "≥4"}},
		{"scores boxes", mod(ok, func(n *ops.Node) { n.Inputs[1] = tensorOf(ops.Float32, []int{1, 5, 3}, detScores[:15]) }), []string{"input 1", "[1, 6"}},
		{"anchors short", mod(ok, func(n *ops.Node) { n.Inputs[2] = tensorOf(ops.Float32, []int{5, 4}, detAnchors[:20]) }), []string{"input 2", "[6, 4]"}},
		{"anchors width", mod(ok, func(n *ops.Node) { n.Inputs[2] = tensorOf(ops.Float32, []int{8, 3}, detAnchors) }), []string{"input 2"}},
		{"int8 boxes", mod(ok, func(n *ops.Node) { n.Inputs[0] = q(tensorOf(ops.Int8, []int{1, 6, 4}, make([]int8, 24)), 0.1, 0) }), []string{"input 0", "int8"}},
		{"int8 scores", mod(ok, func(n *ops.Node) { n.Inputs[1] = q(tensorOf(ops.Int8, []int{1, 6, 3}, make([]int8, 18)), 0.1, 0) }), []string{"input 1", "int8"}},
		{"uint8 boxes float anchors", mod(ok, func(n *ops.Node) { n.Inputs[0] = u8(1, 6, 4) }), []string{"input 2", "uint8 anchors"}},
		{"float boxes uint8 anchors", mod(ok, func(n *ops.Node) { n.Inputs[2] = u8(6, 4) }), []string{"input 2", "float32 anchors"}},
		{"uint8 unquantized", mod(ok, func(n *ops.Node) {
			n.Inputs[0], n.Inputs[2] = tensorOf(ops.Uint8, []int{1, 6, 4}, make([]uint8, 24)), u8(6, 4)
		}), []string{"input 0", "quantization"}},
		{"output type", mod(ok, func(n *ops.Node) { n.Outputs[1] = outTensor(ops.Int32) }), []string{"output 1", "int32"}},
		{"3 outputs", mod(ok, func(n *ops.Node) { n.Outputs = n.Outputs[:3] }), []string{"3 outputs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewDetectionPostProcess(), c.n, c.wants...) })
	}
	// A decoded box with ymin > ymax (a negative anchor height) is
	// refused at Eval, as TFLite's ValidateBoxes does.
	n := detectionNode(ok)
	anchors := append([]float32(nil), detAnchors...)
	anchors[2] = -1
	n.Inputs[2] = constT(tensorOf(ops.Float32, []int{6, 4}, anchors))
	k := NewDetectionPostProcess()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "ymin > ymax") {
		t.Errorf("invalid box: %v", err)
	}
	if err := NewDetectionPostProcess().Eval(detectionNode(ok)); err == nil {
		t.Error("Eval before Prepare succeeded")
	}
}
