package perception

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// warpNode is a DenseImageWarp node.
func warpNode(in, flow *ops.Tensor) *ops.Node {
	return segNode(DenseImageWarpName, nil, []*ops.Tensor{in, flow}, segOut(ops.Float32))
}

// The flows of LiteRT's dense_image_warp_test.cc.
var (
	warpFlowA = []float32{4, 10, 6, 10, 4, 2, 6, 6, 10, -4, 2, -2, 6, 8, 6, 0,
		2, -2, 10, 6, 4, 4, 2, -4, -4, 10, -4, -4, -2, 6, 4, 6}
	warpFlowB = []float32{2, -2, 10, 6, 4, 4, 2, -4, -4, 10, -4, -4, -2, 6, 4, 6,
		4, 10, 6, 10, 4, 2, 6, 6, 10, -4, 2, -2, 6, 8, 6, 0}
)

// TestDenseImageWarpLiteRTVectors runs the cases of LiteRT's
// dense_image_warp_test.cc.
func TestDenseImageWarpLiteRTVectors(t *testing.T) {
	seq := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i)
		}
		return v
	}
	cases := []struct {
		name     string
		shape    []int
		in, flow []float32
		want     []float32
	}{
		{"simple", []int{1, 4, 4, 1}, seq(16), warpFlowA,
			[]float32{0, 0, 0, 0, 3, 3, 0, 3, 2, 0, 0, 3, 12, 15, 12, 0}},
		{"round", []int{1, 4, 4, 1},
			[]float32{0.2, 1.5, 2.4, 3.5, 4.6, 5.1, 6.3, 7.2, 8.5, 9.6, 10.9, 11.6, 12.8, 13.2, 14.4, 15.5}, warpFlowA,
			[]float32{0.2, 0.2, 0.2, 0.2, 3.5, 3.5, 0.2, 3.5, 2.4, 0.2, 0.2, 3.5, 12.8, 15.5, 12.8, 0.2}},
		{"batch-channels", []int{2, 4, 4, 3}, seq(96), append(append([]float32(nil), warpFlowB...), warpFlowB...),
			[]float32{6, 7, 8, 0, 1, 2, 0, 1, 2, 9, 10, 11, 36, 37,
				38, 45, 46, 47, 36, 37, 38, 0, 1, 2, 0, 1, 2, 0,
				1, 2, 0, 1, 2, 0, 1, 2, 9, 10, 11, 21, 22, 23,
				0, 1, 2, 9, 10, 11, 54, 55, 56, 48, 49, 50, 48, 49,
				50, 57, 58, 59, 84, 85, 86, 93, 94, 95, 84, 85, 86, 48,
				49, 50, 48, 49, 50, 48, 49, 50, 48, 49, 50, 48, 49, 50,
				57, 58, 59, 69, 70, 71, 48, 49, 50, 57, 58, 59}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fshape := append(append([]int(nil), c.shape[:3]...), 2)
			n := warpNode(segF32(c.shape, c.in), segF32(fshape, c.flow))
			if err := segRun(NewDenseImageWarp(), n); err != nil {
				t.Fatal(err)
			}
			if !ops.SameShape(n.Outputs[0].Shape, c.shape) {
				t.Fatalf("shape %v, want %v", n.Outputs[0].Shape, c.shape)
			}
			segEqual(t, "out", n.Outputs[0].Float32s(), c.want)
		})
	}
}

