package perception

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of PosenetDecoderOp: synthetic people whose keypoints and edges
// are laid out by hand (float32 and uint8 inputs, one and two people,
// BodyPix's masks), the decoder against an independent float64
// transcription of the algorithm on random maps, and hostile inputs.

func pnOpts(t testing.TB, maxDet int, thr float32, stride int, nms float32) []byte {
	return tFlex(t, "max_detections", maxDet, "score_threshold", thr, "stride", stride, "nms_radius", nms)
}

// person is a stick figure: cell (y, x) of each of the 17 keypoints.
var person = [pnKeypoints][2]int{
	{1, 4}, {1, 3}, {1, 5}, {1, 2}, {1, 6}, // nose, eyes, ears
	{3, 3}, {3, 5}, {4, 2}, {4, 6}, {5, 2}, {5, 6}, // shoulders, elbows, wrists
	{5, 3}, {5, 5}, {7, 3}, {7, 5}, {8, 3}, {8, 5}, // hips, knees, ankles
}

// pnMaps are the decoder's float inputs on an h×w grid.
type pnMaps struct {
	h, w                      int
	heat, shorts, mids, longs []float32
}

func newMaps(h, w int, background float32) *pnMaps {
	m := &pnMaps{h: h, w: w,
		heat:   make([]float32, h*w*pnKeypoints),
		shorts: make([]float32, h*w*2*pnKeypoints),
		mids:   make([]float32, h*w*4*pnEdges),
		longs:  make([]float32, h*w*2*pnKeypoints)}
	for i := range m.heat {
		m.heat[i] = background
	}
	return m
}

// addPerson writes a person shifted by (dy, dx) cells with keypoint logit
// logit (the nose nose), mid offsets (in pixels, stride 16) along every
// edge from its parent's cell.
func (m *pnMaps) addPerson(dy, dx int, logit, nose float32) {
	cell := func(k int) (int, int) { return person[k][0] + dy, person[k][1] + dx }
	for k := 0; k < pnKeypoints; k++ {
		y, x := cell(k)
		v := logit
		if k == 0 {
			v = nose
		}
		m.heat[(y*m.w+x)*pnKeypoints+k] = v
	}
	for e, pc := range pnEdgeList {
		py, px := cell(int(pc[0]))
		cy, cx := cell(int(pc[1]))
		ch := e
		if e >= pnEdges {
			ch = e + pnEdges
		}
		o := (py*m.w + px) * 4 * pnEdges
		m.mids[o+ch] = float32(16 * (cy - py))
		m.mids[o+ch+pnEdges] = float32(16 * (cx - px))
	}
}

type pnResult struct {
	kps, kpScores, poseScores, masks []float32
	count                            int
}

func (m *pnMaps) tensors(u8 bool) []*ops.Tensor {
	shapes := [][]int{{1, m.h, m.w, pnKeypoints}, {1, m.h, m.w, 2 * pnKeypoints}, {1, m.h, m.w, 4 * pnEdges}, {1, m.h, m.w, 2 * pnKeypoints}}
	data := [][]float32{m.heat, m.shorts, m.mids, m.longs}
	var ts []*ops.Tensor
	for i := range data {
		if !u8 {
			ts = append(ts, tF32(shapes[i], data[i]))
			continue
		}
		// Heatmaps in steps of 1/8, offsets in steps of 2 pixels: the
		// values above are exact in both.
		scale := float32(2)
		if i == 0 {
			scale = 0.125
		}
		q := make([]uint8, len(data[i]))
		for j, v := range data[i] {
			q[j] = uint8(math.Round(float64(v/scale)) + 128)
		}
		ts = append(ts, tU8(shapes[i], q, scale, 128))
	}
	return ts
}

