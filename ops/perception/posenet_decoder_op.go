package perception

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// PosenetDecoderOp: Coral's custom operator decoding PoseNet's outputs
// into poses (libcoral's coral/pose_estimation/posenet_decoder_op.cc and
// posenet_decoder.cc, the successor of edgetpu's src/cpp/posenet, whose
// one difference in decoding is fixed there: the first backward edge
// reads the backward mid-range offsets). The Coral PoseNet and BodyPix
// "_decoder" models end with it.
//
// Inputs, each uint8 (dequantised with its scale and zero point) or
// float32, of shape [1, H, W, C]: 0 heatmaps (17 keypoint logits), 1
// short-range offsets (34: 17 y then 17 x, in pixels), 2 mid-range offsets
// (64: forward y, forward x, backward y, backward x of the 16 edges, in
// pixels), and for BodyPix 3 long-range offsets (34, in pixels; H = W =
// 33, the mask size upstream fixes). Outputs, float32: 0 keypoints
// [1, max_detections, 17, 2] (y, x in input pixels), 1 keypoint scores
// [1, max_detections, 17], 2 pose scores [1, max_detections], 3 the pose
// count [1]; with input 3, output 4 instance masks [1, max_detections,
// 33, 33] (1 where a cell's long-range embedding is nearest that pose).
// Entries past the count are zero (upstream leaves them unset).
//
// Options (a FlexBuffer map): max_detections (≥ 0), score_threshold (a
// probability), stride (> 0, the network's output stride; offsets are
// divided by it) and nms_radius (pixels).
//
// The decoding is upstream's: every heatmap cell whose logit is at least
// pnLogodds(score_threshold) and no smaller than any in its 3×3 window is a
// root candidate, refined by its short offset, in a max-heap on score;
// roots within nms_radius of the same keypoint of a pose already kept are
// skipped; a pose grows from its root along the keypoint tree in score
// order (mid-range offset, then five short-range refinements, bilinear
// sampling clamped to the grid); a pose whose mean keypoint probability
// is below score_threshold is dropped; then soft keypoint NMS rescores
// each pose without keypoints within nms_radius of a higher-scoring
// pose's, and poses are listed by that score while it is at least
// score_threshold. Ties follow libstdc++'s heap and sort (see
// libstdcxx_order.go). Float32 arithmetic in upstream's order (logodds in
// double, as its 1E-6 literal makes it). A NaN position, which upstream
// turns into an out-of-bounds read, samples the grid's first cell and
// yields NaN scores.
const PosenetDecoderOpName = "PosenetDecoderOp"

func init() {
	register(PosenetDecoderOpName, func() ops.Kernel { return &posenetDecoder{} })
}

const (
	pnKeypoints = 17
	pnEdges     = 16
	pnMaskSize  = 33 // BodyPix's instance masks are 33×33 upstream
	// pnMaxDetections bounds max_detections (upstream has no bound; its
	// outputs and scratch grow with it).
	pnMaxDetections = 1 << 20
	pnRefineSteps   = 5
	pnMaskRefine    = 2
)

// pnEdgeList is coral's kEdgeList: 16 forward (parent, child) edges, then
// the same 16 backward.
var pnEdgeList = [2 * pnEdges][2]int8{
	{0, 1}, {1, 3}, {0, 2}, {2, 4}, {0, 5}, {5, 7}, {7, 9}, {5, 11},
	{11, 13}, {13, 15}, {0, 6}, {6, 8}, {8, 10}, {6, 12}, {12, 14}, {14, 16},
	{1, 0}, {3, 1}, {2, 0}, {4, 2}, {5, 0}, {7, 5}, {9, 7}, {11, 5},
	{13, 11}, {15, 13}, {6, 0}, {8, 6}, {10, 8}, {12, 6}, {14, 12}, {16, 14},
}

// pnChild lists, per keypoint, its children and the edge reaching each, in
// edge order (coral's BuildAdjacencyList).
type pnChild struct{ child, edge int8 }

var pnAdjacency = func() (adj [pnKeypoints][]pnChild) {
	for k, e := range pnEdgeList {
		adj[e[0]] = append(adj[e[0]], pnChild{e[1], int8(k)})
	}
	return
}()

type pnPose struct {
	kp    [pnKeypoints][2]float32 // y, x
	score [pnKeypoints]float32
}