// TestDenseImageWarpAgainstReference checks fractional flows against the
// bilinear formula written out here, and the edge cases: queries outside
// the image, NaN and huge flows (the x86 conversion's corner 0).
func TestDenseImageWarpAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	shape := []int{2, 5, 6, 3}
	in := segRand(r, 2*5*6*3, -1, 1)
	flow := segRand(r, 2*5*6*2, -4, 4)
	flow[0], flow[1] = float32(math.NaN()), 0.5
	flow[2], flow[3] = 1e20, -1e20
	flow[4], flow[5] = 0.25, float32(math.Inf(1))
	n := warpNode(segF32(shape, in), segF32([]int{2, 5, 6, 2}, flow))
	if err := segRun(NewDenseImageWarp(), n); err != nil {
		t.Fatal(err)
	}
	got := n.Outputs[0].Float32s()
	corner := func(q float64, hi int) int {
		f := math.Floor(q)
		if math.IsNaN(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return 0 // x86's INT_MIN, clamped
		}
		return min(max(0, int(f)), hi)
	}
	weight := func(d float64) float64 {
		if math.IsNaN(d) {
			return 0
		}
		return math.Min(math.Max(0, d), 1)
	}
	for b := 0; b < 2; b++ {
		for y := 0; y < 5; y++ {
			for x := 0; x < 6; x++ {
				p := (b*5+y)*6 + x
				qy, qx := float64(float32(y)-flow[2*p]), float64(float32(x)-flow[2*p+1])
				fy, fx := corner(qy, 3), corner(qx, 4)
				ay, ax := weight(float64(float32(qy)-float32(fy))), weight(float64(float32(qx)-float32(fx)))
				for c := 0; c < 3; c++ {
					at := func(yy, xx int) float64 { return float64(in[((b*5+yy)*6+xx)*3+c]) }
					top := at(fy, fx) + ax*(at(fy, fx+1)-at(fy, fx))
					bottom := at(fy+1, fx) + ax*(at(fy+1, fx+1)-at(fy+1, fx))
					want := top + ay*(bottom-top)
					if g := float64(got[p*3+c]); math.Abs(g-want) > 1e-6 {
						t.Fatalf("out[%d,%d,%d,%d] = %g, want %g (flow %g, %g)", b, y, x, c, g, want, flow[2*p], flow[2*p+1])
					}
				}
			}
		}
	}
}

func TestDenseImageWarpErrors(t *testing.T) {
	good := func() *ops.Node { return warpNode(segF32([]int{1, 4, 4, 2}, nil), segF32([]int{1, 4, 4, 2}, nil)) }
	if err := segRun(NewDenseImageWarp(), good()); err != nil {
		t.Fatalf("valid node refused: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(n *ops.Node)
		want   []string
	}{
		{"flow width", func(n *ops.Node) { n.Inputs[1] = segF32([]int{1, 4, 2, 2}, nil) }, []string{"flow", "batch, height and width"}},
		{"flow depth", func(n *ops.Node) { n.Inputs[1] = segF32([]int{1, 4, 4, 1}, nil) }, []string{"flow", "last dimension 1"}},
		{"flow batch", func(n *ops.Node) { n.Inputs[1] = segF32([]int{2, 4, 4, 2}, nil) }, []string{"flow"}},
		{"height 1", func(n *ops.Node) {
			n.Inputs[0] = segF32([]int{1, 1, 4, 2}, nil)
			n.Inputs[1] = segF32([]int{1, 1, 4, 2}, nil)
		}, []string{"at least 2"}},
		{"rank 3 flow", func(n *ops.Node) { n.Inputs[1] = segF32([]int{4, 4, 2}, nil) }, []string{"flow", "rank 4"}},
		{"int32 image", func(n *ops.Node) { n.Inputs[0] = segI32([]int{1, 4, 4, 2}, make([]int32, 32)) }, []string{"input 0", "float32"}},
		{"one input", func(n *ops.Node) { n.Inputs = n.Inputs[:1] }, []string{"inputs"}},
		{"output int8", func(n *ops.Node) { n.Outputs[0] = segOut(ops.Int8) }, []string{"output 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := good()
			c.mutate(n)
			segWantErr(t, segRun(NewDenseImageWarp(), n), c.want...)
		})
	}
	segWantErr(t, NewDenseImageWarp().Eval(good()), DenseImageWarpName)
}
