package perception

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// argmaxNode is a MaxPoolingWithArgmax2D node over in.
func argmaxNode(in *ops.Tensor, opts []byte) *ops.Node {
	return segNode(MaxPoolingWithArgmax2DName, opts, []*ops.Tensor{in}, segOut(ops.Float32), segOut(ops.Float32))
}

// argmaxReference is MediaPipe's MaxPoolArgmax loop as written upstream
// (channel by channel, window clipped to the image, strict comparison).
func argmaxReference(in []float32, shape []int, same bool, sw, sh, fw, fh int, lo, hi float32) (out, idx []float32, outShape []int) {
	b, h, w, c := shape[0], shape[1], shape[2], shape[3]
	size := func(in, f, s int) int {
		if same {
			return (in + s - 1) / s
		}
		return (in - f + s) / s
	}
	oh, ow := size(h, fh, sh), size(w, fw, sw)
	padT := max(((oh-1)*sh+fh-h)/2, 0)
	padL := max(((ow-1)*sw+fw-w)/2, 0)
	out = make([]float32, b*oh*ow*c)
	idx = make([]float32, len(out))
	for n := 0; n < b; n++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				for ch := 0; ch < c; ch++ {
					x0, y0 := ox*sw-padL, oy*sh-padT
					m := float32(-math.MaxFloat32)
					mx, my := 0, 0
					for fy := max(0, -y0); fy < min(fh, h-y0); fy++ {
						for fx := max(0, -x0); fx < min(fw, w-x0); fx++ {
							v := in[((n*h+y0+fy)*w+x0+fx)*c+ch]
							if v > m {
								m, mx, my = v, fx, fy
							}
						}
					}
					o := ((n*oh+oy)*ow+ox)*c + ch
					out[o] = min(max(m, lo), hi)
					idx[o] = float32(my*fw+mx) + 0.1
				}
			}
		}
	}
	return out, idx, []int{b, oh, ow, c}
}

func TestMaxPoolingWithArgmax2DHand(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	cases := []struct {
		name               string
		shape              []int
		in                 []float32
		opts               []byte
		wantShape          []int
		wantOut, wantIndex []float32
	}{
		{
			// 2×2 windows, stride 2: each window's position of its maximum;
			// the second window is a tie (first position wins), the third
			// starts with a NaN (never a maximum), the fourth holds +Inf
			// (clamped to FLT_MAX).
			name:  "valid",
			shape: []int{1, 4, 4, 1},
			in: []float32{
				1, 2, 5, 5,
				3, 4, 5, 5,
				nan, -3, 0, 1,
				-2, -1, inf, 2},
			opts:      segPoolOpts(padValid, 2, 2, 2, 2, 0),
			wantShape: []int{1, 2, 2, 1},
			wantOut:   []float32{4, 5, -1, math.MaxFloat32},
			wantIndex: []float32{3.1, 0.1, 3.1, 2.1},
		},
		{
			// SAME over a width of 4 with a 3-wide window, stride 1: one
			// leading column of padding, so the first window's indices
			// start at 1; the last window is clipped on the right.
			name:      "same-leading",
			shape:     []int{1, 1, 4, 1},
			in:        []float32{9, 1, 2, 8},
			opts:      segPoolOpts(padSame, 1, 1, 3, 1, 0),
			wantShape: []int{1, 1, 4, 1},
			wantOut:   []float32{9, 9, 8, 8},
			wantIndex: []float32{1.1, 0.1, 2.1, 1.1},
		},
		{
			// SAME over 3 with a 2-wide window, stride 2: no leading
			// padding; the second window holds only the last column.
			name:      "same-trailing",
			shape:     []int{1, 1, 3, 2},
			in:        []float32{1, -1, 2, -2, 3, -3},
			opts:      segPoolOpts(padSame, 2, 1, 2, 1, 0),
			wantShape: []int{1, 1, 2, 2},
			wantOut:   []float32{2, -1, 3, -3},
			wantIndex: []float32{1.1, 0.1, 0.1, 0.1},
		},
		{
			// All −Inf (and NaN): the running maximum −FLT_MAX stays, index
			// 0.1; RELU6 clamps the second channel.
			name:      "empty-max-relu6",
			shape:     []int{1, 1, 2, 2},
			in:        []float32{float32(math.Inf(-1)), 7, nan, 9},
			opts:      segPoolOpts(padValid, 2, 1, 2, 1, int32(ops.ActRelu6)),
			wantShape: []int{1, 1, 1, 2},
			wantOut:   []float32{0, 6},
			wantIndex: []float32{0.1, 1.1},
		},
		{
			name:      "none-lowest",
			shape:     []int{1, 1, 2, 1},
			in:        []float32{float32(math.Inf(-1)), nan},
			opts:      segPoolOpts(padValid, 2, 1, 2, 1, 0),
			wantShape: []int{1, 1, 1, 1},
			wantOut:   []float32{-math.MaxFloat32},
			wantIndex: []float32{0.1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := argmaxNode(segF32(c.shape, c.in), c.opts)
			if err := segRun(NewMaxPoolingWithArgmax2D(), n); err != nil {
				t.Fatal(err)
			}
			for i, o := range n.Outputs {
				if !ops.SameShape(o.Shape, c.wantShape) {
					t.Fatalf("output %d shape %v, want %v", i, o.Shape, c.wantShape)
				}
			}
			segEqual(t, "out", n.Outputs[0].Float32s(), c.wantOut)
			segEqual(t, "indices", n.Outputs[1].Float32s(), c.wantIndex)
		})
	}
}

