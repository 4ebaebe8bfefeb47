package perception

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Landmarks2TransformMatrix: MediaPipe's custom operator
// (mediapipe/util/tflite/operations/landmarks_to_transform_matrix.cc, its
// options parsed as LiteRT's ParseLandmarksToTransformMatrixV1/V2Attributes
// do) that turns a set of 3-D landmarks into the 4×4 matrix mapping a crop
// of output_width×output_height pixels around them back onto the input.
// The face landmark model with attention uses it (version 2) to crop the
// eye and lip regions of its feature map.
//
// Input 0: float32 landmarks, x, y, z per landmark read with a stride of
// 3 whatever the innermost dimension (as upstream): rank 4 [1, 1, 1, 3·N]
// for version 1, rank 3 (e.g. [1, N, 3]) for version 2. Output 0: float32
// [1, 4, 4], row-major.
//
// Version 1 options: input_hw and output_hw (vectors [h, w]), dimensions
// (must be 3), landmarks_range, bbox_size_multiplier, left_rotation_idx,
// right_rotation_idx and subset (landmark indices, taken in pairs; an odd
// last one is paired with itself). It rotates the subset by the angle of
// the left→right landmarks, takes its bounding box scaled by
// bbox_size_multiplier, and composes to_absolute · rotation · scale ·
// to_relative.
//
// Version 2 options: subset_idxs (pairs, as above), left_rotation_idx,
// right_rotation_idx, target_rotation_radians, output_height, output_width,
// scale_x and scale_y. The matrix is shift(crop centre) · rotation(−r) ·
// scale(scale·crop size / output size) · shift(−output size / 2), r being
// target_rotation_radians minus the angle of the left→right landmarks.
//
// Float32 arithmetic in upstream's order (the matrices' products sum k in
// order from 0; atan and atan2 as glibc's atanf and atan2f, see
// libm.go). Version 1 calls C's cos and sin, in double, on its
// angle (the rotated points and the rotation matrix are computed in
// double and narrowed); version 2 calls std::cos and std::sin on floats,
// computed as glibc's cosf and sinf (libm.go). Upstream's checks are
// kept (made at Prepare, not at Eval); landmark indices outside the input,
// which upstream reads out of bounds, and an empty subset, which it
// dereferences, are errors too.
const Landmarks2TransformMatrixName = "Landmarks2TransformMatrix"

func init() {
	register(Landmarks2TransformMatrixName, func() ops.Kernel { return &landmarksToMatrix{} })
}

// ltmV1 holds version 1's options.
type ltmV1 struct {
	inH, inW, outH, outW       int32
	dimensions, landmarksRange int32
	bboxMultiplier             float32
	left, right                int32
	subset                     [][2]int32
}

// ltmV2 holds version 2's options.
type ltmV2 struct {
	subset         [][2]int32
	left, right    int32
	targetRotation float32
	outH, outW     int32
	scaleX, scaleY float32
}

type landmarksToMatrix struct {
	version int
	v1      ltmV1
	v2      ltmV2
}

// ltmPairs groups indices two by two, an odd last one with itself (as
// upstream's parsers).
func ltmPairs(idx []int32) [][2]int32 {
	p := make([][2]int32, 0, (len(idx)+1)/2)
	for i := 0; i+1 < len(idx); i += 2 {
		p = append(p, [2]int32{idx[i], idx[i+1]})
	}
	if len(idx)%2 != 0 {
		last := idx[len(idx)-1]
		p = append(p, [2]int32{last, last})
	}
	return p
}

