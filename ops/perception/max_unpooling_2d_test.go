package perception

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// unpoolNode is a node of custom code op over values and indices.
func unpoolNode(op string, in, ind *ops.Tensor, opts []byte) *ops.Node {
	return segNode(op, opts, []*ops.Tensor{in, ind}, segOut(ops.Float32))
}

// liteRTPoolOpts is a TfLitePoolParams as LiteRT's tests write it (40
// bytes: six fields, then four zero computed paddings).
func liteRTPoolOpts(padding, strideW, strideH, filterW, filterH int32) []byte {
	return segInts(padding, strideW, strideH, filterW, filterH, 0, 0, 0, 0, 0)
}

func TestMaxUnpooling2DMediaPipeHand(t *testing.T) {
	cases := []struct {
		name      string
		shape     []int
		in, ind   []float32
		opts      []byte
		wantShape []int
		want      []float32
	}{
		{
			// 2×2 windows, stride 2: each value goes to its window
			// position (fy, fx) = (idx / 2, idx mod 2).
			name:  "stride2",
			shape: []int{1, 2, 2, 1}, in: []float32{1, 2, 3, 4}, ind: []float32{0.1, 1.1, 2.1, 3.1},
			opts:      segPoolOpts(padValid, 2, 2, 2, 2, 0),
			wantShape: []int{1, 4, 4, 1},
			want: []float32{
				1, 0, 0, 2,
				0, 0, 0, 0,
				0, 0, 0, 0,
				3, 0, 0, 4},
		},
		{
			// Two channels, each scattered on its own; indices truncate
			// toward zero (1.9 is 1).
			name:  "channels",
			shape: []int{1, 1, 1, 2}, in: []float32{5, 6}, ind: []float32{3.1, 1.9},
			opts:      segPoolOpts(padSame, 2, 2, 2, 2, 0),
			wantShape: []int{1, 2, 2, 2},
			want:      []float32{0, 0, 0, 6, 0, 0, 5, 0},
		},
		{
			// Stride 1 with 2-wide windows: inputs 0 and 1 both land on
			// output column 1; the later one wins, as upstream.
			name:  "overlap",
			shape: []int{1, 1, 2, 1}, in: []float32{7, 8}, ind: []float32{1.1, 0.1},
			opts:      segPoolOpts(padSame, 1, 1, 2, 1, 0),
			wantShape: []int{1, 1, 4, 1},
			want:      []float32{0, 8, 0, 0},
		},
		{
			// The padding and activation fields are not read.
			name:  "ignored-fields",
			shape: []int{1, 1, 1, 1}, in: []float32{-3}, ind: []float32{1.1},
			opts:      segPoolOpts(0, 2, 2, 2, 2, 99),
			wantShape: []int{1, 2, 2, 1},
			want:      []float32{0, -3, 0, 0},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := unpoolNode(MaxUnpooling2DName, segF32(c.shape, c.in), segF32(c.shape, c.ind), c.opts)
			if err := segRun(NewMaxUnpooling2D(), n); err != nil {
				t.Fatal(err)
			}
			if !ops.SameShape(n.Outputs[0].Shape, c.wantShape) {
				t.Fatalf("shape %v, want %v", n.Outputs[0].Shape, c.wantShape)
			}
			segEqual(t, "out", n.Outputs[0].Float32s(), c.want)
		})
	}
}

