package perception

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// tconvNode is a Convolution2DTransposeBias node with constant weights
// [outC, fH, fW, inC] and bias.
func tconvNode(in *ops.Tensor, wShape []int, w, bias []float32, padding, strideW, strideH int32) *ops.Node {
	return segNode(Convolution2DTransposeBiasName, segInts(padding, strideW, strideH),
		[]*ops.Tensor{in, segConst(segF32(wShape, w)), segConst(segF32([]int{len(bias)}, bias))},
		segOut(ops.Float32))
}

// tconvReference is MediaPipe's TransposeConvBias loop as written
// upstream: every output starts at its bias, then for each input pixel
// and channel, each tap and output channel, out += in·w in float32.
func tconvReference(in []float32, inShape []int, w []float32, wShape []int, bias []float32, same bool, strideW, strideH int) ([]float32, []int) {
	b, h, wd, ic := inShape[0], inShape[1], inShape[2], inShape[3]
	oc, fh, fw := wShape[0], wShape[1], wShape[2]
	geom := func(in, f, s int) (int, int) {
		p := 0
		if same {
			p = max(0, f-(in-1)%s-1)
		}
		return s*(in-1) + f - p, p / 2
	}
	oh, padT := geom(h, fh, strideH)
	ow, padL := geom(wd, fw, strideW)
	out := make([]float32, b*oh*ow*oc)
	for n := 0; n < b; n++ {
		for p := 0; p < oh*ow; p++ {
			copy(out[(n*oh*ow+p)*oc:], bias)
		}
		for iy := 0; iy < h; iy++ {
			for ix := 0; ix < wd; ix++ {
				for c := 0; c < ic; c++ {
					for fy := 0; fy < fh; fy++ {
						for fx := 0; fx < fw; fx++ {
							for o := 0; o < oc; o++ {
								y, x := iy*strideH-padT+fy, ix*strideW-padL+fx
								if y >= 0 && y < oh && x >= 0 && x < ow {
									out[((n*oh+y)*ow+x)*oc+o] += in[((n*h+iy)*wd+ix)*ic+c] * w[((o*fh+fy)*fw+fx)*ic+c]
								}
							}
						}
					}
				}
			}
		}
	}
	return out, []int{b, oh, ow, oc}
}

func TestConvolution2DTransposeBiasHand(t *testing.T) {
	cases := []struct {
		name            string
		inShape, wShape []int
		in, w, bias     []float32
		padding, sw, sh int32
		wantShape       []int
		want            []float32
	}{
		{
			// VALID, stride 2, 2×2 filter: every input spreads over its
			// own 2×2 block.
			name: "valid", inShape: []int{1, 2, 2, 1}, wShape: []int{1, 2, 2, 1},
			in: []float32{1, 2, 3, 4}, w: []float32{1, 2, 3, 4}, bias: []float32{0.5},
			padding: padValid, sw: 2, sh: 2, wantShape: []int{1, 4, 4, 1},
			want: []float32{
				1.5, 2.5, 2.5, 4.5,
				3.5, 4.5, 6.5, 8.5,
				3.5, 6.5, 4.5, 8.5,
				9.5, 12.5, 12.5, 16.5},
		},
		{
			// SAME, width: in 2, filter 3, stride 2: total padding 1, so
			// the output is 4 wide, none of it leading; the last tap of
			// the second input falls off the end.
			name: "same-trailing", inShape: []int{1, 1, 2, 1}, wShape: []int{1, 1, 3, 1},
			in: []float32{1, 2}, w: []float32{1, 10, 100}, bias: []float32{0},
			padding: padSame, sw: 2, sh: 2, wantShape: []int{1, 1, 4, 1},
			want: []float32{1, 10, 102, 20},
		},
		{
			// SAME, width: in 2, filter 4, stride 1: total padding 3, one
			// of it leading.
			name: "same-leading", inShape: []int{1, 1, 2, 1}, wShape: []int{1, 1, 4, 1},
			in: []float32{1, 2}, w: []float32{1, 10, 100, 1000}, bias: []float32{-1},
			padding: padSame, sw: 1, sh: 1, wantShape: []int{1, 1, 2, 1},
			want: []float32{11, 119},
		},
		{
			// Two input and two output channels, 1×1 filter, stride 1.
			name: "channels", inShape: []int{1, 1, 1, 2}, wShape: []int{2, 1, 1, 2},
			in: []float32{1, 2}, w: []float32{3, 4, 5, 6}, bias: []float32{1, 2},
			padding: padValid, sw: 1, sh: 1, wantShape: []int{1, 1, 1, 2},
			want: []float32{12, 19},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := tconvNode(segF32(c.inShape, c.in), c.wShape, c.w, c.bias, c.padding, c.sw, c.sh)
			if err := segRun(NewConvolution2DTransposeBias(), n); err != nil {
				t.Fatal(err)
			}
			if !ops.SameShape(n.Outputs[0].Shape, c.wantShape) {
				t.Fatalf("shape %v, want %v", n.Outputs[0].Shape, c.wantShape)
			}
			segEqual(t, "out", n.Outputs[0].Float32s(), c.want)
		})
	}
}