func runPosenet(t *testing.T, m *pnMaps, opts []byte, masks, u8 bool) (pnResult, error) {
	t.Helper()
	ins := m.tensors(u8)
	outs := []*ops.Tensor{tOut(), tOut(), tOut(), tOut()}
	if !masks {
		ins = ins[:3]
	} else {
		outs = append(outs, tOut())
	}
	n := tNode(PosenetDecoderOpName, 1, opts, ins, outs...)
	if err := tRun(n); err != nil {
		return pnResult{}, err
	}
	r := pnResult{kps: outs[0].Float32s(), kpScores: outs[1].Float32s(), poseScores: outs[2].Float32s(),
		count: int(outs[3].Float32s()[0])}
	if masks {
		r.masks = outs[4].Float32s()
	}
	return r, nil
}

func sig(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func TestPosenetSyntheticPerson(t *testing.T) {
	for _, u8 := range []bool{false, true} {
		m := newMaps(10, 9, -10)
		m.addPerson(0, 0, 5, 6)
		r, err := runPosenet(t, m, pnOpts(t, 3, 0.5, 16, 20), false, u8)
		if err != nil {
			t.Fatal(err)
		}
		if r.count != 1 {
			t.Fatalf("u8 %v: %d poses, want 1", u8, r.count)
		}
		for k := 0; k < pnKeypoints; k++ {
			y, x := r.kps[2*k], r.kps[2*k+1]
			if y != float32(16*person[k][0]) || x != float32(16*person[k][1]) {
				t.Errorf("u8 %v: keypoint %d at (%v, %v), want (%d, %d)", u8, k, y, x, 16*person[k][0], 16*person[k][1])
			}
			want := sig(5)
			if k == 0 {
				want = sig(6)
			}
			if !tNear(float64(r.kpScores[k]), want, 1e-6) {
				t.Errorf("u8 %v: keypoint %d score %v, want %v", u8, k, r.kpScores[k], want)
			}
		}
		if want := (sig(6) + 16*sig(5)) / 17; !tNear(float64(r.poseScores[0]), want, 1e-6) {
			t.Errorf("u8 %v: pose score %v, want %v", u8, r.poseScores[0], want)
		}
		for i := 2 * pnKeypoints; i < len(r.kps); i++ {
			if r.kps[i] != 0 {
				t.Fatalf("u8 %v: keypoints past the count are not zero: [%d] = %v", u8, i, r.kps[i])
			}
		}
	}
}

func TestPosenetTwoPeople(t *testing.T) {
	// A weaker person to the right: listed second. A threshold above its
	// score drops it. An nms_radius covering the distance between them
	// suppresses its roots (each near the stronger person's keypoint of
	// the same kind), leaving one pose.
	m := newMaps(10, 20, -10)
	m.addPerson(0, 0, 5, 6)
	m.addPerson(1, 10, 1, 2)
	r, err := runPosenet(t, m, pnOpts(t, 5, 0.5, 16, 20), false, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.count != 2 {
		t.Fatalf("%d poses, want 2", r.count)
	}
	if r.poseScores[0] <= r.poseScores[1] {
		t.Errorf("pose scores %v not decreasing", r.poseScores[:2])
	}
	if y, x := r.kps[2*pnKeypoints], r.kps[2*pnKeypoints+1]; y != 16*2 || x != 16*14 {
		t.Errorf("second pose's nose at (%v, %v), want (32, 224)", y, x)
	}
	if want := (sig(2) + 16*sig(1)) / 17; !tNear(float64(r.poseScores[1]), want, 1e-6) {
		t.Errorf("second pose score %v, want %v", r.poseScores[1], want)
	}
	r, err = runPosenet(t, m, pnOpts(t, 5, 0.8, 16, 20), false, false)
	if err != nil || r.count != 1 {
		t.Errorf("threshold 0.8: %d poses (%v), want 1", r.count, err)
	}
	r, err = runPosenet(t, m, pnOpts(t, 5, 0.5, 16, 16*12), false, false)
	if err != nil || r.count != 1 {
		t.Errorf("nms_radius 192: %d poses (%v), want 1", r.count, err)
	}
	r, err = runPosenet(t, m, pnOpts(t, 1, 0.5, 16, 20), false, false)
	if err != nil || r.count != 1 || !tNear(float64(r.poseScores[0]), (sig(6)+16*sig(5))/17, 1e-6) {
		t.Errorf("max_detections 1: %d poses, score %v (%v), want the stronger", r.count, r.poseScores, err)
	}
}

func TestPosenetMasks(t *testing.T) {
	// Long offsets of zero: every cell's embedding is the cell itself
	// (in pixels), so each cell goes to the nearer person.
	m := newMaps(33, 33, -10)
	m.addPerson(0, 0, 5, 6)
	m.addPerson(20, 20, 4, 4.5)
	r, err := runPosenet(t, m, pnOpts(t, 2, 0.5, 16, 20), true, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.count != 2 {
		t.Fatalf("%d poses, want 2", r.count)
	}
	at := func(p, y, x int) float32 { return r.masks[(p*33+y)*33+x] }
	if at(0, 0, 0) != 1 || at(1, 0, 0) != 0 || at(0, 32, 32) != 0 || at(1, 32, 32) != 1 {
		t.Errorf("corners: pose 0 (%v, %v), pose 1 (%v, %v); want the near pose's", at(0, 0, 0), at(0, 32, 32), at(1, 0, 0), at(1, 32, 32))
	}
	for y := 0; y < 33; y++ {
		for x := 0; x < 33; x++ {
			if at(0, y, x)+at(1, y, x) != 1 {
				t.Fatalf("cell (%d, %d) in %v masks", y, x, at(0, y, x)+at(1, y, x))
			}
		}
	}
	// No pose: upstream's empty min_element makes mask 0 all ones.
	m = newMaps(33, 33, -10)
	r, err = runPosenet(t, m, pnOpts(t, 2, 0.5, 16, 20), true, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.count != 0 || r.masks[0] != 1 || r.masks[33*33-1] != 1 || r.masks[33*33] != 0 {
		t.Errorf("no pose: count %d, masks %v %v %v; want 0, mask 0 all ones", r.count, r.masks[0], r.masks[33*33-1], r.masks[33*33])
	}
}

// pnRef decodes in float64, written from the algorithm's description
// rather than from the kernel: candidates sorted once, the keypoint
// queue a linear search for the best pending entry, sort.SliceStable for
// the pose orders. On random maps (no ties) it must agree.
func pnRef(m *pnMaps, maxDet int, thr float64, stride int, nmsPx float64) (kps [][pnKeypoints][2]float64, kpScores [][pnKeypoints]float64, scores []float64) {
	h, w := m.h, m.w
	s := 1 / float64(stride)
	at := func(t []float32, ch, y, x, c int) float64 { return float64(t[(y*w+x)*ch+c]) }
	samp := func(t []float32, ch int, y, x float64, c int, scale float64) float64 {
		cy := math.Min(math.Max(y, 0), float64(h-1))
		cx := math.Min(math.Max(x, 0), float64(w-1))
		y0, x0 := int(math.Floor(cy)), int(math.Floor(cx))
		y1, x1 := int(math.Ceil(cy)), int(math.Ceil(cx))
		fy, fx := y-float64(y0), x-float64(x0)
		top := (1-fx)*at(t, ch, y0, x0, c) + fx*at(t, ch, y0, x1, c)
		bot := (1-fx)*at(t, ch, y1, x0, c) + fx*at(t, ch, y1, x1, c)
		return scale * ((1-fy)*top + fy*bot)
	}
	clampY := func(v float64) float64 { return math.Min(math.Max(v, 0), float64(h-1)) }
	clampX := func(v float64) float64 { return math.Min(math.Max(v, 0), float64(w-1)) }
	type cand struct {
		y, x, score float64
		k           int
	}
	minLogit := -math.Log(1/(thr+1e-6) - 1)
	var cands []cand
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for k := 0; k < pnKeypoints; k++ {
				v := at(m.heat, pnKeypoints, y, x, k)
				if v < minLogit {
					continue
				}
				isMax := true
				for yy := max(0, y-1); yy <= min(h-1, y+1); yy++ {
					for xx := max(0, x-1); xx <= min(w-1, x+1); xx++ {
						if at(m.heat, pnKeypoints, yy, xx, k) > v {
							isMax = false
						}
					}
				}
				if isMax {
					cands = append(cands, cand{
						clampY(float64(y) + s*at(m.shorts, 2*pnKeypoints, y, x, k)),
						clampX(float64(x) + s*at(m.shorts, 2*pnKeypoints, y, x, k+pnKeypoints)), v, k})
				}
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	r2 := (nmsPx / float64(stride)) * (nmsPx / float64(stride))
	d2 := func(a, b [2]float64) float64 { return (a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) }
	var poses [][pnKeypoints][2]float64
	var pscores [][pnKeypoints]float64
	var inst []float64
	for _, c := range cands {
		if len(poses) >= maxDet {
			break
		}
		ok := true
		for _, p := range poses {
			if d2([2]float64{c.y, c.x}, p[c.k]) <= r2 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var pose [pnKeypoints][2]float64
		var ps [pnKeypoints]float64
		done := [pnKeypoints]bool{}
		type item struct {
			y, x, score float64
			k           int
		}
		pending := []item{{c.y, c.x, samp(m.heat, pnKeypoints, c.y, c.x, c.k, 1), c.k}}
		for len(pending) > 0 {
			best := 0
			for i := range pending {
				if pending[i].score > pending[best].score {
					best = i
				}
			}
			it := pending[best]
			pending = append(pending[:best], pending[best+1:]...)
			if done[it.k] {
				continue
			}
			done[it.k] = true
			pose[it.k], ps[it.k] = [2]float64{it.y, it.x}, it.score
			for e, pc := range pnEdgeList {
				if int(pc[0]) != it.k || done[pc[1]] {
					continue
				}
				child := int(pc[1])
				cy, cx := it.y, it.x
				yc, xc := e, e+pnEdges // forward: y block then x block
				if e >= pnEdges {
					yc, xc = 2*pnEdges+(e-pnEdges), 3*pnEdges+(e-pnEdges)
				}
				oy := samp(m.mids, 4*pnEdges, cy, cx, yc, s)
				ox := samp(m.mids, 4*pnEdges, cy, cx, xc, s)
				cy, cx = clampY(cy+oy), clampX(cx+ox)
				for step := 0; step < 5; step++ {
					oy = samp(m.shorts, 2*pnKeypoints, cy, cx, child, s)
					ox = samp(m.shorts, 2*pnKeypoints, cy, cx, child+pnKeypoints, s)
					cy, cx = clampY(cy+oy), clampX(cx+ox)
				}
				pending = append(pending, item{cy, cx, samp(m.heat, pnKeypoints, cy, cx, child, 1), child})
			}
		}
		total := 0.0
		for k := range ps {
			ps[k] = sig(ps[k])
			total += ps[k]
		}
		if total/pnKeypoints >= thr {
			poses, pscores, inst = append(poses, pose), append(pscores, ps), append(inst, total/pnKeypoints)
		}
	}
	order := make([]int, len(poses))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return inst[order[a]] > inst[order[b]] })
	rescored := make([]float64, len(poses))
	for i, cur := range order {
		total := 0.0
		for k := 0; k < pnKeypoints; k++ {
			occluded := false
			for _, prev := range order[:i] {
				if d2(poses[cur][k], poses[prev][k]) <= r2 {
					occluded = true
				}
			}
			if !occluded {
				total += pscores[cur][k]
			}
		}
		rescored[cur] = total / pnKeypoints
	}
	sort.SliceStable(order, func(a, b int) bool { return rescored[order[a]] > rescored[order[b]] })
	for _, i := range order {
		if rescored[i] < thr {
			break
		}
		var p [pnKeypoints][2]float64
		for k := range p {
			p[k] = [2]float64{poses[i][k][0] * float64(stride), poses[i][k][1] * float64(stride)}
		}
		kps, kpScores, scores = append(kps, p), append(kpScores, pscores[i]), append(scores, rescored[i])
	}
	return
}

func TestPosenetAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	compared := 0
	for trial := 0; trial < 30; trial++ {
		// Offsets of up to half a cell (mid) and a quarter (short): steeper
		// random fields amplify float32 rounding along the keypoint tree.
		h, w := 6+r.IntN(10), 6+r.IntN(12)
		m := newMaps(h, w, 0)
		for i := range m.heat {
			m.heat[i] = float32(r.Float64()*8 - 6)
		}
		for i := range m.shorts {
			m.shorts[i] = float32(r.Float64()*8 - 4)
		}
		for i := range m.mids {
			m.mids[i] = float32(r.Float64()*16 - 8)
		}
		maxDet, thr, nms := 1+r.IntN(25), 0.05+0.5*r.Float64(), 8+24*r.Float64()
		got, err := runPosenet(t, m, pnOpts(t, maxDet, float32(thr), 16, float32(nms)), false, false)
		if err != nil {
			t.Fatal(err)
		}
		wk, ws, wp := pnRef(m, maxDet, float64(float32(thr)), 16, float64(float32(nms)))
		if got.count != len(wp) {
			t.Fatalf("trial %d: %d poses, reference %d", trial, got.count, len(wp))
		}
		for p := range wp {
			// Float32 against float64 through several refinement steps over
			// steep random maps: agreement to 1e-3 (a different decision —
			// order, suppression, edge — would differ far more).
			if !tNear(float64(got.poseScores[p]), wp[p], 1e-3) {
				t.Fatalf("trial %d pose %d: score %v, reference %v", trial, p, got.poseScores[p], wp[p])
			}
			for k := 0; k < pnKeypoints; k++ {
				o := (p*pnKeypoints + k) * 2
				// Positions in pixels: random offset fields amplify rounding
				// through the refinements; 0.02 px.
				if math.Abs(float64(got.kps[o])-wk[p][k][0]) > 0.02 || math.Abs(float64(got.kps[o+1])-wk[p][k][1]) > 0.02 ||
					!tNear(float64(got.kpScores[p*pnKeypoints+k]), ws[p][k], 1e-3) {
					t.Fatalf("trial %d pose %d keypoint %d: (%v, %v) %v, reference (%v, %v) %v", trial, p, k,
						got.kps[o], got.kps[o+1], got.kpScores[p*pnKeypoints+k], wk[p][k][0], wk[p][k][1], ws[p][k])
				}
			}
		}
		compared += len(wp)
	}
	t.Logf("%d poses compared", compared)
	if compared < 30 {
		t.Errorf("only %d poses compared: the random maps are too weak", compared)
	}
}

func TestPosenetHostile(t *testing.T) {
	nan := float32(math.NaN())
	// NaN logits, offsets and positions: no failure, NaN scores at worst.
	m := newMaps(10, 9, -10)
	m.addPerson(0, 0, 5, 6)
	for i := 0; i < len(m.shorts); i += 7 {
		m.shorts[i] = nan
	}
	for i := 0; i < len(m.mids); i += 5 {
		m.mids[i] = nan
	}
	m.heat[3] = nan
	m.heat[40] = float32(math.Inf(1))
	if _, err := runPosenet(t, m, pnOpts(t, 20, 0.1, 16, 20), false, false); err != nil {
		t.Errorf("NaN maps: %v", err)
	}
	m.longs = make([]float32, 10*9*34)
	// Threshold 1 (logodds NaN): no candidates, no poses.
	r, err := runPosenet(t, newMaps(10, 9, 5), pnOpts(t, 20, 1, 16, 20), false, false)
	if err != nil || r.count != 0 {
		t.Errorf("threshold 1: %d poses (%v), want 0", r.count, err)
	}
	// max_detections 0: empty outputs.
	r, err = runPosenet(t, newMaps(10, 9, 5), pnOpts(t, 0, 0.1, 16, 20), false, false)
	if err != nil || r.count != 0 || len(r.kps) != 0 {
		t.Errorf("max_detections 0: %d poses, %d values (%v)", r.count, len(r.kps), err)
	}

	good := newMaps(10, 9, -10)
	for _, c := range []struct {
		name string
		opts []byte
		frag string
	}{
		{"no options", nil, "custom_options"},
		{"garbage", []byte{9, 9, 9}, "custom_options"},
		{"stride 0", pnOpts(t, 5, 0.5, 0, 20), "stride"},
		{"negative max", pnOpts(t, -1, 0.5, 16, 20), "max_detections"},
		{"huge max", pnOpts(t, 1<<31-1, 0.5, 16, 20), "max_detections"},
		{"string stride", tFlex(t, "max_detections", 5, "score_threshold", float32(0.5), "stride", []int{1}, "nms_radius", float32(1)), "stride"},
	} {
		_, err := runPosenet(t, good, c.opts, false, false)
		tWantErr(t, c.name, err, c.frag)
	}
	opts := pnOpts(t, 5, 0.5, 16, 20)
	base := good.tensors(false)
	bad := func(name string, ins []*ops.Tensor, nOut int, frag string) {
		t.Helper()
		outs := make([]*ops.Tensor, nOut)
		for i := range outs {
			outs[i] = tOut()
		}
		tWantErr(t, name, tRun(tNode(PosenetDecoderOpName, 1, opts, ins, outs...)), frag)
	}
	bad("3 inputs 5 outputs", base[:3], 5, "needs 3 and 4")
	bad("2 inputs", base[:2], 4, "needs 3 and 4")
	bad("16 channels", []*ops.Tensor{tF32([]int{1, 10, 9, 16}, nil), base[1], base[2]}, 4, "[1, H, W, 17]")
	bad("batch 2", []*ops.Tensor{tF32([]int{2, 10, 9, 17}, nil), base[1], base[2]}, 4, "input 0")
	bad("other grid", []*ops.Tensor{base[0], tF32([]int{1, 10, 8, 34}, nil), base[2]}, 4, "grid")
	bad("int8", []*ops.Tensor{{Type: ops.Int8, Shape: []int{1, 10, 9, 17}, Data: make([]byte, 1530)}, base[1], base[2]}, 4, "uint8 or float32")
	bad("uint8 unquantised", []*ops.Tensor{{Type: ops.Uint8, Shape: []int{1, 10, 9, 17}, Data: make([]byte, 1530)}, base[1], base[2]}, 4, "quantisation")
	bad("long offsets 10×9", base, 5, "33×33")
	n := tNode(PosenetDecoderOpName, 2, opts, base[:3], tOut(), tOut(), tOut(), tOut())
	tWantErr(t, "version 2", tRun(n), "version 2")
}

func TestPosenetMaxDetectionsBoundsScratch(t *testing.T) {
	// max_detections 1<<20 on a small grid: the kept poses cannot outnumber
	// the candidates (one per cell and keypoint), so the scratch stays small
	// (the outputs are the interpreter's to bound).
	n := tNode(PosenetDecoderOpName, 1, pnOpts(t, 1<<20, 0.5, 16, 20), newMaps(4, 4, 0).tensors(false)[:3],
		tOut(), tOut(), tOut(), tOut())
	k := &posenetDecoder{}
	if err := k.Prepare(n); err != nil {
		t.Fatal(err)
	}
	if len(k.poses) > 4*4*pnKeypoints+1 {
		t.Errorf("%d scratch poses for %d candidates", len(k.poses), 4*4*pnKeypoints)
	}
	if !ops.SameShape(n.Outputs[0].Shape, []int{1, 1 << 20, 17, 2}) {
		t.Errorf("output 0 shape %v", n.Outputs[0].Shape)
	}
}
