package perception

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// poolArgmaxOpts writes LiteRT's MaxPoolWithArgmax options as its test
// does: a FlexBuffer map of include_batch_in_index, padding, ksize and
// strides.
func poolArgmaxOpts(t testing.TB, padding string, ksize, strides []int64, batchIdx bool) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("include_batch_in_index")
	b.Bool(batchIdx)
	b.Key("padding")
	b.String(padding)
	for _, kv := range []struct {
		key string
		v   []int64
	}{{"ksize", ksize}, {"strides", strides}} {
		b.Key(kv.key)
		v := b.StartVector()
		for _, x := range kv.v {
			b.Int(x)
		}
		b.EndVector(v, true, false)
	}
	b.EndMap(m)
	out, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// litePoolNode is a MaxPoolWithArgmax node.
func litePoolNode(in *ops.Tensor, opts []byte) *ops.Node {
	return segNode(MaxPoolWithArgmaxName, opts, []*ops.Tensor{in}, segOut(ops.Float32), segOut(ops.Int32))
}

// TestMaxPoolWithArgmaxLiteRTVectors runs the cases of LiteRT's
// max_pool_with_argmax_test.cc.
func TestMaxPoolWithArgmaxLiteRTVectors(t *testing.T) {
	batchSame := []float32{0, 0, 1, 0, 0, 0, 0, 0, 3, 4, 0, 0, 5, 0, 0, 6,
		0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 8, 9, 0, 0, 10,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 0,
		0, 16, 0, 0, 0, 0, 0, 0, 11, 0, 0, 12, 0, 0, 0, 14,
		13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		17, 18, 0, 0, 0, 30, 0, 20, 0, 0, 0, 0, 0, 0, 21, 0,
		0, 0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 19, 0,
		0, 0, 0, 22, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 0, 0,
		0, 0, 27, 28, 0, 0, 0, 0, 29, 0, 0, 0, 0, 0, 0, 32,
		0, 0, 0, 0, 25, 26, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 31, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	batchValid := []float32{0, 0, 1, 0, 0, 0, 0, 0, 3, 4, 0, 0, 5, 0, 0, 6,
		0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 8, 9, 0, 0, 10,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 0,
		0, 16, 0, 0, 0, 0, 0, 0, 11, 0, 0, 12, 0, 0, 0, 14,
		13, 0, 0, 0, 0, 0, 0, 0, 17, 18, 0, 0, 0, 30, 0, 20,
		0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 24, 0, 0,
		0, 0, 0, 0, 0, 0, 19, 0, 0, 0, 0, 22, 0, 0, 0, 0,
		0, 0, 23, 0, 0, 0, 0, 0, 0, 0, 27, 28, 0, 0, 0, 0,
		29, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 25, 26, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 31, 0}
	cases := []struct {
		name      string
		shape     []int
		in        []float32
		padding   string
		sh, sw    int64
		fh, fw    int64
		wantShape []int
		want      []float32
		wantIdx   []int32
	}{
		{"simple", []int{1, 2, 4, 1}, []float32{0, 13, 2, 0, 0, 1, 4, 0}, "SAME", 2, 2, 2, 2,
			[]int{1, 1, 2, 1}, []float32{13, 4}, []int32{1, 6}},
		{"strides2x1", []int{1, 4, 2, 2}, []float32{1, 0, 0, 2, 3, 0, 0, 4, 5, 0, 0, 6, 7, 0, 0, 8}, "SAME", 2, 1, 2, 2,
			[]int{1, 2, 2, 2}, []float32{3, 4, 0, 4, 7, 8, 0, 8}, []int32{4, 7, 2, 7, 12, 15, 10, 15}},
		{"strides2x2", []int{1, 4, 8, 1}, []float32{1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 4, 0, 0,
			0, 0, 0, 5, 6, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 8}, "SAME", 2, 2, 2, 2,
			[]int{1, 2, 4, 1}, []float32{1, 3, 4, 0, 0, 7, 6, 8}, []int32{0, 10, 13, 6, 16, 27, 20, 31}},
		{"strides2x2-unfit", []int{1, 4, 7, 1}, []float32{1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 4,
			0, 0, 0, 0, 0, 5, 6, 0, 0, 0, 0, 0, 0, 7}, "SAME", 2, 2, 2, 2,
			[]int{1, 2, 4, 1}, []float32{1, 3, 2, 4, 0, 0, 5, 7}, []int32{0, 10, 5, 13, 14, 16, 19, 27}},
		{"valid", []int{1, 4, 5, 1}, []float32{0, 0, 0, 0, 0, 0, 7, 0, 0, 10, 0, 0, 0, 0, 0, 0, 20, 0, 0, 19}, "VALID", 2, 2, 2, 3,
			[]int{1, 2, 2, 1}, []float32{7, 10, 20, 19}, []int32{6, 9, 16, 19}},
		{"valid-unfit", []int{1, 4, 6, 1}, []float32{0, 0, 0, 0, 0, 0, 7, 0, 0, 10, 0, 0,
			0, 0, 0, 0, 20, 0, 0, 19, 24, 1, 2, 44}, "VALID", 2, 2, 2, 3,
			[]int{1, 2, 2, 1}, []float32{7, 10, 24, 24}, []int32{6, 9, 20, 20}},
		{"batch-same", []int{2, 4, 12, 2}, batchSame, "SAME", 2, 3, 2, 2, []int{2, 2, 4, 2},
			[]float32{1, 0, 3, 4, 5, 6, 9, 8, 11, 12, 13, 14, 15, 0, 0, 0, 17, 18, 19, 20, 21, 0, 23, 24, 27, 28, 29, 0, 31, 32, 25, 26},
			[]int32{2, 1, 8, 9, 12, 15, 44, 43, 72, 75, 80, 79, 62, 61, 66, 67, 0, 1, 30, 7, 14, 13, 42, 21, 50, 51, 56, 55, 86, 63, 68, 69}},
		{"batch-valid", []int{2, 4, 11, 2}, batchValid, "VALID", 2, 3, 2, 2, []int{2, 2, 4, 2},
			[]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 0, 31, 32},
			[]int32{2, 23, 8, 9, 12, 15, 40, 43, 44, 47, 72, 75, 80, 79, 62, 65, 0, 1, 30, 7, 14, 35, 42, 21, 68, 69, 50, 51, 56, 57, 86, 63}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := litePoolNode(segF32(c.shape, c.in), poolArgmaxOpts(t, c.padding, []int64{1, c.fh, c.fw, 1}, []int64{1, c.sh, c.sw, 1}, false))
			if err := segRun(NewMaxPoolWithArgmax(), n); err != nil {
				t.Fatal(err)
			}
			for i, o := range n.Outputs {
				if !ops.SameShape(o.Shape, c.wantShape) {
					t.Fatalf("output %d shape %v, want %v", i, o.Shape, c.wantShape)
				}
			}
			segEqual(t, "out", n.Outputs[0].Float32s(), c.want)
			got := n.Outputs[1].Int32s()
			for i := range c.wantIdx {
				if got[i] != c.wantIdx[i] {
					t.Fatalf("indices %v, want %v", got, c.wantIdx)
				}
			}
		})
	}
}

