package perception

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of Landmarks2TransformMatrix: hand-computed matrices of both
// versions, version 2 against a closed form of its matrix on random
// landmarks, and the options and shapes upstream refuses (or would read
// out of bounds).

func ltmV2Opts(t testing.TB, subset []int, left, right int, extra ...any) []byte {
	kv := []any{"subset_idxs", subset, "left_rotation_idx", left, "right_rotation_idx", right,
		"target_rotation_radians", float32(0), "output_height", 16, "output_width", 16,
		"scale_x", float32(1.5), "scale_y", float32(1.5)}
	for i := 0; i+1 < len(extra); i += 2 {
		replaced := false
		for j := 0; j < len(kv); j += 2 {
			if kv[j] == extra[i] {
				kv[j+1], replaced = extra[i+1], true
			}
		}
		if !replaced {
			kv = append(kv, extra[i], extra[i+1])
		}
	}
	return tFlex(t, kv...)
}

func runLTM(t *testing.T, version int, shape []int, lm []float32, opts []byte) ([]float32, error) {
	t.Helper()
	out := tOut()
	n := tNode(Landmarks2TransformMatrixName, version, opts, []*ops.Tensor{tF32(shape, lm)}, out)
	if err := tRun(n); err != nil {
		return nil, err
	}
	if !ops.SameShape(out.Shape, []int{1, 4, 4}) {
		t.Fatalf("output shape %v, want [1 4 4]", out.Shape)
	}
	return append([]float32(nil), out.Float32s()...), nil
}

// landmarks packs (x, y, z) triples.
func landmarks(xyz ...float32) []float32 { return xyz }

func TestLandmarks2TransformMatrixV2Hand(t *testing.T) {
	// Landmarks 0 and 1 set the rotation (left (0, 0), right (1, 0): none);
	// 2…5 are the subset, a box x ∈ [2, 6], y ∈ [1, 5]: crop 4×4 centred at
	// (4, 3). Scale 1.5·4/16 = 0.375; translation (4, 3) + 0.375·(−8, −8).
	lm := landmarks(0, 0, 0, 1, 0, 0, 2, 1, 9, 6, 5, 9, 2, 5, 9, 6, 1, 9)
	got, err := runLTM(t, 2, []int{1, 6, 3}, lm, ltmV2Opts(t, []int{2, 3, 4, 5}, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "matrix", got, []float32{
		0.375, 0, 0, 1,
		0, 0.375, 0, 0,
		0, 0, 1, 0,
		0, 0, 0, 1}, 1e-6)

	// Right landmark straight below the left: the angle is π/2, the
	// rotation −π/2, so the crop's axes turn a quarter: in the rotated
	// frame the box is 4 wide (along y) and 4 high. Same centre.
	lm[3], lm[4] = 0, 1
	got, err = runLTM(t, 2, []int{1, 6, 3}, lm, ltmV2Opts(t, []int{2, 3, 4, 5}, 0, 1, "scale_y", float32(3)))
	if err != nil {
		t.Fatal(err)
	}
	// t = shift(4, 3)·R(π/2)·diag(0.375, 0.75)·shift(−8, −8):
	// R(π/2) = [[0, −1], [1, 0]] → [[0, −0.75], [0.375, 0]];
	// translation (4, 3) + (0·−8 + −0.75·−8, 0.375·−8) = (10, 0).
	tCheckNear(t, "rotated matrix", got, []float32{
		0, -0.75, 0, 10,
		0.375, 0, 0, 0,
		0, 0, 1, 0,
		0, 0, 0, 1}, 1e-6)
}

// ltmV2Closed is version 2's matrix in closed form, in float64:
// [R(−r)·diag(sx, sy) | c + R(−r)·diag(sx, sy)·(−ow/2, −oh/2)].
func ltmV2Closed(lm []float64, subset []int, left, right int, target, scaleX, scaleY float64, oh, ow int) []float64 {
	r := target - math.Atan2(lm[3*right+1]-lm[3*left+1], lm[3*right]-lm[3*left])
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, i := range subset {
		x, y := lm[3*i], lm[3*i+1]
		rx := math.Cos(r)*x - math.Sin(r)*y
		ry := math.Sin(r)*x + math.Cos(r)*y
		minX, maxX = math.Min(minX, rx), math.Max(maxX, rx)
		minY, maxY = math.Min(minY, ry), math.Max(maxY, ry)
	}
	mx, my := (minX+maxX)/2, (minY+maxY)/2
	cx := math.Cos(-r)*mx - math.Sin(-r)*my
	cy := math.Sin(-r)*mx + math.Cos(-r)*my
	sx := scaleX * (maxX - minX) / float64(ow)
	sy := scaleY * (maxY - minY) / float64(oh)
	c, s := math.Cos(-r), math.Sin(-r)
	m00, m01, m10, m11 := c*sx, -s*sy, s*sx, c*sy
	hx, hy := -float64(ow)/2, -float64(oh)/2
	return []float64{
		m00, m01, 0, cx + m00*hx + m01*hy,
		m10, m11, 0, cy + m10*hx + m11*hy,
		0, 0, 1, 0,
		0, 0, 0, 1}
}

func TestLandmarks2TransformMatrixV2Random(t *testing.T) {
	// The face model's left-eye subset (33 … 193) and rotation landmarks.
	subset := []int{33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173,
		130, 25, 110, 24, 23, 22, 26, 112, 243, 247, 30, 29, 27, 28, 56, 190, 226, 31, 228, 229,
		230, 231, 232, 233, 244, 113, 225, 224, 223, 222, 221, 189, 35, 124, 46, 53, 52, 65,
		143, 111, 117, 118, 119, 120, 121, 128, 245, 156, 70, 63, 105, 66, 107, 55, 193}
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 50; trial++ {
		lm := make([]float32, 468*3)
		lm64 := make([]float64, len(lm))
		for i := range lm {
			lm[i] = float32(r.Float64() * 192)
			lm64[i] = float64(lm[i])
		}
		target := float32(r.Float64()*2 - 1)
		sx, sy := float32(0.5+r.Float64()*2), float32(0.5+r.Float64()*2)
		opts := ltmV2Opts(t, subset, 33, 133, "target_rotation_radians", target,
			"scale_x", sx, "scale_y", sy, "output_height", 12, "output_width", 20)
		got, err := runLTM(t, 2, []int{1, 468, 3}, lm, opts)
		if err != nil {
			t.Fatal(err)
		}
		// An odd subset: the last index pairs with itself, which changes
		// nothing in the box.
		want := ltmV2Closed(lm64, subset, 33, 133, float64(target), float64(sx), float64(sy), 12, 20)
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-4*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("trial %d: matrix[%d] = %v, want %v", trial, i, got[i], want[i])
			}
		}
	}
}

