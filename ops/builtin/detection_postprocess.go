package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// DetectionPostProcessName is the custom operator name of TFLite's SSD
// detection post-processing (detection_postprocess.cc), which TFLite's
// BuiltinOpResolver registers.
const DetectionPostProcessName = "TFLite_Detection_PostProcess"

// DetectionPostProcess is the kernel of TFLite's
// TFLite_Detection_PostProcess custom operator, the last step of the
// TensorFlow Object Detection API's SSD models: it decodes box encodings
// against anchors and keeps the best non-overlapping detections.
//
// Inputs: 0 box_encodings [1, num_boxes, ≥4] (y, x, h, w per box; extra
// values, such as keypoints, ignored), 1 class_predictions [1, num_boxes,
// num_classes(+1 with a background class first)], 2 anchors [num_boxes, 4]
// (y, x, h, w centre-size). Box encodings and class predictions are each
// float32 or uint8 (dequantised with their tensor's scale and zero
// point); uint8 box encodings need uint8 anchors, float32 ones float32
// anchors (TFLite reads the anchors with the box encodings' type). TFLite
// refuses other types (int8 among them) at Eval; this kernel at Prepare.
//
// Outputs, float32: 0 detection_boxes [1, N, 4] (ymin, xmin, ymax, xmax),
// 1 detection_classes [1, N] (class index, background excluded), 2
// detection_scores [1, N], 3 num_detections [1], with N = max_detections ·
// max_classes_per_detection. Entries past the detections found are 0
// (TFLite leaves them as the arena holds them; in a fresh arena that is
// 0).
//
// Options (custom_options, a FlexBuffer map, read as TFLite's Init reads
// them): max_detections, max_classes_per_detection, detections_per_class
// (100 when absent), use_regular_nms (false when absent),
// nms_score_threshold, nms_iou_threshold (must lie in (0, 1]),
// num_classes, y_scale, x_scale, h_scale, w_scale.
//
// Decoding is TFLite's, in float64 with float32 results:
//
//	ycenter = y/y_scale·anchor.h + anchor.y     half_h = ½·exp(h/h_scale)·anchor.h
//	xcenter = x/x_scale·anchor.w + anchor.x     half_w = ½·exp(w/w_scale)·anchor.w
//
// and every decoded box must have ymin ≤ ymax and xmin ≤ xmax. Fast NMS
// (use_regular_nms false) ranks each box by its best class and runs one
// NMS over the boxes, reporting the box's top max_classes_per_detection
// classes; regular NMS runs one NMS per class (at most
// min(detections_per_class, max_detections) boxes each) and keeps the
// max_detections best results across classes. An NMS keeps boxes scoring
// ≥ nms_score_threshold, visits them by decreasing score (stable on
// ties), and drops every later box whose IoU with a kept one exceeds
// nms_iou_threshold. Orders among equal scores are exactly TFLite's (its
// std::partial_sort is libstdc++'s heap sort, see stdsort_common.go; its
// single-threaded path is the one reproduced, which is what a 1-thread
// TFLite and TFLite Micro compute).
type DetectionPostProcess struct {
	opts       detectionOptions
	numBoxes   int
	boxLen     int // values per box encoding (≥ 4)
	numClasses int // num_classes
	withBG     int // class_predictions' last dimension
	labelOff   int // 1 with a background class, else 0
	numOut     int // max_detections · max_classes_per_detection
	boxU8      bool
	scoreU8    bool
	boxZP      float32
	boxScale   float32
	ancZP      float32
	ancScale   float32
	scoreZP    int32
	scoreScale float32

	decoded     []float32 // num_boxes × (ymin, xmin, ymax, xmax)
	scores      []float32 // dequantised class predictions
	keepScores  []float32
	keepIdx     []int32
	order       []int32
	orderBuf    []int32
	active      []bool
	selected    []int32
	classScores []float32
	maxScores   []float32
	classIdx    []int32 // num_boxes × num_classes: per-box class ranks
	info        []boxInfo
	infoBuf     []boxInfo
	prepared    bool
}

// detectionOptions is the operator's custom_options, as TFLite's OpData.
type detectionOptions struct {
	MaxDetections, MaxClassesPerDetection, DetectionsPerClass int
	UseRegularNMS                                             bool
	ScoreThreshold, IoUThreshold                              float32
	NumClasses                                                int
	YScale, XScale, HScale, WScale                            float32
}

// boxInfo is one detection of the regular NMS: index = anchor·withBG +
// class + labelOff.
type boxInfo struct {
	index int32
	score float32
}