func decodeLTMV1(b []byte) (ltmV1, error) {
	var o ltmV1
	m, err := fbMap(b)
	if err != nil {
		return o, err
	}
	hw := func(key string) (int32, int32, error) {
		v, err := fbInt32s(m, key)
		if err != nil {
			return 0, 0, err
		}
		var h, w int32 // a missing element reads as 0, as upstream
		if len(v) > 0 {
			h = v[0]
		}
		if len(v) > 1 {
			w = v[1]
		}
		return h, w, nil
	}
	if o.inH, o.inW, err = hw("input_hw"); err != nil {
		return o, err
	}
	if o.outH, o.outW, err = hw("output_hw"); err != nil {
		return o, err
	}
	for _, f := range []struct {
		key string
		dst *int32
	}{{"dimensions", &o.dimensions}, {"landmarks_range", &o.landmarksRange},
		{"left_rotation_idx", &o.left}, {"right_rotation_idx", &o.right}} {
		if *f.dst, err = fbInt32(m, f.key); err != nil {
			return o, err
		}
	}
	if o.bboxMultiplier, err = fbFloat32(m, "bbox_size_multiplier"); err != nil {
		return o, err
	}
	subset, err := fbInt32s(m, "subset")
	if err != nil {
		return o, err
	}
	o.subset = ltmPairs(subset)
	// Upstream's checks, in its order.
	switch {
	case o.bboxMultiplier == 0:
		return o, fmt.Errorf("custom_options: incorrect bbox_size_multiplier %v", o.bboxMultiplier)
	case o.dimensions != 3:
		return o, fmt.Errorf("custom_options: incorrect dimensions %d (must be 3)", o.dimensions)
	case o.inH <= 0 || o.inW <= 0:
		return o, fmt.Errorf("custom_options: incorrect input_hw: h = %d w = %d", o.inH, o.inW)
	case o.outH <= 0 || o.outW <= 0:
		return o, fmt.Errorf("custom_options: incorrect output_hw: h = %d w = %d", o.outH, o.outW)
	case o.landmarksRange <= 0:
		return o, fmt.Errorf("custom_options: incorrect landmarks_range %d", o.landmarksRange)
	case o.left < 0:
		return o, fmt.Errorf("custom_options: incorrect left_rotation_idx %d", o.left)
	case o.right < 0:
		return o, fmt.Errorf("custom_options: incorrect right_rotation_idx %d", o.right)
	case len(o.subset) == 0:
		return o, errors.New("custom_options: the subset is empty")
	}
	return o, ltmCheckSubset(o.subset)
}

func decodeLTMV2(b []byte) (ltmV2, error) {
	var o ltmV2
	m, err := fbMap(b)
	if err != nil {
		return o, err
	}
	subset, err := fbInt32s(m, "subset_idxs")
	if err != nil {
		return o, err
	}
	o.subset = ltmPairs(subset)
	for _, f := range []struct {
		key string
		dst *int32
	}{{"left_rotation_idx", &o.left}, {"right_rotation_idx", &o.right},
		{"output_height", &o.outH}, {"output_width", &o.outW}} {
		if *f.dst, err = fbInt32(m, f.key); err != nil {
			return o, err
		}
	}
	for _, f := range []struct {
		key string
		dst *float32
	}{{"target_rotation_radians", &o.targetRotation}, {"scale_x", &o.scaleX}, {"scale_y", &o.scaleY}} {
		if *f.dst, err = fbFloat32(m, f.key); err != nil {
			return o, err
		}
	}
	switch {
	case o.left < 0:
		return o, fmt.Errorf("custom_options: incorrect left_rotation_idx %d", o.left)
	case o.right < 0:
		return o, fmt.Errorf("custom_options: incorrect right_rotation_idx %d", o.right)
	case o.outH <= 0:
		return o, fmt.Errorf("custom_options: incorrect output_height %d", o.outH)
	case o.outW <= 0:
		return o, fmt.Errorf("custom_options: incorrect output_width %d", o.outW)
	case o.scaleX <= 0:
		return o, fmt.Errorf("custom_options: incorrect scale_x %v", o.scaleX)
	case o.scaleY <= 0:
		return o, fmt.Errorf("custom_options: incorrect scale_y %v", o.scaleY)
	}
	if err := ltmCheckSubset(o.subset); err != nil {
		return o, err
	}
	if len(o.subset) == 0 {
		return o, errors.New("custom_options: subset_idxs is empty")
	}
	return o, nil
}

func ltmCheckSubset(subset [][2]int32) error {
	for i, p := range subset {
		for j, v := range p {
			if v < 0 {
				return fmt.Errorf("custom_options: incorrect subset value: index = %d, value = %d", 2*i+j, v)
			}
		}
	}
	return nil
}

// ltmCheckLandmark verifies that landmark idx's values idx·3 … idx·3+used−1
// lie inside an input of n values.
func ltmCheckLandmark(what string, idx int32, used, n int) error {
	if int64(idx)*3+int64(used) > int64(n) {
		return fmt.Errorf("%s landmark %d is outside input 0 (%d values, 3 per landmark)", what, idx, n)
	}
	return nil
}