func TestLandmarks2TransformMatrixV1Hand(t *testing.T) {
	// Left (0, 0), right (1, 0): alpha 0. Subset box x ∈ [0, 10],
	// y ∈ [0, 20], multiplier 1, landmarks_range 10: scale diag(1, 2);
	// middle (5, 10) → rotation translation (0, 1); output_hw (5, 3):
	// to_relative diag(1, 0.5) − 1; input_hw (3, 5): to_absolute
	// diag(2, 1) + (2, 1). The product is diag(2, 1) with no translation.
	lm := landmarks(0, 0, 0, 1, 0, 0, 0, 0, 0, 10, 20, 0)
	opts := tFlex(t, "input_hw", []int{3, 5}, "output_hw", []int{5, 3}, "dimensions", 3,
		"landmarks_range", 10, "bbox_size_multiplier", float32(1), "left_rotation_idx", 0,
		"right_rotation_idx", 1, "subset", []int{2, 3})
	got, err := runLTM(t, 1, []int{1, 1, 1, 12}, lm, opts)
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "matrix", got, []float32{
		2, 0, 0, 0,
		0, 1, 0, 0,
		0, 0, 1, 0,
		0, 0, 0, 1}, 1e-6)

	// Doubling the multiplier doubles the box (scale diag(2, 4)) around
	// the same middle: (R·S·T) = [[2, 0, −2], [0, 2, −3]], then
	// to_absolute: [[4, 0, −2], [0, 2, −2]].
	opts = tFlex(t, "input_hw", []int{3, 5}, "output_hw", []int{5, 3}, "dimensions", 3,
		"landmarks_range", 10, "bbox_size_multiplier", float32(2), "left_rotation_idx", 0,
		"right_rotation_idx", 1, "subset", []int{2, 3})
	got, err = runLTM(t, 1, []int{1, 1, 1, 12}, lm, opts)
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "matrix ×2", got, []float32{
		4, 0, 0, -2,
		0, 2, 0, -2,
		0, 0, 1, 0,
		0, 0, 0, 1}, 1e-6)
}