// NewDetectionPostProcess returns a TFLite_Detection_PostProcess kernel
// for one node.
func NewDetectionPostProcess() ops.Kernel { return &DetectionPostProcess{} }

func init() { registerCustom(DetectionPostProcessName, NewDetectionPostProcess) }

// decodeDetectionOptions reads the custom options as TFLite's Init does
// (AsInt32 truncates a wider integer, AsFloat narrows a double).
func decodeDetectionOptions(b []byte) (detectionOptions, error) {
	var o detectionOptions
	if len(b) == 0 {
		return o, errors.New("custom_options are missing (TFLite_Detection_PostProcess reads its parameters from a FlexBuffer map)")
	}
	m, err := flexbuffers.RootMap(b)
	if err != nil {
		return o, fmt.Errorf("custom_options: %v", err)
	}
	ints := []struct {
		key string
		dst *int
	}{{"max_detections", &o.MaxDetections}, {"max_classes_per_detection", &o.MaxClassesPerDetection}, {"num_classes", &o.NumClasses}}
	for _, f := range ints {
		v, err := m.Int(f.key)
		if err != nil {
			return o, fmt.Errorf("custom_options: %v", err)
		}
		*f.dst = int(int32(v))
	}
	o.DetectionsPerClass = 100
	if has, err := m.Has("detections_per_class"); err != nil {
		return o, fmt.Errorf("custom_options: %v", err)
	} else if has {
		v, err := m.Int("detections_per_class")
		if err != nil {
			return o, fmt.Errorf("custom_options: %v", err)
		}
		o.DetectionsPerClass = int(int32(v))
	}
	if o.UseRegularNMS, err = m.Bool("use_regular_nms"); err != nil {
		return o, fmt.Errorf("custom_options: %v", err)
	}
	floats := []struct {
		key string
		dst *float32
	}{{"nms_score_threshold", &o.ScoreThreshold}, {"nms_iou_threshold", &o.IoUThreshold},
		{"y_scale", &o.YScale}, {"x_scale", &o.XScale}, {"h_scale", &o.HScale}, {"w_scale", &o.WScale}}
	for _, f := range floats {
		v, err := m.Float(f.key)
		if err != nil {
			return o, fmt.Errorf("custom_options: %v", err)
		}
		*f.dst = float32(v)
	}
	return o, nil
}