func (k *landmarksToMatrix) Prepare(n *ops.Node) error {
	*k = landmarksToMatrix{version: n.Version}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	if in.Type != ops.Float32 || out.Type != ops.Float32 {
		return fmt.Errorf("input 0 (%s) and output 0 (%s) must be float32", in, out)
	}
	var left, right int32
	var subset [][2]int32
	used := 3
	switch n.Version {
	case 1:
		if in.Rank() != 4 || in.Shape[0] != 1 || in.Shape[1] != 1 || in.Shape[2] != 1 {
			return fmt.Errorf("input 0 (%s): version 1 needs shape [1, 1, 1, 3·N]", in)
		}
		if k.v1, err = decodeLTMV1(n.CustomOptions); err != nil {
			return err
		}
		left, right, subset, used = k.v1.left, k.v1.right, k.v1.subset, 2
	case 2:
		if in.Rank() != 3 {
			return fmt.Errorf("input 0 (%s): version 2 needs rank 3", in)
		}
		if k.v2, err = decodeLTMV2(n.CustomOptions); err != nil {
			return err
		}
		left, right, subset = k.v2.left, k.v2.right, k.v2.subset
	default:
		return fmt.Errorf("version %d is not supported (1 and 2 are)", n.Version)
	}
	total := in.NumElements()
	if err := ltmCheckLandmark("left_rotation_idx", left, used, total); err != nil {
		return err
	}
	if err := ltmCheckLandmark("right_rotation_idx", right, used, total); err != nil {
		return err
	}
	for _, p := range subset {
		for _, v := range p {
			if err := ltmCheckLandmark("subset", v, used, total); err != nil {
				return err
			}
		}
	}
	out.Shape = []int{1, 4, 4}
	return nil
}

func (k *landmarksToMatrix) Eval(n *ops.Node) error {
	in, out := n.Inputs[0].Float32s(), n.Outputs[0].Float32s()
	if k.version == 1 {
		landmarksToMatrixV1(&k.v1, in, out)
	} else {
		landmarksToMatrixV2(&k.v2, in, out)
	}
	return nil
}

// Float32 helpers: the explicit conversions keep Go from fusing a multiply
// and an add (upstream's x86 build rounds each).
func mulF32(a, b float32) float32 { return float32(a * b) }
func glibcSinf(x float32) float32 { return glibcSincosf(x, false) }
func glibcCosf(x float32) float32 { return glibcSincosf(x, true) }

// mat3 and mat4 are row-major matrices; their products sum k from 0 in
// float32, as upstream's Mat3 and Mat4.
type mat3 [9]float32

func (a *mat3) mul(b *mat3) mat3 {
	var r mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			var s float32
			for q := 0; q < 3; q++ {
				s += mulF32(a[i*3+q], b[q*3+j])
			}
			r[i*3+j] = s
		}
	}
	return r
}

func (a *mat3) apply(v [3]float32) [3]float32 {
	var r [3]float32
	for i := 0; i < 3; i++ {
		var s float32
		for q := 0; q < 3; q++ {
			s += mulF32(a[i*3+q], v[q])
		}
		r[i] = s
	}
	return r
}

type mat4 [16]float32

func (a *mat4) mulBy(b *mat4) {
	var r mat4
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			var s float32
			for q := 0; q < 4; q++ {
				s += mulF32(a[i*4+q], b[q*4+j])
			}
			r[i*4+j] = s
		}
	}
	*a = r
}