func TestMaxPoolingWithArgmax2DAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300; i++ {
		shape := []int{1 + r.IntN(2), 1 + r.IntN(9), 1 + r.IntN(9), 1 + r.IntN(5)}
		fh, fw := 1+r.IntN(4), 1+r.IntN(4)
		sh, sw := 1+r.IntN(3), 1+r.IntN(3)
		same := r.IntN(2) == 0
		if !same && (fh > shape[1] || fw > shape[2]) {
			continue
		}
		padding := padValid
		if same {
			padding = padSame
		}
		act := ops.Activation(r.IntN(4))
		lo, hi, _ := floatActivationRange(act)
		in := segRand(r, shape[0]*shape[1]*shape[2]*shape[3], -8, 8)
		for j := range in {
			in[j] = float32(math.Round(float64(in[j]))) // ties
		}
		name := fmt.Sprintf("%d:%v f%dx%d s%dx%d same=%v act=%d", i, shape, fh, fw, sh, sw, same, act)
		n := argmaxNode(segF32(shape, in), segPoolOpts(padding, int32(sw), int32(sh), int32(fw), int32(fh), int32(act)))
		if err := segRun(NewMaxPoolingWithArgmax2D(), n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantOut, wantIdx, wantShape := argmaxReference(in, shape, same, sw, sh, fw, fh, lo, hi)
		if !ops.SameShape(n.Outputs[0].Shape, wantShape) {
			t.Fatalf("%s: shape %v, want %v", name, n.Outputs[0].Shape, wantShape)
		}
		segEqual(t, name+" out", n.Outputs[0].Float32s(), wantOut)
		segEqual(t, name+" indices", n.Outputs[1].Float32s(), wantIdx)
	}
}