// Prepare decodes the options, validates the node (TFLite's checks, most of
// which its kernel makes at Eval), sets the output shapes and allocates the
// working memory.
func (k *DetectionPostProcess) Prepare(n *ops.Node) error {
	*k = DetectionPostProcess{}
	o, err := decodeDetectionOptions(n.CustomOptions)
	if err != nil {
		return err
	}
	k.opts = o
	if err := n.CheckIO(3, 3, 4); err != nil {
		return err
	}
	boxes, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	cls, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	anchors, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	if boxes.Rank() != 3 || boxes.Shape[0] != 1 || boxes.Shape[2] < 4 {
		return fmt.Errorf("input 0 (box_encodings): shape %v, need [1, num_boxes, ≥4]", boxes.Shape)
	}
	k.numBoxes, k.boxLen = boxes.Shape[1], boxes.Shape[2]
	if cls.Rank() != 3 || cls.Shape[0] != 1 || cls.Shape[1] != k.numBoxes {
		return fmt.Errorf("input 1 (class_predictions): shape %v, need [1, %d, num_classes]", cls.Shape, k.numBoxes)
	}
	if anchors.Rank() != 2 || anchors.Shape[0] < k.numBoxes || anchors.Shape[1] != 4 {
		return fmt.Errorf("input 2 (anchors): shape %v, need [%d, 4]", anchors.Shape, k.numBoxes)
	}
	for i, t := range []*ops.Tensor{boxes, cls, anchors} {
		if _, err := numElementsChecked(t, ioLabel("input", i, "")); err != nil {
			return err
		}
	}
	k.withBG, k.numClasses = cls.Shape[2], o.NumClasses
	if k.numClasses < 1 || k.withBG-k.numClasses > 1 || k.withBG < k.numClasses {
		return fmt.Errorf("options: num_classes %d with class_predictions of %d classes (need num_classes ≥ 1 and equal to it or one less, with a background class)", k.numClasses, k.withBG)
	}
	k.labelOff = k.withBG - k.numClasses
	switch boxes.Type {
	case ops.Float32:
		if err := requireType(anchors, "input 2 (anchors)", ops.Float32); err != nil {
			return fmt.Errorf("%v (float32 box encodings need float32 anchors)", err)
		}
	case ops.Uint8:
		if err := requireType(anchors, "input 2 (anchors)", ops.Uint8); err != nil {
			return fmt.Errorf("%v (uint8 box encodings need uint8 anchors)", err)
		}
		k.boxU8 = true
		s, z, err := perTensorQuant(boxes, "input 0 (box_encodings)")
		if err != nil {
			return err
		}
		k.boxScale, k.boxZP = s, float32(z)
		if s, z, err = perTensorQuant(anchors, "input 2 (anchors)"); err != nil {
			return err
		}
		k.ancScale, k.ancZP = s, float32(z)
	default:
		return fmt.Errorf("input 0 (box_encodings): type %s not supported (TFLite's kernel takes float32 and uint8)", boxes.Type)
	}
	switch cls.Type {
	case ops.Float32:
	case ops.Uint8:
		k.scoreU8 = true
		s, z, err := perTensorQuant(cls, "input 1 (class_predictions)")
		if err != nil {
			return err
		}
		k.scoreScale, k.scoreZP = s, z
	default:
		return fmt.Errorf("input 1 (class_predictions): type %s not supported (TFLite's kernel takes float32 and uint8)", cls.Type)
	}
	if o.MaxDetections < 0 {
		return fmt.Errorf("options: max_detections %d is negative", o.MaxDetections)
	}
	// TFLite's fast NMS refuses 0; its regular NMS writes max_detections
	// entries into outputs sized by the product, so 0 would overrun them.
	if o.MaxClassesPerDetection < 1 {
		return fmt.Errorf("options: max_classes_per_detection %d, need at least 1", o.MaxClassesPerDetection)
	}
	if o.UseRegularNMS && min(o.DetectionsPerClass, o.MaxDetections) <= 0 {
		return fmt.Errorf("options: regular NMS needs min(detections_per_class %d, max_detections %d) > 0", o.DetectionsPerClass, o.MaxDetections)
	}
	if !(o.IoUThreshold > 0 && o.IoUThreshold <= 1) {
		return fmt.Errorf("options: nms_iou_threshold %g, need a value in (0, 1]", o.IoUThreshold)
	}
	if o.MaxDetections > math.MaxInt32/o.MaxClassesPerDetection {
		return fmt.Errorf("options: max_detections %d × max_classes_per_detection %d overflows", o.MaxDetections, o.MaxClassesPerDetection)
	}
	k.numOut = o.MaxDetections * o.MaxClassesPerDetection
	shapes := [][]int{{1, k.numOut, 4}, {1, k.numOut}, {1, k.numOut}, {1}}
	for i, s := range shapes {
		out := n.Output(i)
		if out == nil {
			return fmt.Errorf("output %d is missing", i)
		}
		if err := requireType(out, ioLabel("output", i, ""), ops.Float32); err != nil {
			return err
		}
		if _, err := ops.ShapeElements(s, 4); err != nil {
			return fmt.Errorf("output %d: %v", i, err)
		}
		out.Shape = s
	}
	nb := k.numBoxes
	if _, err := ops.ShapeElements([]int{nb, k.numClasses}, 4); err != nil {
		return fmt.Errorf("input 1 (class_predictions): per-box class ranks: %v", err)
	}
	k.decoded = make([]float32, 4*nb)
	if k.scoreU8 {
		k.scores = make([]float32, nb*k.withBG)
	}
	k.keepScores = make([]float32, nb)
	k.keepIdx = make([]int32, nb)
	k.order = make([]int32, nb)
	k.orderBuf = make([]int32, nb)
	k.active = make([]bool, nb)
	k.selected = make([]int32, 0, nb)
	if o.UseRegularNMS {
		k.classScores = make([]float32, nb)
		// The merge holds at most max_detections results, never more
		// than all the (box, class) pairs, plus one class's selection
		// (at most min(detections_per_class, num_boxes)). Sizing by
		// what can be found, not by the option, keeps a huge
		// max_detections from costing memory here (the outputs it sizes
		// are bounded by the interpreter's arena limit).
		per := min(o.DetectionsPerClass, o.MaxDetections, nb)
		size := min(o.MaxDetections, nb*k.numClasses) + per
		k.info = make([]boxInfo, size)
		k.infoBuf = make([]boxInfo, size)
	} else {
		k.maxScores = make([]float32, nb)
		k.classIdx = make([]int32, nb*k.numClasses)
	}
	k.prepared = true
	return nil
}