type posenetDecoder struct {
	maxDet    int
	threshold float32
	stride    int32
	nmsRadius float32
	h, w      int
	masks     bool
	mh, mw    int

	// Working memory, allocated at Prepare (Eval allocates nothing).
	heat, shorts, mids, longs []float32
	roots, queue              kpHeap
	poses                     []pnPose
	instScores                []float32
	order, kpOrder            []int32
	dists                     []float32
}

func decodePosenetOptions(b []byte) (maxDet int32, thr float32, stride int32, nms float32, err error) {
	m, err := fbMap(b)
	if err != nil {
		return
	}
	if maxDet, err = fbInt32(m, "max_detections"); err != nil {
		return
	}
	if thr, err = fbFloat32(m, "score_threshold"); err != nil {
		return
	}
	if stride, err = fbInt32(m, "stride"); err != nil {
		return
	}
	nms, err = fbFloat32(m, "nms_radius")
	return
}

func (k *posenetDecoder) Prepare(n *ops.Node) error {
	*k = posenetDecoder{}
	if n.Version != 1 {
		return fmt.Errorf("version %d is not supported (1 is)", n.Version)
	}
	maxDet, thr, stride, nms, err := decodePosenetOptions(n.CustomOptions)
	if err != nil {
		return err
	}
	if maxDet < 0 || maxDet > pnMaxDetections {
		return fmt.Errorf("custom_options: max_detections %d outside [0, %d]", maxDet, pnMaxDetections)
	}
	if stride <= 0 {
		return fmt.Errorf("custom_options: stride %d must be positive", stride)
	}
	k.maxDet, k.threshold, k.stride, k.nmsRadius = int(maxDet), thr, stride, nms
	switch {
	case len(n.Inputs) == 3 && len(n.Outputs) == 4:
	case len(n.Inputs) == 4 && len(n.Outputs) == 5:
		k.masks = true
	default:
		return fmt.Errorf("has %d inputs and %d outputs, needs 3 and 4 (poses) or 4 and 5 (poses and instance masks)", len(n.Inputs), len(n.Outputs))
	}
	chans := []int{pnKeypoints, 2 * pnKeypoints, 4 * pnEdges, 2 * pnKeypoints}
	names := []string{"heatmaps", "short offsets", "mid offsets", "long offsets"}
	for i := range n.Inputs {
		t, err := n.RequireInput(i)
		if err != nil {
			return err
		}
		if t.Type != ops.Uint8 && t.Type != ops.Float32 {
			return fmt.Errorf("input %d (%s, %s) must be uint8 or float32", i, names[i], t)
		}
		if t.Rank() != 4 || t.Shape[0] != 1 || t.Shape[3] != chans[i] {
			return fmt.Errorf("input %d (%s, %s): needs shape [1, H, W, %d]", i, names[i], t, chans[i])
		}
		if t.Type == ops.Uint8 && (t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1) {
			return fmt.Errorf("input %d (%s, %s): a uint8 input needs per-tensor quantisation", i, names[i], t)
		}
	}
	heat := n.Inputs[0]
	k.h, k.w = heat.Shape[1], heat.Shape[2]
	for i := 1; i < 3; i++ {
		if t := n.Inputs[i]; t.Shape[1] != k.h || t.Shape[2] != k.w {
			return fmt.Errorf("input %d (%s, %s): its grid must be input 0's, %d×%d", i, names[i], t, k.h, k.w)
		}
	}
	if k.masks {
		t := n.Inputs[3]
		k.mh, k.mw = t.Shape[1], t.Shape[2]
		if k.mh != pnMaskSize || k.mw != pnMaskSize {
			return fmt.Errorf("input 3 (%s, %s): needs a %d×%d grid (the instance masks' size)", names[3], t, pnMaskSize, pnMaskSize)
		}
	}
	for i, out := range n.Outputs {
		if out.Type != ops.Float32 {
			return fmt.Errorf("output %d (%s) must be float32", i, out)
		}
	}
	md := k.maxDet
	n.Outputs[0].Shape = []int{1, md, pnKeypoints, 2}
	n.Outputs[1].Shape = []int{1, md, pnKeypoints}
	n.Outputs[2].Shape = []int{1, md}
	n.Outputs[3].Shape = []int{1}
	if k.masks {
		n.Outputs[4].Shape = []int{1, md, pnMaskSize, pnMaskSize}
	}

	// Working memory: the dequantised inputs, the root heap (at most one
	// candidate per cell and keypoint), the pose under construction and
	// the kept poses (no more than there are candidates).
	cells := k.h * k.w
	if k.heat, err = ops.Alloc[float32](n, heat.NumElements(), "PosenetDecoderOp heatmaps"); err != nil {
		return err
	}
	if k.shorts, err = ops.Alloc[float32](n, n.Inputs[1].NumElements(), "PosenetDecoderOp short offsets"); err != nil {
		return err
	}
	if k.mids, err = ops.Alloc[float32](n, n.Inputs[2].NumElements(), "PosenetDecoderOp mid offsets"); err != nil {
		return err
	}
	if k.masks {
		if k.longs, err = ops.Alloc[float32](n, n.Inputs[3].NumElements(), "PosenetDecoderOp long offsets"); err != nil {
			return err
		}
	}
	cand := cells * pnKeypoints
	if k.roots, err = ops.Alloc[keypoint](n, cand, "PosenetDecoderOp root candidates"); err != nil {
		return err
	}
	k.roots = k.roots[:0]
	if k.queue, err = ops.Alloc[keypoint](n, 1+2*pnEdges, "PosenetDecoderOp keypoint queue"); err != nil {
		return err
	}
	k.queue = k.queue[:0]
	np := min(md, cand)
	if k.poses, err = ops.Alloc[pnPose](n, np+1, "PosenetDecoderOp poses"); err != nil {
		return err
	}
	if k.instScores, err = ops.Alloc[float32](n, np, "PosenetDecoderOp pose scores"); err != nil {
		return err
	}
	if k.order, err = ops.Alloc[int32](n, np, "PosenetDecoderOp pose order"); err != nil {
		return err
	}
	if k.dists, err = ops.Alloc[float32](n, np, "PosenetDecoderOp distances"); err != nil {
		return err
	}
	k.kpOrder = make([]int32, pnKeypoints)
	return nil
}

