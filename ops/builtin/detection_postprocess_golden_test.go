package builtin_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of TFLite_Detection_PostProcess: fast and regular NMS,
// float32 and uint8 inputs (and the two mixed), a background class or
// none, box encodings with extra (keypoint) values, more classes per
// detection than classes, scores with many ties (libstdc++'s partial_sort
// order shows), and thresholds that keep everything or nothing.

// detOpts are the options of one variant.
type detOpts struct {
	maxDet, maxCls, perClass int // perClass 0: key absent (TFLite's default 100)
	regular                  *bool
	scoreThr, iou            float32
	classes                  int
}

func (o detOpts) bytes() []byte {
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("max_detections")
	b.Int(int64(o.maxDet))
	b.Key("max_classes_per_detection")
	b.Int(int64(o.maxCls))
	if o.perClass > 0 {
		b.Key("detections_per_class")
		b.Int(int64(o.perClass))
	}
	if o.regular != nil {
		b.Key("use_regular_nms")
		b.Bool(*o.regular)
	}
	b.Key("nms_score_threshold")
	b.Float32(o.scoreThr)
	b.Key("nms_iou_threshold")
	b.Float32(o.iou)
	b.Key("num_classes")
	b.Int(int64(o.classes))
	for _, kv := range []struct {
		k string
		v float32
	}{{"y_scale", 10}, {"x_scale", 10}, {"h_scale", 5}, {"w_scale", 5}} {
		b.Key(kv.k)
		b.Float32(kv.v)
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return buf
}

// detModel is one TFLite_Detection_PostProcess over num anchors (seeded),
// box encodings of boxLen values and withBG class scores per box; u8box
// and u8score choose uint8 for the box encodings (and anchors) and the
// class predictions.
func detModel(o detOpts, num, boxLen, withBG int32, u8box, u8score bool, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 99))
	b := optest.NewBuilder()
	f32, u8 := schema.TensorTypeFLOAT32, schema.TensorTypeUINT8
	var boxes, scores, anchors int32
	anc := make([]float64, 4*num)
	for i := 0; i < int(num); i++ {
		anc[4*i], anc[4*i+1] = r.Float64(), r.Float64()
		anc[4*i+2], anc[4*i+3] = 0.05+0.45*r.Float64(), 0.05+0.45*r.Float64()
	}
	if u8box {
		boxes = b.Tensor("box_encodings", u8, []int32{1, num, boxLen}, optest.PerTensor(0.05, 128))
		codes := make([]byte, len(anc))
		for i, v := range anc {
			codes[i] = byte(math.Round(v * 255))
		}
		anchors = b.Const("anchors", u8, []int32{num, 4}, optest.PerTensor(1.0/255, 0), codes)
	} else {
		boxes = b.Tensor("box_encodings", f32, []int32{1, num, boxLen}, nil)
		vals := make([]float32, len(anc))
		for i, v := range anc {
			vals[i] = float32(v)
		}
		anchors = b.Const("anchors", f32, []int32{num, 4}, nil, optest.F32(vals...))
	}
	if u8score {
		scores = b.Tensor("class_predictions", u8, []int32{1, num, withBG}, optest.PerTensor(1.0/256, 3))
	} else {
		scores = b.Tensor("class_predictions", f32, []int32{1, num, withBG}, nil)
	}
	n := int32(o.maxDet * o.maxCls)
	outs := []int32{
		b.Tensor("detection_boxes", f32, []int32{1, n, 4}, nil),
		b.Tensor("detection_classes", f32, []int32{1, n}, nil),
		b.Tensor("detection_scores", f32, []int32{1, n}, nil),
		b.Tensor("num_detections", f32, []int32{1}, nil),
	}
	b.Custom("TFLite_Detection_PostProcess", []int32{boxes, scores, anchors}, outs, o.bytes())
	b.Inputs(boxes, scores)
	b.Outputs(outs...)
	return b.Bytes()
}