func TestMaxPoolingWithArgmax2DErrors(t *testing.T) {
	good := func() *ops.Node {
		return argmaxNode(segF32([]int{1, 4, 4, 2}, nil), segPoolOpts(padSame, 2, 2, 2, 2, 0))
	}
	if err := segRun(NewMaxPoolingWithArgmax2D(), good()); err != nil {
		t.Fatalf("valid node refused: %v", err)
	}
	// The 24 bytes of fields alone are enough.
	n := good()
	n.CustomOptions = n.CustomOptions[:24]
	if err := segRun(NewMaxPoolingWithArgmax2D(), n); err != nil {
		t.Fatalf("24-byte options refused: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(n *ops.Node)
		want   []string
	}{
		{"no options", func(n *ops.Node) { n.CustomOptions = nil }, []string{"custom_options", "at least 24"}},
		{"short options", func(n *ops.Node) { n.CustomOptions = n.CustomOptions[:20] }, []string{"custom_options", "20 bytes"}},
		{"padding unknown", func(n *ops.Node) { n.CustomOptions = segPoolOpts(0, 2, 2, 2, 2, 0) }, []string{"padding 0"}},
		{"stride 0", func(n *ops.Node) { n.CustomOptions = segPoolOpts(1, 0, 2, 2, 2, 0) }, []string{"strides"}},
		{"filter negative", func(n *ops.Node) { n.CustomOptions = segPoolOpts(1, 2, 2, -2, 2, 0) }, []string{"filter"}},
		{"filter huge", func(n *ops.Node) { n.CustomOptions = segPoolOpts(1, 2, 2, 2, 1<<20, 0) }, []string{"filter"}},
		{"activation tanh", func(n *ops.Node) { n.CustomOptions = segPoolOpts(1, 2, 2, 2, 2, 4) }, []string{"activation 4"}},
		{"activation junk", func(n *ops.Node) { n.CustomOptions = segPoolOpts(1, 2, 2, 2, 2, -7) }, []string{"activation -7"}},
		{"valid window too big", func(n *ops.Node) { n.CustomOptions = segPoolOpts(2, 1, 1, 5, 5, 0) }, []string{"output 0", "positive"}},
		{"one output", func(n *ops.Node) { n.Outputs = n.Outputs[:1] }, []string{"outputs"}},
		{"two inputs", func(n *ops.Node) { n.Inputs = append(n.Inputs, n.Inputs[0]) }, []string{"inputs"}},
		{"int32 indices", func(n *ops.Node) { n.Outputs[1] = segOut(ops.Int32) }, []string{"float32"}},
		{"rank 3", func(n *ops.Node) { n.Inputs[0] = segF32([]int{4, 4, 2}, nil) }, []string{"rank 4"}},
		{"uint8", func(n *ops.Node) {
			n.Inputs[0] = &ops.Tensor{Type: ops.Uint8, Shape: []int{1, 4, 4, 2}, Data: make([]byte, 32)}
		}, []string{"float32"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := good()
			c.mutate(n)
			segWantErr(t, segRun(NewMaxPoolingWithArgmax2D(), n), c.want...)
		})
	}
	segWantErr(t, NewMaxPoolingWithArgmax2D().Eval(good()), MaxPoolingWithArgmax2DName)
}

// BenchmarkMaxPoolingWithArgmax2D runs the hair segmentation model's
// three poolings (2×2, stride 2).
func BenchmarkMaxPoolingWithArgmax2D(b *testing.B) {
	for _, shape := range [][]int{{1, 128, 128, 32}, {1, 64, 64, 64}, {1, 32, 32, 128}} {
		b.Run(fmt.Sprint(shape), func(b *testing.B) {
			r := rand.New(rand.NewPCG(9, 10))
			n := argmaxNode(segF32(shape, segRand(r, shape[0]*shape[1]*shape[2]*shape[3], -1, 1)), segPoolOpts(padSame, 2, 2, 2, 2, 0))
			k := NewMaxPoolingWithArgmax2D()
			if err := segPrepare(k, n); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := k.Eval(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMaxPoolingWithArgmax2DThreads splits the output rows over 3
// threads (every range split, whatever its work): the outputs equal one
// thread's bit for bit.
func TestMaxPoolingWithArgmax2DThreads(t *testing.T) {
	defer parallel.SetMinWork(parallel.SetMinWork(0))
	pool := parallel.New(3)
	defer pool.Stop()
	r := rand.New(rand.NewPCG(19, 20))
	for _, shape := range [][]int{{1, 9, 7, 5}, {2, 16, 16, 8}, {3, 1, 4, 2}} {
		in := segRand(r, shape[0]*shape[1]*shape[2]*shape[3], -1, 1)
		opts := segPoolOpts(padSame, 2, 2, 3, 2, 0)
		one := argmaxNode(segF32(shape, in), opts)
		if err := segRun(NewMaxPoolingWithArgmax2D(), one); err != nil {
			t.Fatal(err)
		}
		many := argmaxNode(segF32(shape, in), opts)
		many.Pool = pool
		if err := segRun(NewMaxPoolingWithArgmax2D(), many); err != nil {
			t.Fatal(err)
		}
		for j := range one.Outputs {
			segEqual(t, fmt.Sprintf("%v output %d", shape, j), many.Outputs[j].Float32s(), one.Outputs[j].Float32s())
		}
	}
}