// pnDequantize writes src's values as float32 times extra, as coral's
// DequantizeTensor: (q − zero_point)·(scale·extra) for uint8, x·extra
// for float32, each in float32.
func pnDequantize(src *ops.Tensor, dst []float32, extra float32) {
	if src.Type == ops.Uint8 {
		zp := float32(src.ZeroPoint())
		scale := src.Scale() * extra
		for i, q := range src.Data[:len(dst)] {
			dst[i] = (float32(q) - zp) * scale
		}
		return
	}
	for i, x := range src.Float32s() {
		dst[i] = x * extra
	}
}

func pnClamp(v, lo, hi float32) float32 {
	if v < lo {
		return lo
	}
	if hi < v {
		return hi
	}
	return v
}

// pnLinear is coral's BuildLinearInterpolation: the cells around x clamped
// to [0, n−1], and the weight x − floor (of the clamped floor).
func pnLinear(x float32, n int) (lo, hi int, lerp float32) {
	p := pnClamp(x, 0, float32(n)-1)
	if p != p { // NaN: upstream converts it to an index out of bounds
		return 0, 0, x
	}
	lo = int(float32(math.Floor(float64(p))))
	hi = int(float32(math.Ceil(float64(p))))
	return lo, hi, x - float32(lo)
}

// pnSample is coral's SampleTensorAtMultipleChannels for channels c0 and
// c1 of a [h, w, ch] grid at (y, x).
func pnSample(t []float32, h, w, ch int, y, x float32, c0, c1 int) (float32, float32) {
	y0, y1, yl := pnLinear(y, h)
	x0, x1, xl := pnLinear(x, w)
	tl, tr := (y0*w+x0)*ch, (y0*w+x1)*ch
	bl, br := (y1*w+x0)*ch, (y1*w+x1)*ch
	one := func(c int) float32 {
		top := mulF32(1-xl, t[tl+c]) + mulF32(xl, t[tr+c])
		bot := mulF32(1-xl, t[bl+c]) + mulF32(xl, t[br+c])
		return mulF32(1-yl, top) + mulF32(yl, bot)
	}
	return one(c0), one(c1)
}

func pnSqDist(ay, ax, by, bx float32) float32 {
	dy := by - ay
	dx := bx - ax
	return mulF32(dy, dy) + mulF32(dx, dx)
}

func pnSigmoid(x float32) float32 {
	return 1 / (1 + float32(math.Exp(float64(-x))))
}

// pnLogodds is coral's Logodds: −log(1/(x + 1E-6) − 1), in double.
func pnLogodds(x float32) float32 {
	return float32(-math.Log(1.0/(float64(x)+1e-6) - 1.0))
}