// TestMaxPoolWithArgmaxAgainstMediaPipe pools random images with both
// kernels: the maxima agree, and LiteRT's image positions are MediaPipe's
// window positions mapped into the image.
func TestMaxPoolWithArgmaxAgainstMediaPipe(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for i := 0; i < 100; i++ {
		shape := []int{1 + r.IntN(2), 1 + r.IntN(8), 1 + r.IntN(8), 1 + r.IntN(4)}
		f, s := int64(1+r.IntN(3)), int64(1+r.IntN(3))
		padding, mpPad := "SAME", padSame
		if r.IntN(2) == 0 && int(f) <= min(shape[1], shape[2]) {
			padding, mpPad = "VALID", padValid
		}
		name := fmt.Sprintf("%d:%v f%d s%d %s", i, shape, f, s, padding)
		in := segRand(r, shape[0]*shape[1]*shape[2]*shape[3], -1, 1)
		lite := litePoolNode(segF32(shape, in), poolArgmaxOpts(t, padding, []int64{1, f, f, 1}, []int64{1, s, s, 1}, false))
		if err := segRun(NewMaxPoolWithArgmax(), lite); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		mp := argmaxNode(segF32(shape, in), segPoolOpts(mpPad, int32(s), int32(s), int32(f), int32(f), 0))
		if err := segRun(NewMaxPoolingWithArgmax2D(), mp); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		segEqual(t, name+" maxima", lite.Outputs[0].Float32s(), mp.Outputs[0].Float32s())
		// Map MediaPipe's window positions to image positions.
		oh, ow, c := mp.Outputs[0].Shape[1], mp.Outputs[0].Shape[2], shape[3]
		padT := max(((oh-1)*int(s)+int(f)-shape[1])/2, 0)
		padL := max(((ow-1)*int(s)+int(f)-shape[2])/2, 0)
		li, mi := lite.Outputs[1].Int32s(), mp.Outputs[1].Float32s()
		for j := range li {
			ch, ox, oy := j%c, j/c%ow, j/c/ow%oh
			wpos := int(mi[j])
			y, x := oy*int(s)-padT+wpos/int(f), ox*int(s)-padL+wpos%int(f)
			if want := int32((y*shape[2]+x)*c + ch); li[j] != want {
				t.Fatalf("%s: index %d = %d, MediaPipe's window position %g gives %d", name, j, li[j], mi[j], want)
			}
		}
	}
}