// Eval decodes the boxes and runs the NMS.
func (k *DetectionPostProcess) Eval(n *ops.Node) error {
	if !k.prepared || len(n.Inputs) != 3 || len(n.Outputs) != 4 {
		return errors.New("TFLite_Detection_PostProcess: Eval before a successful Prepare")
	}
	if err := checkData(n.Inputs...); err != nil {
		return err
	}
	if err := checkData(n.Outputs...); err != nil {
		return err
	}
	k.decode(n.Inputs[0], n.Inputs[2])
	scores := k.scores
	if k.scoreU8 {
		for i, v := range n.Inputs[1].Uint8s()[:len(scores)] {
			scores[i] = float32(float64(k.scoreScale) * float64(int32(v)-k.scoreZP))
		}
	} else {
		scores = n.Inputs[1].Float32s()[:k.numBoxes*k.withBG]
	}
	outBoxes := n.Outputs[0].Float32s()[:4*k.numOut]
	outClasses := n.Outputs[1].Float32s()[:k.numOut]
	outScores := n.Outputs[2].Float32s()[:k.numOut]
	clear(outBoxes)
	clear(outClasses)
	clear(outScores)
	var found int
	var err error
	if k.opts.UseRegularNMS {
		found, err = k.regularNMS(scores, outBoxes, outClasses, outScores)
	} else {
		found, err = k.fastNMS(scores, outBoxes, outClasses, outScores)
	}
	if err != nil {
		return err
	}
	n.Outputs[3].Float32s()[0] = float32(found)
	return nil
}

// decode fills k.decoded with the corner boxes (DecodeCenterSizeBoxes).
func (k *DetectionPostProcess) decode(boxesT, anchorsT *ops.Tensor) {
	var b, a [4]float32 // y, x, h, w
	sy, sx := float64(k.opts.YScale), float64(k.opts.XScale)
	sh, sw := float64(k.opts.HScale), float64(k.opts.WScale)
	for i := 0; i < k.numBoxes; i++ {
		if k.boxU8 {
			bq, aq := boxesT.Uint8s()[i*k.boxLen:], anchorsT.Uint8s()[4*i:]
			for c := 0; c < 4; c++ {
				b[c] = float32((float32(bq[c]) - k.boxZP) * k.boxScale)
				a[c] = float32((float32(aq[c]) - k.ancZP) * k.ancScale)
			}
		} else {
			copy(b[:], boxesT.Float32s()[i*k.boxLen:])
			copy(a[:], anchorsT.Float32s()[4*i:])
		}
		// The float64 conversions of the products keep them from being
		// fused with the additions.
		yc := float32(float64(float64(b[0])/sy*float64(a[2])) + float64(a[0]))
		xc := float32(float64(float64(b[1])/sx*float64(a[3])) + float64(a[1]))
		hh := float32(0.5 * math.Exp(float64(b[2])/sh) * float64(a[2]))
		hw := float32(0.5 * math.Exp(float64(b[3])/sw) * float64(a[3]))
		d := k.decoded[4*i : 4*i+4]
		d[0], d[1], d[2], d[3] = yc-hh, xc-hw, yc+hh, xc+hw
	}
}

// errInvalidBox is TFLite's ValidateBoxes failure.
var errInvalidBox = errors.New("TFLite_Detection_PostProcess: a decoded box has ymin > ymax or xmin > xmax")

// nms is NonMaxSuppressionSingleClassHelper: it returns in k.selected the
// indices of the boxes kept from scores (one per box), at most maxDet.
func (k *DetectionPostProcess) nms(scores []float32, maxDet int) ([]int32, error) {
	for i := 0; i < k.numBoxes; i++ {
		d := k.decoded[4*i : 4*i+4]
		if d[0] > d[2] || d[1] > d[3] {
			return nil, errInvalidBox
		}
	}
	kept := 0
	for i, s := range scores[:k.numBoxes] {
		if s >= k.opts.ScoreThreshold {
			k.keepScores[kept], k.keepIdx[kept] = s, int32(i)
			kept++
		}
	}
	order := k.order[:kept]
	for i := range order {
		order[i] = int32(i)
	}
	keep := k.keepScores
	stableSort(order, k.orderBuf, func(a, b int32) bool { return keep[a] > keep[b] })
	outSize := min(kept, maxDet)
	sel := k.selected[:0]
	active := k.active[:kept]
	for i := range active {
		active[i] = true
	}
	numActive := kept
	for i := 0; i < kept; i++ {
		if numActive == 0 || len(sel) >= outSize {
			break
		}
		if !active[i] {
			continue
		}
		bi := int(k.keepIdx[order[i]])
		sel = append(sel, int32(bi))
		active[i] = false
		numActive--
		for j := i + 1; j < kept; j++ {
			if active[j] && detectionIoU(k.decoded, bi, int(k.keepIdx[order[j]])) > k.opts.IoUThreshold {
				active[j] = false
				numActive--
			}
		}
	}
	return sel, nil
}