// TestMaxUnpooling2DRoundTrip pools with MaxPoolingWithArgmax2D and
// unpools with MaxUnpooling2D, as the hair segmentation model does, and
// checks the result against a scatter of every window's maximum to where
// a direct search of the image finds it.
func TestMaxUnpooling2DRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100; i++ {
		f := 1 + r.IntN(3)
		b, h, w, c := 1+r.IntN(2), f*(1+r.IntN(5)), f*(1+r.IntN(5)), 1+r.IntN(4)
		shape := []int{b, h, w, c}
		in := segRand(r, b*h*w*c, -1, 1)
		opts := segPoolOpts(padValid, int32(f), int32(f), int32(f), int32(f), 0)
		name := fmt.Sprintf("%d:%v f%d", i, shape, f)
		pool := argmaxNode(segF32(shape, in), opts)
		if err := segRun(NewMaxPoolingWithArgmax2D(), pool); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		un := unpoolNode(MaxUnpooling2DName, pool.Outputs[0], pool.Outputs[1], opts)
		if err := segRun(NewMaxUnpooling2D(), un); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !ops.SameShape(un.Outputs[0].Shape, shape) {
			t.Fatalf("%s: shape %v, want %v", name, un.Outputs[0].Shape, shape)
		}
		want := make([]float32, len(in))
		for n := 0; n < b; n++ {
			for y := 0; y < h; y += f {
				for x := 0; x < w; x += f {
					for ch := 0; ch < c; ch++ {
						best := -1
						for dy := 0; dy < f; dy++ {
							for dx := 0; dx < f; dx++ {
								j := ((n*h+y+dy)*w+x+dx)*c + ch
								if best < 0 || in[j] > in[best] {
									best = j
								}
							}
						}
						want[best] = in[best]
					}
				}
			}
		}
		segEqual(t, name, un.Outputs[0].Float32s(), want)
	}
}

// TestMaxUnpooling2DLiteRTVectors runs the cases of LiteRT's
// max_unpooling_2d_test.cc and custom_op_test.cc (int32 indices).
func TestMaxUnpooling2DLiteRTVectors(t *testing.T) {
	batchIn := make([]float32, 32)
	for i := range batchIn {
		batchIn[i] = float32(i + 1)
	}
	batchInd := []int32{2, 23, 8, 9, 12, 15, 40, 43, 44, 47, 72,
		75, 80, 79, 62, 65, 0, 1, 30, 7, 14, 35,
		42, 21, 68, 69, 50, 51, 56, 5, 86, 63}
	// The 96-value image each of the two batch cases writes per batch
	// element, as positions → values (everything else zero).
	batchWant := func(outImg int) []float32 {
		o := make([]float32, 2*outImg)
		for i, idx := range batchInd {
			o[(i/16)*outImg+int(idx)] = batchIn[i]
		}
		return o
	}
	cases := []struct {
		name      string
		shape     []int
		in        []float32
		ind       []int32
		opts      []byte
		wantShape []int
		want      []float32
	}{
		{"simple", []int{1, 1, 2, 1}, []float32{13, 4}, []int32{1, 6}, liteRTPoolOpts(padSame, 2, 2, 2, 2),
			[]int{1, 2, 4, 1}, []float32{0, 13, 0, 0, 0, 0, 4, 0}},
		{"strides2x1", []int{1, 2, 2, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8}, []int32{0, 3, 4, 7, 8, 11, 12, 15},
			liteRTPoolOpts(padSame, 1, 2, 2, 2), []int{1, 4, 2, 2},
			[]float32{1, 0, 0, 2, 3, 0, 0, 4, 5, 0, 0, 6, 7, 0, 0, 8}},
		{"strides2x2", []int{1, 2, 4, 1}, []float32{1, 2, 3, 4, 5, 6, 7, 8}, []int32{0, 5, 10, 13, 19, 20, 27, 31},
			liteRTPoolOpts(padSame, 2, 2, 2, 2), []int{1, 4, 8, 1},
			[]float32{1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 4, 0, 0,
				0, 0, 0, 5, 6, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 8}},
		{"padding-valid", []int{1, 2, 2, 1}, []float32{7, 10, 20, 19}, []int32{6, 9, 16, 19},
			liteRTPoolOpts(padValid, 2, 2, 3, 2), []int{1, 4, 5, 1},
			[]float32{0, 0, 0, 0, 0, 0, 7, 0, 0, 10, 0, 0, 0, 0, 0, 0, 20, 0, 0, 19}},
		{"batch-same", []int{2, 2, 4, 2}, batchIn, batchInd, liteRTPoolOpts(padSame, 3, 2, 2, 2),
			[]int{2, 4, 12, 2}, batchWant(96)},
		{"batch-valid", []int{2, 2, 4, 2}, batchIn, batchInd, liteRTPoolOpts(padValid, 3, 2, 2, 2),
			[]int{2, 4, 11, 2}, batchWant(88)},
	}
	// Spot-check batchWant against the first values of upstream's
	// expected output for the SAME case (0, 0, 1, 0, 0, 0, 0, 0, 3, 4).
	segEqual(t, "batch-same head", batchWant(96)[:10], []float32{0, 0, 1, 0, 0, 0, 0, 0, 3, 4})
	segEqual(t, "batch-valid tail", batchWant(88)[170:], []float32{0, 0, 0, 0, 31, 0})
	for _, name := range []string{MaxUnpooling2DName, LiteRtMaxUnpooling2DName} {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				newK := NewMaxUnpooling2D
				if name == LiteRtMaxUnpooling2DName {
					newK = NewLiteRtMaxUnpooling2D
				}
				n := unpoolNode(name, segF32(c.shape, c.in), segI32(c.shape, c.ind), c.opts)
				if err := segRun(newK(), n); err != nil {
					t.Fatal(err)
				}
				if !ops.SameShape(n.Outputs[0].Shape, c.wantShape) {
					t.Fatalf("shape %v, want %v", n.Outputs[0].Shape, c.wantShape)
				}
				segEqual(t, "out", n.Outputs[0].Float32s(), c.want)
			})
		}
	}
}