func TestMaxPoolWithArgmaxErrors(t *testing.T) {
	opts := func(padding string, k, s []int64, b bool) []byte { return poolArgmaxOpts(t, padding, k, s, b) }
	good := func() *ops.Node {
		return litePoolNode(segF32([]int{1, 4, 4, 2}, nil), opts("SAME", []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, false))
	}
	if err := segRun(NewMaxPoolWithArgmax(), good()); err != nil {
		t.Fatalf("valid node refused: %v", err)
	}
	cases := []struct {
		name string
		opts []byte
		want []string
	}{
		{"no options", nil, []string{"custom_options", "missing"}},
		{"not a flexbuffer", []byte{1, 2, 3}, []string{"custom_options"}},
		{"batch in index", opts("SAME", []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, true), []string{"include_batch_in_index"}},
		{"padding", opts("FULL", []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, false), []string{"padding \"FULL\""}},
		{"ksize 3", opts("SAME", []int64{1, 2, 2}, []int64{1, 2, 2, 1}, false), []string{"ksize", "3 elements"}},
		{"ksize batch", opts("SAME", []int64{2, 2, 2, 1}, []int64{1, 2, 2, 1}, false), []string{"ksize", "[1, h, w, 1]"}},
		{"stride 0", opts("SAME", []int64{1, 2, 2, 1}, []int64{1, 0, 2, 1}, false), []string{"strides"}},
		{"stride huge", opts("SAME", []int64{1, 2, 2, 1}, []int64{1, 1 << 40, 2, 1}, false), []string{"strides"}},
		{"valid too big", opts("VALID", []int64{1, 5, 5, 1}, []int64{1, 1, 1, 1}, false), []string{"output 0", "positive"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := good()
			n.CustomOptions = c.opts
			segWantErr(t, segRun(NewMaxPoolWithArgmax(), n), c.want...)
		})
	}
	n := good()
	n.Outputs[1] = segOut(ops.Int64)
	segWantErr(t, segRun(NewMaxPoolWithArgmax(), n), "indices", "int32")
	n = good()
	n.Inputs[0] = segF32([]int{4, 4, 2}, nil)
	segWantErr(t, segRun(NewMaxPoolWithArgmax(), n), "rank 4")
	segWantErr(t, NewMaxPoolWithArgmax().Eval(good()), MaxPoolWithArgmaxName)
	// Every byte of valid options corrupted: an error or a kernel that
	// runs, never a panic.
	base := good().CustomOptions
	for i := range base {
		for _, v := range []byte{0, 0x7f, 0x80, 0xff} {
			o := append([]byte(nil), base...)
			o[i] = v
			n := good()
			n.CustomOptions = o
			_ = segRun(NewMaxPoolWithArgmax(), n)
		}
	}
}