func landmarksToMatrixV1(p *ltmV1, lm, out []float32) {
	lx, ly := lm[p.left*3], lm[p.left*3+1]
	rx, ry := lm[p.right*3], lm[p.right*3+1]
	alpha := -glibcAtanf((ry - ly) / (rx - lx))
	ca, sa := math.Cos(float64(alpha)), math.Sin(float64(alpha))
	maxX, maxY := float32(-100000), float32(-100000)
	minX, minY := float32(100000), float32(100000)
	for _, pr := range p.subset {
		for _, idx := range pr {
			x, y := float64(lm[idx*3]), float64(lm[idx*3+1])
			rotX := float32(float64(x*ca) - float64(y*sa))
			rotY := float32(float64(x*sa) + float64(y*ca))
			// std::max(a, b) is a < b ? b : a; std::min(a, b) is b < a ? b : a.
			if maxX < rotX {
				maxX = rotX
			}
			if maxY < rotY {
				maxY = rotY
			}
			if rotX < minX {
				minX = rotX
			}
			if rotY < minY {
				minY = rotY
			}
		}
	}
	bboxX := mulF32(maxX-minX, p.bboxMultiplier)
	bboxY := mulF32(maxY-minY, p.bboxMultiplier)
	lr := float32(p.landmarksRange)
	scale := mat3{bboxX / lr, 0, 0, 0, bboxY / lr, 0, 0, 0, 1}
	midX := float32(float64(maxX+minX) / 2)
	midY := float32(float64(maxY+minY) / 2)
	cd, sd := math.Cos(float64(-alpha)), math.Sin(float64(-alpha))
	rotMidX := float32(float64(float64(midX)*cd) - float64(float64(midY)*sd))
	rotMidY := float32(float64(float64(midX)*sd) + float64(float64(midY)*cd))
	rotation := mat3{
		float32(cd), float32(-sd), float32(float64(rotMidX/lr)*2 - 1),
		float32(sd), float32(cd), float32(float64(rotMidY/lr)*2 - 1),
		0, 0, 1}
	toRelative := mat3{
		float32(2 / (float64(p.outW) - 1)), 0, -1,
		0, float32(2 / (float64(p.outH) - 1)), -1,
		0, 0, 1}
	aw, ah := float32((float64(p.inW)-1)/2), float32((float64(p.inH)-1)/2)
	toAbsolute := mat3{aw, 0, aw, 0, ah, ah, 0, 0, 1}
	t1 := toAbsolute.mul(&rotation)
	t2 := t1.mul(&scale)
	itm := t2.mul(&toRelative)
	copy(out, []float32{
		itm[0], itm[1], 0, itm[2],
		itm[3], itm[4], 0, itm[5],
		itm[6], itm[7], itm[8], 0,
		0, 0, 0, 1})
}

func landmarksToMatrixV2(p *ltmV2, lm, out []float32) {
	// EstimateRotationRadians.
	lx, ly := lm[p.left*3], lm[p.left*3+1]
	rx, ry := lm[p.right*3], lm[p.right*3+1]
	rotation := glibcAtan2f(ry-ly, rx-lx)
	rotation = p.targetRotation - rotation

	// EstimateCenterAndSize.
	r := rotation
	tRot := mat3{glibcCosf(r), -glibcSinf(r), 0, glibcSinf(r), glibcCosf(r), 0, 0, 0, 1}
	tRotInv := mat3{glibcCosf(-r), -glibcSinf(-r), 0, glibcSinf(-r), glibcCosf(-r), 0, 0, 0, 1}
	var maxV, minV [3]float32
	first := true
	for _, pr := range p.subset {
		for _, idx := range pr {
			v := tRot.apply([3]float32{lm[idx*3], lm[idx*3+1], 1})
			if first {
				maxV, minV, first = v, v, false
				continue
			}
			if maxV[0] < v[0] {
				maxV[0] = v[0]
			}
			if maxV[1] < v[1] {
				maxV[1] = v[1]
			}
			if minV[0] > v[0] {
				minV[0] = v[0]
			}
			if minV[1] > v[1] {
				minV[1] = v[1]
			}
		}
	}
	cropW := maxV[0] - minV[0]
	cropH := maxV[1] - minV[1]
	c := minV
	c[0] += maxV[0]
	c[1] += maxV[1]
	c[0] /= 2
	c[1] /= 2
	c = tRotInv.apply(c)
	cropX, cropY := c[0], c[1]

	t := mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	shift := mat4{1, 0, 0, cropX, 0, 1, 0, cropY, 0, 0, 1, 0, 0, 0, 0, 1}
	t.mulBy(&shift)
	nr := -rotation
	rot := mat4{glibcCosf(nr), -glibcSinf(nr), 0, 0, glibcSinf(nr), glibcCosf(nr), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	t.mulBy(&rot)
	sx := mulF32(p.scaleX, cropW) / float32(p.outW)
	sy := mulF32(p.scaleY, cropH) / float32(p.outH)
	sc := mat4{sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	t.mulBy(&sc)
	shiftX := float32(-1.0 * (float64(p.outW) / 2.0))
	shiftY := float32(-1.0 * (float64(p.outH) / 2.0))
	shift2 := mat4{1, 0, 0, shiftX, 0, 1, 0, shiftY, 0, 0, 1, 0, 0, 0, 0, 1}
	t.mulBy(&shift2)
	copy(out, t[:])
}
