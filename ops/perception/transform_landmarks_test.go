package perception

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of TransformLandmarks: hand-computed points for both versions and
// both dimensions, version 1's scale of the translation, and refusals.

// testMatrix maps (x, y) to (2x − y + 10, 0.5x + 3y − 4); its third column
// is non-zero to show it is multiplied by z = 0, not by the landmark's z.
var testMatrix = []float32{
	2, -1, 7, 10,
	0.5, 3, 7, -4,
	0, 0, 1, 0,
	0, 0, 0, 1}

func runTL(version int, shape []int, lm, m []float32, opts []byte) (*ops.Tensor, error) {
	out := tOut()
	n := tNode(TransformLandmarksName, version, opts,
		[]*ops.Tensor{tF32(shape, lm), tF32([]int{1, 4, 4}, m)}, out)
	return out, tRun(n)
}

func TestTransformLandmarksV2(t *testing.T) {
	out, err := runTL(2, []int{1, 3, 2}, []float32{0, 0, 1, 2, -4, 8}, testMatrix, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ops.SameShape(out.Shape, []int{1, 3, 2}) {
		t.Fatalf("shape %v", out.Shape)
	}
	tCheckNear(t, "2-D", out.Float32s(), []float32{10, -4, 10, 2.5, -6, 18}, 0)

	out, err = runTL(2, []int{1, 2, 3}, []float32{1, 2, 55, -4, 8, -0.5}, testMatrix, nil)
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "3-D", out.Float32s(), []float32{10, 2.5, 55, -6, 18, -0.5}, 0)
}

func TestTransformLandmarksV1(t *testing.T) {
	// Scale 2 doubles the translation: (2x − y + 20, 0.5x + 3y − 8).
	opts := tFlex(t, "dimensions", 2, "scale", float32(2))
	out, err := runTL(1, []int{1, 1, 1, 4}, []float32{0, 0, 1, 2}, testMatrix, opts)
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "scaled", out.Float32s(), []float32{20, -8, 20, -1.5}, 0)

	// Defaults: dimensions 3, scale 1, over a 2×1 grid of 2 landmarks.
	out, err = runTL(1, []int{1, 2, 1, 6}, []float32{0, 0, 1, 1, 2, 2, -4, 8, 3, 0, 0, 4}, testMatrix, tFlex(t))
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "defaults", out.Float32s(), []float32{10, -4, 1, 10, 2.5, 2, -6, 18, 3, 10, -4, 4}, 0)
}

func TestTransformLandmarksRefuses(t *testing.T) {
	lm := make([]float32, 12)
	for _, c := range []struct {
		name    string
		version int
		shape   []int
		opts    []byte
		frag    string
	}{
		{"v2 rank 4", 2, []int{1, 1, 6, 2}, nil, "rank 3"},
		{"v2 four values", 2, []int{1, 3, 4}, nil, "dimensions 4"},
		{"v1 rank 3", 1, []int{1, 6, 2}, nil, "rank 4"},
		{"v1 dimensions 4", 1, []int{1, 1, 1, 12}, tFlex(t, "dimensions", 4), "dimensions 4"},
		{"v1 scale 0", 1, []int{1, 1, 1, 12}, tFlex(t, "scale", float32(0)), "scale"},
		{"v1 bad options", 1, []int{1, 1, 1, 12}, []byte{0xff, 0xff}, "custom_options"},
		{"version 3", 3, []int{1, 6, 2}, nil, "version 3"},
	} {
		_, err := runTL(c.version, c.shape, lm[:tProduct(c.shape)], testMatrix, c.opts)
		tWantErr(t, c.name, err, c.frag)
	}
	// A 3-value last dimension in 2-D landmarks is not a multiple.
	_, err := runTL(1, []int{1, 1, 1, 3}, lm[:3], testMatrix, tFlex(t, "dimensions", 2))
	tWantErr(t, "3 values in twos", err, "multiple")
	// The matrix must hold two rows of float32.
	n := tNode(TransformLandmarksName, 2, nil,
		[]*ops.Tensor{tF32([]int{1, 2, 2}, lm[:4]), tF32([]int{1, 4}, testMatrix[:4])}, tOut())
	tWantErr(t, "short matrix", tRun(n), "at least 8")
	n = tNode(TransformLandmarksName, 2, nil, []*ops.Tensor{tF32([]int{1, 2, 2}, lm[:4])}, tOut())
	tWantErr(t, "one input", tRun(n), "inputs")
}

func tProduct(shape []int) int {
	p := 1
	for _, d := range shape {
		p *= d
	}
	return p
}

func TestTransformLandmarksNaN(t *testing.T) {
	m := append([]float32(nil), testMatrix...)
	m[2] = float32(math.Inf(1)) // ∞·0 is NaN, as upstream's dot product
	out, err := runTL(2, []int{1, 1, 2}, []float32{1, 2}, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := out.Float32s(); !math.IsNaN(float64(v[0])) || v[1] != 2.5 {
		t.Errorf("got %v, want [NaN 2.5]", v)
	}
}