// detectionIoU is the kernel's ComputeIntersectionOverUnion over
// (ymin, xmin, ymax, xmax) boxes: 0 when either box has no area.
func detectionIoU(boxes []float32, i, j int) float32 {
	bi, bj := boxes[4*i:4*i+4], boxes[4*j:4*j+4]
	// The conversions keep the products from being fused into the sums.
	areaI := float32((bi[2] - bi[0]) * (bi[3] - bi[1]))
	areaJ := float32((bj[2] - bj[0]) * (bj[3] - bj[1]))
	if areaI <= 0 || areaJ <= 0 {
		return 0
	}
	y0, x0 := stdMax(bi[0], bj[0]), stdMax(bi[1], bj[1])
	y1, x1 := stdMin(bi[2], bj[2]), stdMin(bi[3], bj[3])
	inter := float32(stdMax(y1-y0, 0) * stdMax(x1-x0, 0))
	return inter / (areaI + areaJ - inter)
}

// fastNMS is NonMaxSuppressionMultiClassFastHelper.
func (k *DetectionPostProcess) fastNMS(scores, outBoxes, outClasses, outScores []float32) (int, error) {
	nc, perAnchor := k.numClasses, min(k.opts.MaxClassesPerDetection, k.numClasses)
	for row := 0; row < k.numBoxes; row++ {
		s := scores[row*k.withBG+k.labelOff : row*k.withBG+k.labelOff+nc]
		idx := k.classIdx[row*nc : (row+1)*nc]
		if perAnchor == 1 {
			idx[0] = int32(argMaxFirst(s))
		} else {
			for i := range idx {
				idx[i] = int32(i)
			}
			partialSort(idx, perAnchor, func(a, b int32) bool { return s[a] > s[b] })
		}
		k.maxScores[row] = s[idx[0]]
	}
	sel, err := k.nms(k.maxScores, k.opts.MaxDetections)
	if err != nil {
		return 0, err
	}
	for out, b := range sel {
		s := scores[int(b)*k.withBG+k.labelOff:]
		idx := k.classIdx[int(b)*nc:]
		for c := 0; c < perAnchor; c++ {
			o := k.opts.MaxClassesPerDetection*out + c
			copy(outBoxes[4*o:4*o+4], k.decoded[4*int(b):])
			outClasses[o] = float32(idx[c])
			outScores[o] = s[idx[c]]
		}
	}
	return len(sel), nil
}

// argMaxFirst is TFLite's ArgMaxVector for float on machines without NEON
// (the reference build): the first index of the largest value, NaNs
// skipped, 0 when all are NaN.
func argMaxFirst(v []float32) int {
	best, bi := v[0], 0
	for i := 1; i < len(v); i++ {
		if x := v[i]; x == x && (best != best || x > best) {
			best, bi = x, i
		}
	}
	if best != best {
		return 0
	}
	return bi
}

// regularNMS is NonMaxSuppressionMultiClassRegularHelper on one thread.
func (k *DetectionPostProcess) regularNMS(scores, outBoxes, outClasses, outScores []float32) (int, error) {
	maxDet := k.opts.MaxDetections
	per := min(k.opts.DetectionsPerClass, maxDet)
	size := 0
	info := k.info
	for col := 0; col < k.numClasses; col++ {
		for row := 0; row < k.numBoxes; row++ {
			k.classScores[row] = scores[row*k.withBG+col+k.labelOff]
		}
		sel, err := k.nms(k.classScores, per)
		if err != nil {
			return 0, err
		}
		if len(sel) == 0 {
			continue
		}
		for i, b := range sel {
			info[size+i] = boxInfo{index: b*int32(k.withBG) + int32(col+k.labelOff), score: k.classScores[b]}
		}
		mergeRuns(info[:size+len(sel)], size, k.infoBuf, func(a, b boxInfo) bool { return a.score > b.score })
		size = min(size+len(sel), maxDet)
	}
	for i := 0; i < size; i++ {
		anchor := int(info[i].index) / k.withBG
		outClasses[i] = float32(int(info[i].index) - anchor*k.withBG - k.labelOff)
		outScores[i] = info[i].score
		copy(outBoxes[4*i:4*i+4], k.decoded[4*anchor:])
	}
	return size, nil
}
