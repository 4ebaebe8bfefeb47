package perception

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of TransformTensorBilinear: hand-computed samples (identity,
// version 2's half-pixel correction, the bounds), a float64 reference on
// random affine maps, NaN, and refusals.

func ttOpts(t testing.TB, version, oh, ow int) []byte {
	if version == 1 {
		return tFlex(t, "mode", "bilinear", "output_size", []int{oh, ow})
	}
	return tFlex(t, "output_height", oh, "output_width", ow)
}

func runTT(t testing.TB, version int, name string, in *ops.Tensor, m []float32, opts []byte) (*ops.Tensor, error) {
	out := tOut()
	n := tNode(name, version, opts, []*ops.Tensor{in, tF32([]int{1, 4, 4}, m)}, out)
	return out, tRun(n)
}

func affine(a, b, c, d, e, f float32) []float32 {
	return []float32{a, b, 0, c, d, e, 0, f, 0, 0, 1, 0, 0, 0, 0, 1}
}

// grid is a [1, 4, 4, 2] input: channel 0 is 10y + x, channel 1 its
// negative.
func grid() *ops.Tensor {
	v := make([]float32, 32)
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			v[(y*4+x)*2] = float32(10*y + x)
			v[(y*4+x)*2+1] = -float32(10*y + x)
		}
	}
	return tF32([]int{1, 4, 4, 2}, v)
}

