package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NonMaxSuppression is the kernel of TFLite's NON_MAX_SUPPRESSION_V4 and
// NON_MAX_SUPPRESSION_V5 operators (non_max_suppression.cc, one kernel for
// both): greedy selection of the highest-scoring boxes that do not overlap
// a box already selected by more than an IoU threshold, optionally with
// Gaussian soft suppression (Bodla et al., "Soft-NMS").
//
// Inputs: 0 boxes float32 [num_boxes, 4] as (y1, x1, y2, x2) corners in
// either order; 1 scores float32 [num_boxes]; 2 max_output_size int32
// scalar; 3 iou_threshold and 4 score_threshold float32 scalars; and, for
// soft NMS (6 inputs, what V5 models have), 5 soft_nms_sigma float32
// scalar. Outputs with 5 inputs: 0 selected_indices int32
// [max_output_size], 1 num_selected int32 scalar; with 6: 0
// selected_indices, 1 selected_scores float32 [max_output_size], 2
// num_selected. Entries past num_selected are 0, as TFLite's
// ResetUnusedElementsToZeroes writes them.
//
// The selection is reference_ops::NonMaxSuppression's: boxes scoring above
// score_threshold enter a max-heap on score (a std::priority_queue, whose
// order among equal scores this kernel reproduces, see stdsort_common.go);
// a candidate is dropped when its IoU with a selected box is ≥
// iou_threshold, and otherwise decayed by exp(−0.5·IoU²/σ) per selected
// box it overlaps; it is selected when no decay happened, and pushed back
// while its score stays above score_threshold.
//
// max_output_size must be a constant, as TFLite sizes the outputs at Eval
// otherwise (a dynamic tensor, which tflrun does not support yet).
type NonMaxSuppression struct {
	prepared bool
	soft     bool
	numBoxes int
	maxOut   int
	heap     []nmsCandidate
}

// nmsCandidate is reference_ops' Candidate.
type nmsCandidate struct {
	index, suppressBegin int32
	score                float32
}

// nmsLess is the priority queue's comparator (a lower score sinks).
func nmsLess(a, b nmsCandidate) bool { return a.score < b.score }

// NewNonMaxSuppression returns a NON_MAX_SUPPRESSION_V4/V5 kernel for one
// node.
func NewNonMaxSuppression() ops.Kernel { return &NonMaxSuppression{} }

// scalarInput checks that input i is a scalar (rank 0) of type typ.
func scalarInput(n *ops.Node, i int, name string, typ ops.DataType) (*ops.Tensor, error) {
	t, err := n.RequireInput(i)
	if err != nil {
		return nil, err
	}
	label := ioLabel("input", i, name)
	if err := requireType(t, label, typ); err != nil {
		return nil, err
	}
	if t.Rank() != 0 {
		return nil, fmt.Errorf("%s: shape %v, need a scalar", label, t.Shape)
	}
	return t, nil
}

// Prepare validates the node with TFLite's checks and sets the output
// shapes.
func (k *NonMaxSuppression) Prepare(n *ops.Node) error {
	*k = NonMaxSuppression{}
	switch len(n.Inputs) {
	case 5:
	case 6:
		k.soft = true
	default:
		return fmt.Errorf("has %d inputs, needs 5 (hard NMS) or 6 (soft NMS)", len(n.Inputs))
	}
	outs := 2
	if k.soft {
		outs = 3
	}
	if len(n.Outputs) != outs {
		return fmt.Errorf("has %d outputs, needs %d with %d inputs", len(n.Outputs), outs, len(n.Inputs))
	}
	boxes, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if err := requireType(boxes, "input 0 (boxes)", ops.Float32); err != nil {
		return err
	}
	if boxes.Rank() != 2 || boxes.Shape[1] != 4 {
		return fmt.Errorf("input 0 (boxes): shape %v, need [num_boxes, 4]", boxes.Shape)
	}
	k.numBoxes = boxes.Shape[0]
	scores, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	if err := requireType(scores, "input 1 (scores)", ops.Float32); err != nil {
		return err
	}
	if scores.Rank() != 1 || scores.Shape[0] != k.numBoxes {
		return fmt.Errorf("input 1 (scores): shape %v, need [%d] (one per box)", scores.Shape, k.numBoxes)
	}
	maxT, err := scalarInput(n, 2, "max_output_size", ops.Int32)
	if err != nil {
		return err
	}
	if !maxT.IsConstant() {
		return ops.NotConstant("input 2 (max_output_size)")
	}
	k.maxOut = int(maxT.Int32s()[0])
	if k.maxOut < 0 {
		return fmt.Errorf("input 2 (max_output_size): %d is negative", k.maxOut)
	}
	if _, err := scalarInput(n, 3, "iou_threshold", ops.Float32); err != nil {
		return err
	}
	if _, err := scalarInput(n, 4, "score_threshold", ops.Float32); err != nil {
		return err
	}
	if k.soft {
		if _, err := scalarInput(n, 5, "soft_nms_sigma", ops.Float32); err != nil {
			return err
		}
	}
	types := []ops.DataType{ops.Int32, ops.Int32}
	if k.soft {
		types = []ops.DataType{ops.Int32, ops.Float32, ops.Int32}
	}
	for i, typ := range types {
		o := n.Output(i)
		if o == nil {
			return fmt.Errorf("output %d is missing", i)
		}
		if err := requireType(o, ioLabel("output", i, ""), typ); err != nil {
			return err
		}
		if i == len(types)-1 {
			o.Shape = []int{}
		} else {
			o.Shape = []int{k.maxOut}
		}
	}
	k.heap = make([]nmsCandidate, 0, k.numBoxes)
	k.prepared = true
	return nil
}