// TestConvolution2DTransposeBiasAgainstReference compares random cases
// with MediaPipe's loop, and with TFLite's TRANSPOSE_CONV kernel plus the
// bias (an independent formulation of the same operator).
func TestConvolution2DTransposeBiasAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	compared := 0
	for i := 0; i < 200; i++ {
		b := 1 + r.IntN(2)
		h, w := 1+r.IntN(6), 1+r.IntN(6)
		ic, oc := 1+r.IntN(20), 1+r.IntN(9)
		fh, fw := 1+r.IntN(4), 1+r.IntN(4)
		sh, sw := 1+r.IntN(3), 1+r.IntN(3)
		if i%10 == 0 {
			ic = 32 + r.IntN(40) // longer dot products
		}
		same := r.IntN(2) == 0
		padding := padValid
		if same {
			padding = padSame
		}
		inShape, wShape := []int{b, h, w, ic}, []int{oc, fh, fw, ic}
		in := segRand(r, b*h*w*ic, -1, 1)
		wt := segRand(r, oc*fh*fw*ic, -1, 1)
		bias := segRand(r, oc, -1, 1)
		name := fmt.Sprintf("%d:in%v w%v s%dx%d same=%v", i, inShape, wShape, sh, sw, same)
		want, wantShape := tconvReference(in, inShape, wt, wShape, bias, same, sw, sh)

		constW := i%3 != 0
		wT := segF32(wShape, wt)
		if constW {
			segConst(wT)
		}
		n := segNode(Convolution2DTransposeBiasName, segInts(padding, int32(sw), int32(sh)),
			[]*ops.Tensor{segF32(inShape, in), wT, segF32([]int{oc}, bias)}, segOut(ops.Float32))
		k := NewConvolution2DTransposeBias()
		if err := segRun(k, n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !ops.SameShape(n.Outputs[0].Shape, wantShape) {
			t.Fatalf("%s: shape %v, want %v", name, n.Outputs[0].Shape, wantShape)
		}
		segClose(t, name, n.Outputs[0].Float32s(), want, 1e-5)
		// A second Eval (constant weights laid out once) gives the same.
		first := append([]float32(nil), n.Outputs[0].Float32s()...)
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		segEqual(t, name+" again", n.Outputs[0].Float32s(), first)

		// TRANSPOSE_CONV with the same geometry, then the bias.
		bpad := ops.PaddingValid
		if same {
			bpad = ops.PaddingSame
		}
		shapeT := segConst(segI32([]int{4}, []int32{int32(b), int32(wantShape[1]), int32(wantShape[2]), int32(oc)}))
		bn := &ops.Node{OpName: "TRANSPOSE_CONV", Version: 1,
			Inputs:  []*ops.Tensor{shapeT, segConst(segF32(wShape, wt)), segF32(inShape, in)},
			Outputs: []*ops.Tensor{segOut(ops.Float32)},
			Options: &builtin.TransposeConvOptions{Padding: bpad, StrideW: sw, StrideH: sh}}
		if err := segRun(builtin.NewTransposeConv(), bn); err != nil {
			// TFLite's TRANSPOSE_CONV checks that a forward convolution
			// of the output gives the input back, which MediaPipe's
			// geometry does not always satisfy.
			continue
		}
		alt := bn.Outputs[0].Float32s()
		for j := range alt {
			alt[j] += bias[j%oc]
		}
		segClose(t, name+" vs TRANSPOSE_CONV+bias", n.Outputs[0].Float32s(), alt, 1e-5)
		compared++
	}
	if compared < 100 {
		t.Fatalf("only %d of 200 cases compared with TRANSPOSE_CONV", compared)
	}
}

