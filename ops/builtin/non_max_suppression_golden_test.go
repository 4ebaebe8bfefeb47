package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of NON_MAX_SUPPRESSION_V4 and V5: random boxes (corners in
// either order, overlapping heavily), scores with many ties (the order of
// a std::priority_queue among equal scores shows), hard and soft
// suppression, thresholds that keep all, some or none of the boxes, and
// max_output_size from 0 to more than the boxes.

// nmsModel is one NMS operator over num boxes; sigma < 0 means the
// 5-input (hard) form.
func nmsModel(code schema.BuiltinOperator, num, maxOut int32, iou, scoreThr, sigma float32) []byte {
	b := optest.NewBuilder()
	f32 := schema.TensorTypeFLOAT32
	boxes := b.Tensor("boxes", f32, []int32{num, 4}, nil)
	scores := b.Tensor("scores", f32, []int32{num}, nil)
	ins := []int32{boxes, scores,
		b.Const("max_output_size", schema.TensorTypeINT32, []int32{}, nil, optest.I32(maxOut)),
		b.Const("iou_threshold", f32, []int32{}, nil, optest.F32(iou)),
		b.Const("score_threshold", f32, []int32{}, nil, optest.F32(scoreThr)),
	}
	sel := b.Tensor("selected_indices", schema.TensorTypeINT32, []int32{maxOut}, nil)
	cnt := b.Tensor("num_selected", schema.TensorTypeINT32, []int32{}, nil)
	outs := []int32{sel, cnt}
	if sigma >= 0 {
		ins = append(ins, b.Const("soft_nms_sigma", f32, []int32{}, nil, optest.F32(sigma)))
		outs = []int32{sel, b.Tensor("selected_scores", f32, []int32{maxOut}, nil), cnt}
	}
	b.Op(code, 1, ins, outs, nil)
	b.Inputs(boxes, scores)
	b.Outputs(outs...)
	return b.Bytes()
}

// nmsGen draws box corners in [0, 1) (so boxes overlap a lot) and scores
// from `levels` equal steps in [0, 1) (ties), or uniform when levels is 0.
func nmsGen(levels int) optest.InputGen {
	return func(r *rand.Rand, input int, _ ops.DataType) float64 {
		if input == 1 && levels > 0 {
			return float64(r.IntN(levels)) / float64(levels)
		}
		return r.Float64()
	}
}

func nmsCases() []goldenModel {
	v4, v5 := schema.BuiltinOperatorNON_MAX_SUPPRESSION_V4, schema.BuiltinOperatorNON_MAX_SUPPRESSION_V5
	return []goldenModel{
		{variant: "v4_20_boxes", model: nmsModel(v4, 20, 10, 0.5, 0.2, -1), gen: nmsGen(0)},
		{variant: "v4_ties", model: nmsModel(v4, 40, 25, 0.4, 0.1, -1), gen: nmsGen(4)},
		{variant: "v4_many", model: nmsModel(v4, 300, 60, 0.3, 0.0, -1), gen: nmsGen(0)},
		{variant: "v4_iou_1", model: nmsModel(v4, 16, 20, 1.0, -1, -1), gen: nmsGen(3)},
		{variant: "v4_max_0", model: nmsModel(v4, 8, 0, 0.5, 0, -1), gen: nmsGen(0)},
		{variant: "v4_none_above", model: nmsModel(v4, 8, 4, 0.5, 2, -1), gen: nmsGen(0)},
		{variant: "v4_six_inputs", model: nmsModel(v4, 12, 6, 0.6, 0.1, 0.3), gen: nmsGen(0)},
		{variant: "v5_soft", model: nmsModel(v5, 30, 15, 0.7, 0.05, 0.5), gen: nmsGen(0)},
		{variant: "v5_soft_ties", model: nmsModel(v5, 40, 40, 0.9, 0.1, 0.25), gen: nmsGen(5)},
		{variant: "v5_sigma_0", model: nmsModel(v5, 25, 12, 0.5, 0.2, 0), gen: nmsGen(4)},
		{variant: "v5_five_inputs", model: nmsModel(v5, 10, 5, 0.5, 0.3, -1), gen: nmsGen(0)},
	}
}

func TestRecordNonMaxSuppression(t *testing.T) {
	recordGoldenFrom(t, "non_max_suppression", nmsCases(), 7)
}
func TestGoldenNonMaxSuppression(t *testing.T) { checkGolden(t, "non_max_suppression") }