func TestMaxUnpooling2DErrors(t *testing.T) {
	mp := func() *ops.Node {
		return unpoolNode(MaxUnpooling2DName, segF32([]int{1, 2, 2, 1}, []float32{1, 2, 3, 4}),
			segF32([]int{1, 2, 2, 1}, []float32{0.1, 1.1, 2.1, 3.1}), segPoolOpts(padValid, 2, 2, 2, 2, 0))
	}
	lrt := func() *ops.Node {
		return unpoolNode(LiteRtMaxUnpooling2DName, segF32([]int{1, 1, 2, 1}, []float32{13, 4}),
			segI32([]int{1, 1, 2, 1}, []int32{1, 6}), liteRTPoolOpts(padSame, 2, 2, 2, 2))
	}
	for _, mk := range []func() *ops.Node{mp, lrt} {
		if err := segRun(NewMaxUnpooling2D(), mk()); err != nil {
			t.Fatalf("valid node refused: %v", err)
		}
	}
	prep := []struct {
		name   string
		node   func() *ops.Node
		k      func() ops.Kernel
		mutate func(n *ops.Node)
		want   []string
	}{
		{"short options", mp, NewMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = n.CustomOptions[:23] }, []string{"custom_options", "23 bytes"}},
		{"no options", lrt, NewLiteRtMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = nil }, []string{"custom_options"}},
		{"mediapipe stride 0", mp, NewMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = segPoolOpts(2, 0, 2, 2, 2, 0) }, []string{"strides"}},
		{"mediapipe filter 0", mp, NewMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = segPoolOpts(2, 2, 2, 2, 0, 0) }, []string{"filter"}},
		{"mediapipe filter huge", mp, NewMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = segPoolOpts(2, 2, 2, 30000, 30000, 0) }, []string{"output 0"}},
		{"litert padding unknown", lrt, NewLiteRtMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = liteRTPoolOpts(0, 2, 2, 2, 2) }, []string{"padding 0"}},
		{"litert stride negative", lrt, NewMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = liteRTPoolOpts(1, -2, 2, 2, 2) }, []string{"strides"}},
		{"litert valid filter 0", lrt, NewMaxUnpooling2D, func(n *ops.Node) { n.CustomOptions = liteRTPoolOpts(2, 2, 2, 0, 2) }, []string{"filter"}},
		{"shape mismatch", lrt, NewMaxUnpooling2D, func(n *ops.Node) { n.Inputs[1] = segI32([]int{1, 2, 2, 1}, make([]int32, 4)) }, []string{"indices", "differs"}},
		{"litert float indices", lrt, NewLiteRtMaxUnpooling2D, func(n *ops.Node) { n.Inputs[1] = segF32([]int{1, 1, 2, 1}, nil) }, []string{"indices", "int32"}},
		{"int64 indices", mp, NewMaxUnpooling2D, func(n *ops.Node) {
			n.Inputs[1] = &ops.Tensor{Type: ops.Int64, Shape: []int{1, 2, 2, 1}, Data: make([]byte, 32)}
		}, []string{"indices", "float32", "int32"}},
		{"rank 3", mp, NewMaxUnpooling2D, func(n *ops.Node) {
			n.Inputs[0] = segF32([]int{2, 2, 1}, nil)
			n.Inputs[1] = segF32([]int{2, 2, 1}, nil)
		}, []string{"rank 4"}},
		{"one input", mp, NewMaxUnpooling2D, func(n *ops.Node) { n.Inputs = n.Inputs[:1] }, []string{"inputs"}},
		{"indices omitted", mp, NewMaxUnpooling2D, func(n *ops.Node) { n.Inputs[1] = nil }, []string{"indices"}},
		{"output int32", mp, NewMaxUnpooling2D, func(n *ops.Node) { n.Outputs[0] = segOut(ops.Int32) }, []string{"output 0", "float32"}},
	}
	for _, c := range prep {
		t.Run(c.name, func(t *testing.T) {
			n := c.node()
			c.mutate(n)
			segWantErr(t, segRun(c.k(), n), c.want...)
		})
	}
	// Indices that would write outside the output fail at Eval, naming
	// the operator and the index.
	run := []struct {
		name string
		node func() *ops.Node
		set  func(n *ops.Node)
		want []string
	}{
		{"mediapipe below", mp, func(n *ops.Node) { n.Inputs[1].Float32s()[0] = -1 }, []string{MaxUnpooling2DName, "index -1", "outside"}},
		{"mediapipe past bottom", mp, func(n *ops.Node) { n.Inputs[1].Float32s()[3] = 4.1 }, []string{MaxUnpooling2DName, "index 4.1", "output (4, 2)"}},
		{"mediapipe past right", mp, func(n *ops.Node) { n.Inputs[1].Float32s()[1] = 1e9 }, []string{MaxUnpooling2DName, "outside"}},
		{"mediapipe NaN", mp, func(n *ops.Node) { n.Inputs[1].Float32s()[2] = float32(math.NaN()) }, []string{MaxUnpooling2DName, "NaN", "not a finite int32"}},
		{"mediapipe Inf", mp, func(n *ops.Node) { n.Inputs[1].Float32s()[2] = float32(math.Inf(-1)) }, []string{MaxUnpooling2DName, "not a finite int32"}},
		{"litert negative", lrt, func(n *ops.Node) { n.Inputs[1].Int32s()[1] = -1 }, []string{LiteRtMaxUnpooling2DName, "index -1", "outside [0, 8)"}},
		{"litert past end", lrt, func(n *ops.Node) { n.Inputs[1].Int32s()[0] = 8 }, []string{LiteRtMaxUnpooling2DName, "index 8"}},
		{"litert huge", lrt, func(n *ops.Node) { n.Inputs[1].Int32s()[0] = math.MaxInt32 }, []string{LiteRtMaxUnpooling2DName, "outside"}},
	}
	for _, c := range run {
		t.Run(c.name, func(t *testing.T) {
			n := c.node()
			k := NewMaxUnpooling2D()
			if n.OpName == LiteRtMaxUnpooling2DName {
				k = NewLiteRtMaxUnpooling2D()
			}
			if err := segPrepare(k, n); err != nil {
				t.Fatal(err)
			}
			c.set(n)
			segWantErr(t, k.Eval(n), c.want...)
		})
	}
	segWantErr(t, NewLiteRtMaxUnpooling2D().Eval(lrt()), LiteRtMaxUnpooling2DName)
}

// BenchmarkMaxUnpooling2D runs the hair segmentation model's largest
// unpooling (64×64×32 to 128×128×32, 2×2 windows).
func BenchmarkMaxUnpooling2D(b *testing.B) {
	shape := []int{1, 64, 64, 32}
	r := rand.New(rand.NewPCG(9, 10))
	ind := make([]float32, 64*64*32)
	for i := range ind {
		ind[i] = float32(r.IntN(4)) + 0.1
	}
	n := unpoolNode(MaxUnpooling2DName, segF32(shape, segRand(r, len(ind), -1, 1)), segF32(shape, ind), segPoolOpts(padValid, 2, 2, 2, 2, 0))
	k := NewMaxUnpooling2D()
	if err := segPrepare(k, n); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := k.Eval(n); err != nil {
			b.Fatal(err)
		}
	}
}