func TestLandmarks2TransformMatrixRefuses(t *testing.T) {
	lm := make([]float32, 6*3)
	good := ltmV2Opts(t, []int{2, 3, 4, 5}, 0, 1)
	cases := []struct {
		name    string
		version int
		shape   []int
		opts    []byte
		frag    []string
	}{
		{"no options", 2, []int{1, 6, 3}, nil, []string{"custom_options"}},
		{"garbage options", 2, []int{1, 6, 3}, []byte{1, 2, 3, 4, 5}, []string{"custom_options"}},
		{"empty subset", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{}, 0, 1), []string{"subset_idxs is empty"}},
		{"negative subset", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{2, -3}, 0, 1), []string{"subset value", "-3"}},
		{"subset outside", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{2, 6}, 0, 1), []string{"subset landmark 6"}},
		{"right outside", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{2, 3}, 0, 1<<30), []string{"right_rotation_idx"}},
		{"negative left", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{2, 3}, -1, 1), []string{"left_rotation_idx"}},
		{"zero height", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{2, 3}, 0, 1, "output_height", 0), []string{"output_height"}},
		{"zero scale", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{2, 3}, 0, 1, "scale_x", float32(0)), []string{"scale_x"}},
		{"string subset", 2, []int{1, 6, 3}, ltmV2Opts(t, []int{2, 3}, 0, 1, "subset_idxs", "x"), []string{"subset_idxs"}},
		{"v2 rank 4", 2, []int{1, 1, 6, 3}, good, []string{"rank 3"}},
		{"v1 rank 3", 1, []int{1, 6, 3}, good, []string{"version 1"}},
		{"v1 dimensions", 1, []int{1, 1, 1, 18}, tFlex(t, "input_hw", []int{3, 5}, "output_hw", []int{5, 3},
			"dimensions", 2, "landmarks_range", 10, "bbox_size_multiplier", float32(1), "subset", []int{2, 3}), []string{"dimensions"}},
		{"v1 zero multiplier", 1, []int{1, 1, 1, 18}, tFlex(t, "input_hw", []int{3, 5}, "output_hw", []int{5, 3},
			"dimensions", 3, "landmarks_range", 10, "subset", []int{2, 3}), []string{"bbox_size_multiplier"}},
		{"v1 no input_hw", 1, []int{1, 1, 1, 18}, tFlex(t, "output_hw", []int{5, 3},
			"dimensions", 3, "landmarks_range", 10, "bbox_size_multiplier", float32(1), "subset", []int{2, 3}), []string{"input_hw"}},
		{"version 3", 3, []int{1, 6, 3}, good, []string{"version 3"}},
	}
	for _, c := range cases {
		_, err := runLTM(t, c.version, c.shape, lm, c.opts)
		tWantErr(t, c.name, err, c.frag...)
	}
	// Wrong types.
	n := tNode(Landmarks2TransformMatrixName, 2, good,
		[]*ops.Tensor{{Type: ops.Int32, Shape: []int{1, 6, 3}, Data: make([]byte, 72)}}, tOut())
	tWantErr(t, "int32 input", tRun(n), "float32")
	n = tNode(Landmarks2TransformMatrixName, 2, good, []*ops.Tensor{tF32([]int{1, 6, 3}, lm)}, tOut(), tOut())
	tWantErr(t, "two outputs", tRun(n), "outputs")
}

func TestLandmarks2TransformMatrixNaN(t *testing.T) {
	// A NaN landmark gives NaNs (upstream's products carry them even into
	// the constant row, 0·NaN), not a failure.
	nan := float32(math.NaN())
	lm := landmarks(0, 0, 0, 1, 0, 0, nan, 1, 9, 6, 5, 9, 2, 5, 9, 6, 1, 9)
	got, err := runLTM(t, 2, []int{1, 6, 3}, lm, ltmV2Opts(t, []int{2, 3, 4, 5}, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(got[0])) || !math.IsNaN(float64(got[15])) {
		t.Errorf("matrix = %v, want NaNs", got)
	}
}