// detGen draws float box encodings in [-1, 1) and float scores from
// `levels` steps in [0, 1) (uniform when 0); uint8 inputs over their
// whole range.
func detGen(levels int) optest.InputGen {
	return func(r *rand.Rand, input int, typ ops.DataType) float64 {
		if typ == ops.Uint8 {
			return float64(r.IntN(256))
		}
		if input == 1 {
			if levels > 0 {
				return float64(r.IntN(levels)) / float64(levels)
			}
			return r.Float64()
		}
		return 2*r.Float64() - 1
	}
}

func detectionCases() []goldenModel {
	yes, no := true, false
	fast := func(maxDet, maxCls, classes int, thr float32) detOpts {
		return detOpts{maxDet: maxDet, maxCls: maxCls, scoreThr: thr, iou: 0.5, classes: classes}
	}
	regular := func(maxDet, perClass, classes int, thr float32) detOpts {
		return detOpts{maxDet: maxDet, maxCls: 1, perClass: perClass, regular: &yes, scoreThr: thr, iou: 0.5, classes: classes}
	}
	explicitFast := fast(10, 1, 5, 0.3)
	explicitFast.regular = &no
	return []goldenModel{
		{variant: "fast_f32", model: detModel(fast(10, 1, 5, 0.3), 30, 4, 6, false, false, 1), gen: detGen(0)},
		{variant: "fast_f32_explicit_flag", model: detModel(explicitFast, 30, 4, 6, false, false, 2), gen: detGen(0)},
		{variant: "fast_f32_3_classes_ties", model: detModel(fast(8, 3, 6, 0.2), 24, 4, 7, false, false, 3), gen: detGen(6)},
		{variant: "fast_f32_no_background", model: detModel(fast(6, 2, 4, 0.25), 20, 4, 4, false, false, 4), gen: detGen(0)},
		{variant: "fast_f32_keypoints", model: detModel(fast(5, 1, 3, 0.4), 16, 10, 4, false, false, 5), gen: detGen(0)},
		{variant: "fast_f32_classes_above", model: detModel(fast(4, 5, 3, 0.1), 12, 4, 4, false, false, 6), gen: detGen(4)},
		{variant: "fast_f32_more_than_boxes", model: detModel(fast(10, 1, 2, 0.0), 6, 4, 3, false, false, 7), gen: detGen(0)},
		{variant: "fast_f32_none", model: detModel(fast(5, 1, 2, 1.5), 10, 4, 3, false, false, 8), gen: detGen(0)},
		{variant: "fast_u8", model: detModel(fast(10, 1, 4, 0.5), 40, 4, 5, true, true, 9), gen: detGen(0)},
		{variant: "fast_u8_2_classes", model: detModel(fast(6, 2, 5, 0.6), 30, 4, 6, true, true, 10), gen: detGen(0)},
		{variant: "fast_u8_boxes_f32_scores", model: detModel(fast(6, 1, 3, 0.5), 20, 4, 4, true, false, 11), gen: detGen(0)},
		{variant: "fast_f32_boxes_u8_scores", model: detModel(fast(6, 1, 3, 0.5), 20, 4, 4, false, true, 12), gen: detGen(0)},
		{variant: "regular_f32", model: detModel(regular(10, 4, 5, 0.3), 30, 4, 6, false, false, 13), gen: detGen(0)},
		{variant: "regular_f32_default_per_class", model: detModel(regular(12, 0, 3, 0.2), 25, 4, 4, false, false, 14), gen: detGen(0)},
		{variant: "regular_f32_ties", model: detModel(regular(10, 3, 4, 0.1), 20, 4, 5, false, false, 15), gen: detGen(5)},
		{variant: "regular_f32_no_background", model: detModel(regular(8, 2, 3, 0.3), 15, 4, 3, false, false, 16), gen: detGen(0)},
		{variant: "regular_u8", model: detModel(regular(10, 5, 4, 0.55), 40, 4, 5, true, true, 17), gen: detGen(0)},
		{variant: "regular_u8_keypoints", model: detModel(regular(6, 2, 2, 0.5), 20, 6, 3, true, true, 18), gen: detGen(0)},
	}
}

func TestRecordDetectionPostProcess(t *testing.T) {
	recordGoldenFrom(t, "detection_postprocess", detectionCases(), 7)
}
func TestGoldenDetectionPostProcess(t *testing.T) { checkGolden(t, "detection_postprocess") }