// Eval selects the boxes.
func (k *NonMaxSuppression) Eval(n *ops.Node) error {
	if !k.prepared || len(n.Inputs) < 5 || len(n.Outputs) < 2 {
		return errors.New("NON_MAX_SUPPRESSION: Eval before a successful Prepare")
	}
	if err := checkData(n.Inputs...); err != nil {
		return err
	}
	if err := checkData(n.Outputs...); err != nil {
		return err
	}
	boxes, scores := n.Inputs[0].Float32s()[:4*k.numBoxes], n.Inputs[1].Float32s()[:k.numBoxes]
	iouThr, scoreThr := n.Inputs[3].Float32s()[0], n.Inputs[4].Float32s()[0]
	var sigma float32
	var selScores []float32
	numOut := n.Outputs[1]
	if k.soft {
		sigma = n.Inputs[5].Float32s()[0]
		if sigma < 0 {
			return fmt.Errorf("input 5 (soft_nms_sigma): %g is negative", sigma)
		}
		selScores = n.Outputs[1].Float32s()[:k.maxOut]
		numOut = n.Outputs[2]
	}
	sel := n.Outputs[0].Int32s()[:k.maxOut]

	h := k.heap[:0]
	for i, s := range scores {
		if s > scoreThr {
			h = append(h, nmsCandidate{index: int32(i), score: s})
			heapPush(h, nmsLess)
		}
	}
	num := 0
	outputs := min(len(h), k.maxOut)
	// scale is a float computed from a double, as the C++ stores it.
	var scale float32
	if sigma > 0 {
		scale = float32(-0.5 / float64(sigma))
	}
	for num < outputs && len(h) > 0 {
		c := h[0]
		heapPop(h, nmsLess)
		h = h[:len(h)-1]
		orig := c.score
		hard := false
		for j := num - 1; j >= int(c.suppressBegin); j-- {
			iou := boxIoU(boxes, int(c.index), int(sel[j]))
			if iou >= iouThr {
				hard = true
				break
			}
			if sigma > 0 {
				c.score *= float32(math.Exp(float64(scale * iou * iou)))
			}
			if c.score <= scoreThr {
				break
			}
		}
		c.suppressBegin = int32(num)
		if hard {
			continue
		}
		if c.score == orig {
			sel[num] = c.index
			if selScores != nil {
				selScores[num] = c.score
			}
			num++
		}
		if c.score > scoreThr {
			h = append(h, c)
			heapPush(h, nmsLess)
		}
	}
	clear(sel[num:])
	if selScores != nil {
		clear(selScores[num:])
	}
	numOut.Int32s()[0] = int32(num)
	return nil
}

// boxIoU is reference_ops::ComputeIntersectionOverUnion: the corners of
// each box taken in either order, 0 when either box has no area. std::min
// and std::max are spelled out (stdMin, stdMax) because Go's min and max
// treat NaN and signed zeros differently.
func boxIoU(boxes []float32, i, j int) float32 {
	bi, bj := boxes[4*i:4*i+4], boxes[4*j:4*j+4]
	iy0, iy1 := stdMin(bi[0], bi[2]), stdMax(bi[0], bi[2])
	ix0, ix1 := stdMin(bi[1], bi[3]), stdMax(bi[1], bi[3])
	jy0, jy1 := stdMin(bj[0], bj[2]), stdMax(bj[0], bj[2])
	jx0, jx1 := stdMin(bj[1], bj[3]), stdMax(bj[1], bj[3])
	// The conversions keep the products from being fused into the sums.
	areaI := float32((iy1 - iy0) * (ix1 - ix0))
	areaJ := float32((jy1 - jy0) * (jx1 - jx0))
	if areaI <= 0 || areaJ <= 0 {
		return 0
	}
	inter := float32(stdMax(stdMin(iy1, jy1)-stdMax(iy0, jy0), 0) * stdMax(stdMin(ix1, jx1)-stdMax(ix0, jx0), 0))
	return inter / (areaI + areaJ - inter)
}

// stdMin is C++'s std::min(a, b): b when b < a, else a.
func stdMin(a, b float32) float32 {
	if b < a {
		return b
	}
	return a
}

// stdMax is C++'s std::max(a, b): b when a < b, else a.
func stdMax(a, b float32) float32 {
	if a < b {
		return b
	}
	return a
}