func (k *posenetDecoder) Eval(n *ops.Node) error {
	inv := float32(1.0 / float64(k.stride))
	pnDequantize(n.Inputs[0], k.heat, 1)
	pnDequantize(n.Inputs[1], k.shorts, inv)
	pnDequantize(n.Inputs[2], k.mids, inv)
	kps, kpScores := n.Outputs[0].Float32s(), n.Outputs[1].Float32s()
	poseScores, count := n.Outputs[2].Float32s(), n.Outputs[3].Float32s()
	clear(kps)
	clear(kpScores)
	clear(poseScores)
	nms := k.nmsRadius / float32(k.stride)
	np := k.decodeAll(nms, kps, kpScores, poseScores)
	count[0] = float32(np)
	if k.masks {
		pnDequantize(n.Inputs[3], k.longs, inv)
		k.decodeMasks(kps, np, n.Outputs[4].Float32s())
	}
	return nil
}

// buildRoots is coral's BuildKeypointWithScoreQueue with a local maximum
// radius of 1.
func (k *posenetDecoder) buildRoots(minLogit float32) {
	h, w := k.h, k.w
	k.roots = k.roots[:0]
	si := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			oi := 2 * si
			for j := 0; j < pnKeypoints; j++ {
				score := k.heat[si]
				if score >= minLogit && k.localMax(y, x, j, score) {
					dy := k.shorts[oi]
					dx := k.shorts[oi+pnKeypoints]
					ry := pnClamp(float32(y)+dy, 0, float32(h)-1)
					rx := pnClamp(float32(x)+dx, 0, float32(w)-1)
					k.roots.push(keypoint{ry, rx, int32(j), score})
				}
				si++
				oi++
			}
		}
	}
}

func (k *posenetDecoder) localMax(y, x, j int, score float32) bool {
	y0, y1 := max(y-1, 0), min(y+2, k.h)
	x0, x1 := max(x-1, 0), min(x+2, k.w)
	for yc := y0; yc < y1; yc++ {
		for xc := x0; xc < x1; xc++ {
			if k.heat[(yc*k.w+xc)*pnKeypoints+j] > score {
				return false
			}
		}
	}
	return true
}

// displaced is coral's FindDisplacedPosition.
func (k *posenetDecoder) displaced(y, x float32, edge, target int) (float32, float32) {
	h, w := k.h, k.w
	oy, ox := pnSample(k.mids, h, w, 4*pnEdges, y, x, edge, pnEdges+edge)
	y = pnClamp(y+oy, 0, float32(h)-1)
	x = pnClamp(x+ox, 0, float32(w)-1)
	for i := 0; i < pnRefineSteps; i++ {
		oy, ox = pnSample(k.shorts, h, w, 2*pnKeypoints, y, x, target, pnKeypoints+target)
		y = pnClamp(y+oy, 0, float32(h)-1)
		x = pnClamp(x+ox, 0, float32(w)-1)
	}
	return y, x
}

// backtrack is coral's BacktrackDecodePose.
func (k *posenetDecoder) backtrack(root keypoint, p *pnPose) {
	h, w := k.h, k.w
	rs, _ := pnSample(k.heat, h, w, pnKeypoints, root.y, root.x, int(root.id), int(root.id))
	k.queue = k.queue[:0]
	k.queue.push(keypoint{root.y, root.x, root.id, rs})
	var decoded [pnKeypoints]bool
	for len(k.queue) > 0 {
		cur := k.queue.pop()
		if decoded[cur.id] {
			continue
		}
		p.kp[cur.id] = [2]float32{cur.y, cur.x}
		p.score[cur.id] = cur.score
		decoded[cur.id] = true
		for _, c := range pnAdjacency[cur.id] {
			child, edge := int(c.child), int(c.edge)
			if decoded[child] {
				continue
			}
			// The mid offsets hold 4 blocks of 16 edges (forward y, forward
			// x, backward y, backward x); a backward edge's y block starts
			// 16 later than its id.
			if edge >= pnEdges {
				edge += pnEdges
			}
			cy, cx := k.displaced(cur.y, cur.x, edge, child)
			cs, _ := pnSample(k.heat, h, w, pnKeypoints, cy, cx, child, child)
			k.queue.push(keypoint{cy, cx, int32(child), cs})
		}
	}
}