func TestConvolution2DTransposeBiasErrors(t *testing.T) {
	good := func() *ops.Node {
		return tconvNode(segF32([]int{1, 2, 2, 3}, nil), []int{4, 3, 3, 3}, make([]float32, 108), make([]float32, 4), padSame, 2, 2)
	}
	if err := segRun(NewConvolution2DTransposeBias(), good()); err != nil {
		t.Fatalf("valid node refused: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(n *ops.Node)
		want   []string
	}{
		{"no options", func(n *ops.Node) { n.CustomOptions = nil }, []string{"custom_options", "0 bytes", "at least 12"}},
		{"short options", func(n *ops.Node) { n.CustomOptions = n.CustomOptions[:11] }, []string{"custom_options", "11 bytes"}},
		{"padding 0", func(n *ops.Node) { n.CustomOptions = segInts(0, 2, 2) }, []string{"padding 0"}},
		{"padding 3", func(n *ops.Node) { n.CustomOptions = segInts(3, 2, 2) }, []string{"padding 3"}},
		{"stride 0", func(n *ops.Node) { n.CustomOptions = segInts(1, 0, 2) }, []string{"strides"}},
		{"stride negative", func(n *ops.Node) { n.CustomOptions = segInts(1, 2, -1) }, []string{"strides"}},
		{"stride huge", func(n *ops.Node) { n.CustomOptions = segInts(2, 1<<30, 1<<30) }, []string{"strides"}},
		{"two inputs", func(n *ops.Node) { n.Inputs = n.Inputs[:2] }, []string{"inputs"}},
		{"bias omitted", func(n *ops.Node) { n.Inputs[2] = nil }, []string{"bias"}},
		{"input rank 3", func(n *ops.Node) { n.Inputs[0] = segF32([]int{2, 2, 3}, nil) }, []string{"input 0", "rank 4"}},
		{"input int8", func(n *ops.Node) {
			n.Inputs[0] = &ops.Tensor{Type: ops.Int8, Shape: []int{1, 2, 2, 3}, Data: make([]byte, 12)}
		}, []string{"input 0", "float32"}},
		{"weights rank 2", func(n *ops.Node) { n.Inputs[1] = segConst(segF32([]int{4, 27}, make([]float32, 108))) }, []string{"weights", "rank 4"}},
		{"channel mismatch", func(n *ops.Node) { n.Inputs[0] = segF32([]int{1, 2, 2, 2}, nil) }, []string{"input channels"}},
		{"bias length", func(n *ops.Node) { n.Inputs[2] = segConst(segF32([]int{3}, nil)) }, []string{"bias", "3 elements"}},
		{"bias matrix", func(n *ops.Node) { n.Inputs[2] = segConst(segF32([]int{1, 4}, nil)) }, []string{"bias", "vector"}},
		{"output int32", func(n *ops.Node) { n.Outputs[0] = segOut(ops.Int32) }, []string{"output 0", "float32"}},
		{"zero width", func(n *ops.Node) { n.Inputs[0] = segF32([]int{1, 2, 0, 3}, nil) }, []string{"positive"}},
		{"huge output", func(n *ops.Node) {
			n.CustomOptions = segInts(2, 30000, 30000)
			n.Inputs[0] = segF32([]int{1, 200, 200, 3}, nil)
		}, []string{"output 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := good()
			c.mutate(n)
			segWantErr(t, segRun(NewConvolution2DTransposeBias(), n), c.want...)
		})
	}
	// Eval without Prepare is an error naming the operator.
	segWantErr(t, NewConvolution2DTransposeBias().Eval(good()), Convolution2DTransposeBiasName)
}

// TestConvolution2DTransposeBiasOptionsLength accepts options longer
// than the three fields read (the rest of TfLiteTransposeConvParams).
func TestConvolution2DTransposeBiasOptionsLength(t *testing.T) {
	n := tconvNode(segF32([]int{1, 1, 1, 1}, []float32{2}), []int{1, 1, 1, 1}, []float32{3}, []float32{1}, padValid, 1, 1)
	n.CustomOptions = segInts(padValid, 1, 1, 0, 0)
	if err := segRun(NewConvolution2DTransposeBias(), n); err != nil {
		t.Fatal(err)
	}
	segEqual(t, "out", n.Outputs[0].Float32s(), []float32{7})
}

// BenchmarkConvolution2DTransposeBias runs the shapes of the segmentation
// models' decoders (selfie: the last layer; hair: the last two).
func BenchmarkConvolution2DTransposeBias(b *testing.B) {
	shapes := []struct {
		name            string
		inShape, wShape []int
	}{
		{"selfie-128x128x16-to-1", []int{1, 128, 128, 16}, []int{1, 2, 2, 16}},
		{"hair-128x128x32-to-8", []int{1, 128, 128, 32}, []int{8, 2, 2, 32}},
		{"hair-256x256x8-to-2", []int{1, 256, 256, 8}, []int{2, 2, 2, 8}},
		{"hair-64x64x4-3x3", []int{1, 64, 64, 4}, []int{4, 3, 3, 4}},
	}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(7, 8))
			in := segRand(r, s.inShape[0]*s.inShape[1]*s.inShape[2]*s.inShape[3], -1, 1)
			w := segRand(r, s.wShape[0]*s.wShape[1]*s.wShape[2]*s.wShape[3], -1, 1)
			n := tconvNode(segF32(s.inShape, in), s.wShape, w, segRand(r, s.wShape[0], -1, 1), padSame, 2, 2)
			k := NewConvolution2DTransposeBias()
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

// TestConvolution2DTransposeBiasThreads runs non-overlapping geometries
// (a GEMM straight into the output, the set-once scatter) and an
// overlapping one on 3 threads, every range split: the outputs equal
// one thread's bit for bit.
func TestConvolution2DTransposeBiasThreads(t *testing.T) {
	defer parallel.SetMinWork(parallel.SetMinWork(0))
	pool := parallel.New(3)
	defer pool.Stop()
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		inShape, wShape []int
		s               int32
	}{
		{[]int{2, 8, 6, 16}, []int{8, 2, 2, 16}, 2}, // direct
		{[]int{1, 7, 5, 16}, []int{8, 2, 2, 16}, 2}, // set-once scatter (cropped)
		{[]int{1, 9, 6, 8}, []int{1, 2, 2, 8}, 2},   // set-once scatter
		{[]int{1, 5, 4, 4}, []int{3, 3, 3, 4}, 2},   // overlapping taps
	} {
		in := segRand(r, c.inShape[0]*c.inShape[1]*c.inShape[2]*c.inShape[3], -1, 1)
		w := segRand(r, c.wShape[0]*c.wShape[1]*c.wShape[2]*c.wShape[3], -1, 1)
		bias := segRand(r, c.wShape[0], -1, 1)
		one := tconvNode(segF32(c.inShape, in), c.wShape, w, bias, padSame, c.s, c.s)
		if err := segRun(NewConvolution2DTransposeBias(), one); err != nil {
			t.Fatal(err)
		}
		many := tconvNode(segF32(c.inShape, in), c.wShape, w, bias, padSame, c.s, c.s)
		many.Pool = pool
		if err := segRun(NewConvolution2DTransposeBias(), many); err != nil {
			t.Fatal(err)
		}
		segEqual(t, fmt.Sprint(c.inShape, c.wShape), many.Outputs[0].Float32s(), one.Outputs[0].Float32s())
	}
}