func TestTransformTensorBilinearHand(t *testing.T) {
	id := affine(1, 0, 0, 0, 1, 0)
	// Version 1 with the identity copies; so does version 2 (its
	// correction is 0.5·1 + 0.5·0 − 0.5 = 0 for the identity).
	for _, v := range []struct {
		version int
		name    string
	}{{1, TransformTensorName}, {1, TransformTensorBilinearName}, {2, TransformTensorBilinearName}} {
		out, err := runTT(t, v.version, v.name, grid(), id, ttOpts(t, v.version, 4, 4))
		if err != nil {
			t.Fatal(err)
		}
		if !ops.SameShape(out.Shape, []int{1, 4, 4, 2}) {
			t.Fatalf("shape %v", out.Shape)
		}
		tCheckNear(t, "identity", out.Float32s(), grid().Float32s(), 0)
	}

	// Half-scale map x' = 0.5x + 0.25, y' = 0.5y: version 1 samples there.
	out, err := runTT(t, 1, TransformTensorName, grid(), affine(0.5, 0, 0.25, 0, 0.5, 0), ttOpts(t, 1, 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "v1 half", out.Float32s(), []float32{0.25, -0.25, 0.75, -0.75, 5.25, -5.25, 5.75, -5.75}, 1e-6)

	// Version 2, scale 2: x' = 2x + (0.5·2 − 0.5) = 2x + 0.5, likewise y:
	// (0, 0) → (0.5, 0.5) = 5.5; (1, 0) → (2.5, 0.5) = 7.5; (0, 1) →
	// (0.5, 2.5) = 25.5; (1, 1) → (2.5, 2.5) = 27.5; x = 2 → 4.5 is past
	// W − 1 = 3: zero.
	out, err = runTT(t, 2, TransformTensorBilinearName, grid(), affine(2, 0, 0, 0, 2, 0), ttOpts(t, 2, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "v2 double", out.Float32s(), []float32{5.5, -5.5, 7.5, -7.5, 0, 0, 25.5, -25.5, 27.5, -27.5, 0, 0}, 1e-6)

	// Exactly on the last column (x' = 3): inside; the right neighbour
	// (outside) weighs 0. Just left of 0: outside.
	out, err = runTT(t, 1, TransformTensorName, grid(), affine(1, 0, 3, 0, 1, 1.5), ttOpts(t, 1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "right edge", out.Float32s(), []float32{18, -18}, 1e-6)
	out, err = runTT(t, 1, TransformTensorName, grid(), affine(1, 0, -1e-3, 0, 1, 0), ttOpts(t, 1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "left of 0", out.Float32s(), []float32{0, 0}, 0)
}

// ttReference samples in float64 (the coordinates from the float32
// matrix), treating the bounds as upstream.
func ttReference(in []float32, ih, iw, ch int, m []float32, oh, ow int, v2 bool) []float64 {
	a, b, c := float64(m[0]), float64(m[1]), float64(m[3])
	d, e, f := float64(m[4]), float64(m[5]), float64(m[7])
	if v2 {
		c += a*0.5 + b*0.5 - 0.5
		f += d*0.5 + e*0.5 - 0.5
	}
	at := func(y, x, k int) float64 {
		if y < 0 || x < 0 || y >= ih || x >= iw {
			return 0
		}
		return float64(in[(y*iw+x)*ch+k])
	}
	out := make([]float64, oh*ow*ch)
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			tx := a*float64(x) + b*float64(y) + c
			ty := d*float64(x) + e*float64(y) + f
			if tx < 0 || ty < 0 || tx > float64(iw-1) || ty > float64(ih-1) {
				continue
			}
			x0, y0 := int(math.Floor(tx)), int(math.Floor(ty))
			fx, fy := tx-float64(x0), ty-float64(y0)
			for k := 0; k < ch; k++ {
				top := at(y0, x0, k)*(1-fx) + at(y0, x0+1, k)*fx
				bot := at(y0+1, x0, k)*(1-fx) + at(y0+1, x0+1, k)*fx
				out[(y*ow+x)*ch+k] = top*(1-fy) + bot*fy
			}
		}
	}
	return out
}

func TestTransformTensorBilinearRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const ih, iw, ch, oh, ow = 48, 48, 5, 16, 16
	in := make([]float32, ih*iw*ch)
	for i := range in {
		in[i] = float32(r.Float64()*2 - 1)
	}
	inT := tF32([]int{1, ih, iw, ch}, in)
	for trial := 0; trial < 40; trial++ {
		// A rotated, scaled crop mostly inside the input (the face model's
		// use), sometimes hanging over the edge.
		ang, s := r.Float64()*2*math.Pi, 0.5+r.Float64()*2
		cx, cy := 10+r.Float64()*28, 10+r.Float64()*28
		m := affine(float32(s*math.Cos(ang)), float32(-s*math.Sin(ang)), float32(cx),
			float32(s*math.Sin(ang)), float32(s*math.Cos(ang)), float32(cy))
		for _, v2 := range []bool{false, true} {
			version := 1
			if v2 {
				version = 2
			}
			out, err := runTT(t, version, TransformTensorBilinearName, inT, m, ttOpts(t, version, oh, ow))
			if err != nil {
				t.Fatal(err)
			}
			want := ttReference(in, ih, iw, ch, m, oh, ow, v2)
			got := out.Float32s()
			for i := range want {
				// A point within rounding of the border may fall either
				// side of it; skip the values where that can matter.
				if math.Abs(float64(got[i])-want[i]) > 1e-5 && !(got[i] == 0 || want[i] == 0) {
					t.Fatalf("trial %d v%d: [%d] = %v, want %v", trial, version, i, got[i], want[i])
				}
			}
		}
	}
}

func TestTransformTensorBilinearNaN(t *testing.T) {
	nan := float32(math.NaN())
	out, err := runTT(t, 2, TransformTensorBilinearName, grid(), affine(nan, 0, 0, 0, 1, 0), ttOpts(t, 2, 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out.Float32s() {
		if !math.IsNaN(float64(v)) {
			t.Errorf("[%d] = %v, want NaN (a NaN coordinate passes upstream's bounds test)", i, v)
		}
	}
	huge := float32(3e38)
	out, err = runTT(t, 1, TransformTensorName, grid(), affine(huge, 0, 0, 0, huge, 0), ttOpts(t, 1, 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	tCheckNear(t, "huge", out.Float32s(), []float32{0, 0, 0, 0, 0, 0, 0, 0}, 0)
}

func TestTransformTensorBilinearRefuses(t *testing.T) {
	id := affine(1, 0, 0, 0, 1, 0)
	for _, c := range []struct {
		name    string
		version int
		in      *ops.Tensor
		opts    []byte
		frag    string
	}{
		{"no options", 2, grid(), nil, "custom_options"},
		{"zero width", 2, grid(), ttOpts(t, 2, 4, 0), "output size"},
		{"negative height", 2, grid(), ttOpts(t, 2, -4, 4), "output size"},
		{"huge", 2, grid(), ttOpts(t, 2, 1<<30, 1<<30), "output 0"},
		{"v1 nearest", 1, grid(), tFlex(t, "mode", "nearest", "output_size", []int{4, 4}), "bilinear"},
		{"v1 one size", 1, grid(), tFlex(t, "output_size", []int{4}), "output_size"},
		{"rank 3", 2, tF32([]int{4, 4, 2}, nil), ttOpts(t, 2, 4, 4), "[1, H, W, C]"},
		{"batch 2", 2, tF32([]int{2, 4, 4, 2}, nil), ttOpts(t, 2, 4, 4), "[1, H, W, C]"},
		{"version 3", 3, grid(), ttOpts(t, 2, 4, 4), "version 3"},
	} {
		_, err := runTT(t, c.version, TransformTensorBilinearName, c.in, id, c.opts)
		tWantErr(t, c.name, err, c.frag)
	}
	n := tNode(TransformTensorBilinearName, 2, ttOpts(t, 2, 4, 4),
		[]*ops.Tensor{{Type: ops.Int8, Shape: []int{1, 4, 4, 2}, Data: make([]byte, 32)}, tF32([]int{1, 4, 4}, id)}, tOut())
	tWantErr(t, "int8", tRun(n), "float32")
	n = tNode(TransformTensorBilinearName, 2, ttOpts(t, 2, 4, 4),
		[]*ops.Tensor{grid(), tF32([]int{2, 2}, id[:4])}, tOut())
	tWantErr(t, "2×2 matrix", tRun(n), "at least 8")
}