// meanTopScore sums a pose's keypoint scores in decreasing order (all 17
// are its top k), skipping the occluded, and divides by 17.
func (k *posenetDecoder) meanTopScore(p *pnPose, occluded *[pnKeypoints]bool) float32 {
	s := argSorter{scores: p.score[:], idx: k.kpOrder}
	s.sort()
	var total float32
	for _, i := range k.kpOrder {
		if occluded == nil || !occluded[i] {
			total += p.score[i]
		}
	}
	return total / pnKeypoints
}

// decodeAll is coral's DecodeAllPoses; it returns the number of poses
// written.
func (k *posenetDecoder) decodeAll(nms float32, kps, kpScores, poseScores []float32) int {
	k.buildRoots(pnLogodds(k.threshold))
	sqNMS := mulF32(nms, nms)
	np := 0
	capacity := len(k.instScores)
	for np < k.maxDet && np < capacity && len(k.roots) > 0 {
		root := k.roots.pop()
		pass := true
		for i := 0; i < np; i++ {
			q := &k.poses[i].kp[root.id]
			if pnSqDist(root.y, root.x, q[0], q[1]) <= sqNMS {
				pass = false
				break
			}
		}
		if !pass {
			continue
		}
		p := &k.poses[np]
		for j := range p.kp {
			p.kp[j] = [2]float32{-1, -1}
			p.score[j] = -1e5
		}
		k.backtrack(root, p)
		for j := range p.score {
			p.score[j] = pnSigmoid(p.score[j])
		}
		inst := k.meanTopScore(p, nil)
		if inst >= k.threshold {
			k.instScores[np] = inst
			np++
		}
	}

	// Soft keypoint NMS over the poses in decreasing score order.
	scores := k.instScores[:np]
	order := argSorter{scores: scores, idx: k.order[:np]}
	order.sort()
	for i, cur := range order.idx {
		var occluded [pnKeypoints]bool
		pc := &k.poses[cur]
		for _, prev := range order.idx[:i] {
			pp := &k.poses[prev]
			for j := 0; j < pnKeypoints; j++ {
				if pnSqDist(pc.kp[j][0], pc.kp[j][1], pp.kp[j][0], pp.kp[j][1]) <= sqNMS {
					occluded[j] = true
				}
			}
		}
		scores[cur] = k.meanTopScore(pc, &occluded)
	}
	order.sort()

	out := 0
	stride := float32(k.stride)
	for _, idx := range order.idx {
		if scores[idx] < k.threshold {
			break
		}
		p := &k.poses[idx]
		for j := 0; j < pnKeypoints; j++ {
			kps[(out*pnKeypoints+j)*2] = p.kp[j][0] * stride
			kps[(out*pnKeypoints+j)*2+1] = p.kp[j][1] * stride
		}
		copy(kpScores[out*pnKeypoints:(out+1)*pnKeypoints], p.score[:])
		poseScores[out] = scores[idx]
		out++
	}
	return out
}

// decodeMasks is libcoral's DecodeInstanceMasks: each cell of the
// long-offset grid goes to the pose whose keypoints are nearest (summed
// squared distance, first on ties) the cell's embedding, each keypoint's
// found by following the long-range offsets three times. With no pose,
// upstream's empty std::min_element gives index 0: the first mask is then
// all ones (when max_detections allows one).
func (k *posenetDecoder) decodeMasks(kps []float32, np int, masks []float32) {
	clear(masks)
	h, w := k.mh, k.mw
	if k.maxDet == 0 {
		return
	}
	stride := float32(k.stride)
	var emb [pnKeypoints][2]float32
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for i := 0; i < pnKeypoints; i++ {
				fy, fx := float32(y), float32(x)
				for s := 0; s <= pnMaskRefine; s++ {
					oy, ox := pnSample(k.longs, h, w, 2*pnKeypoints, fy, fx, i, i+pnKeypoints)
					fy = pnClamp(fy+oy, 0, float32(h)-1)
					fx = pnClamp(fx+ox, 0, float32(w)-1)
				}
				emb[i] = [2]float32{fy * stride, fx * stride}
			}
			best := 0
			for p := 0; p < np; p++ {
				var d float32
				for i := 0; i < pnKeypoints; i++ {
					o := (p*pnKeypoints + i) * 2
					d += pnSqDist(emb[i][0], emb[i][1], kps[o], kps[o+1])
				}
				k.dists[p] = d
				if d < k.dists[best] {
					best = p
				}
			}
			masks[(best*w+y)*h+x] = 1
		}
	}
}
