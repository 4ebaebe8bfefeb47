package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// resizeBilinearUint8Ref is the uint8 RESIZE_BILINEAR loop as it was
// before arch.BilinearU8 (TFLite's ResizeBilinearGenericSmallChannel,
// one channel at a time), kept as the reference of the kernel's vector
// and scalar paths.
func resizeBilinearUint8Ref(k *ResizeBilinear, src, dst []byte, lo, hi int) {
	g := &k.g
	d := g.depth
	o := lo * g.outW * d
	for r := lo; r < hi; r++ {
		base := r / g.outH * g.inH * g.inW * d
		ty := k.ys[r%g.outH]
		r0 := base + ty.lo*g.inW*d
		r1 := base + ty.hi*g.inW*d
		dy := ty.frac
		for _, tx := range k.xs {
			dx := tx.frac
			w00 := float32((1 - dy) * (1 - dx))
			w01 := float32((1 - dy) * dx)
			w10 := float32(dy * (1 - dx))
			w11 := float32(dy * dx)
			p00, p01 := src[r0+tx.lo*d:r0+tx.lo*d+d], src[r0+tx.hi*d:r0+tx.hi*d+d]
			p10, p11 := src[r1+tx.lo*d:r1+tx.lo*d+d], src[r1+tx.hi*d:r1+tx.hi*d+d]
			row := dst[o : o+d]
			for c := range row {
				v := float32(float32(p00[c])*w00) + float32(float32(p01[c])*w01)
				v = float32(v+float32(float32(p10[c])*w10)) + float32(float32(p11[c])*w11)
				row[c] = uint8(f32ToInt32(v + 0.5))
			}
			o += d
		}
	}
}

// forceTapsU8 gives k the taps of the arch.BilinearRowU8 path also below
// bilinearU8VectorDepth.
func forceTapsU8(t testing.TB, k *ResizeBilinear) {
	t.Helper()
	var lo, hi []int
	var frac []float32
	for _, tx := range k.xs {
		lo, hi, frac = append(lo, tx.lo), append(hi, tx.hi), append(frac, tx.frac)
	}
	tp, err := arch.NewBilinearTaps(lo, hi, frac, k.g.depth)
	if err != nil {
		t.Fatal(err)
	}
	k.taps = tp
}

// TestResizeBilinearUint8MatchesScalar holds uint8 RESIZE_BILINEAR (the
// arch.BilinearU8 path from bilinearU8VectorDepth channels, the scalar
// loop below) to the loop it replaced, byte for byte, at every
// instruction-set level: depths 1..70, batches of 1 and 2, random sizes
// up and down, every corner option (half-pixel centres extrapolate
// before the first pixel: negative fractions, weights above 1), bytes
// crowded at 0 and 255; each case also on 2, 3 and 4 threads (resizeRun
// sweeps them), and both paths at every depth, from row 0 and from the
// middle row on.
func TestResizeBilinearUint8MatchesScalar(t *testing.T) {
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	for _, lvl := range arch.Levels() {
		if err := arch.Use(lvl); err != nil {
			t.Fatal(err)
		}
		r := lcg(97)
		for trial := 0; trial < 210; trial++ {
			d := trial%70 + 1
			shape := []int{r.intn(1, 2), r.intn(1, 12), r.intn(1, 12), d}
			h, w := int32(r.intn(1, 25)), int32(r.intn(1, 25))
			if trial%7 == 0 {
				// DeepLab's kind: a large upsampling.
				shape[1], shape[2], h, w = 5, 4, 41, 33
			}
			x := make([]byte, prod(shape))
			for i := range x {
				switch r.intn(0, 3) {
				case 0:
					x[i] = 0
				case 1:
					x[i] = 255
				default:
					x[i] = byte(r.intn(0, 255))
				}
			}
			opts := &ResizeOptions{}
			switch trial % 3 {
			case 1:
				opts.AlignCorners = true
			case 2:
				opts.HalfPixelCenters = true
			}
			in := tensorOf(ops.Uint8, shape, x)
			k := NewResizeBilinear()
			out := resizeRun(t, k, opts, in, h, w)
			kb := k.(*ResizeBilinear)
			rows := kb.g.batch * kb.g.outH
			want := make([]byte, out.NumElements())
			resizeBilinearUint8Ref(kb, x, want, 0, rows)
			what := fmt.Sprintf("%s %v→%dx%d %+v", lvl, shape, h, w, *opts)
			for i, v := range out.Data[:len(want)] {
				if v != want[i] {
					t.Fatalf("%s: output %d is %d, the scalar loop gives %d", what, i, v, want[i])
				}
			}
			// Both paths at every depth, and split rows.
			forceTapsU8(t, kb)
			for _, split := range [][2]int{{0, rows}, {rows / 2, rows}} {
				got := make([]byte, len(want))
				kb.evalUint8Vector(x, got, split[0], split[1])
				kb.evalUint8Scalar(x, got, 0, split[0])
				if string(got) != string(want) {
					t.Fatalf("%s: the vector path from row %d differs from the scalar loop", what, split[0])
				}
			}
		}
	}
}

// BenchmarkResizeBilinearUint8 times uint8 RESIZE_BILINEAR through Eval,
// the loop it replaced (resizeBilinearUint8Ref), and the vector and
// scalar paths at every depth (to place bilinearU8VectorDepth), in one
// run: DeepLab's last resize [1,33,33,21] → [1,513,513,21] and a
// [1,33,33,d] → [1,129,129,d] upsampling for small depths
// (go test ./ops/builtin -run '^$' -bench ResizeBilinearUint8).
func BenchmarkResizeBilinearUint8(b *testing.B) {
	type c struct{ in, out, d int }
	for _, s := range []c{{33, 513, 21}, {33, 129, 1}, {33, 129, 2}, {33, 129, 3}, {33, 129, 4}, {33, 129, 6}, {33, 129, 8}, {33, 129, 12}, {33, 129, 16}, {33, 129, 64}} {
		shape := []int{1, s.in, s.in, s.d}
		x := make([]byte, prod(shape))
		for i := range x {
			x[i] = byte(i * 7)
		}
		n := node(&ResizeOptions{}, []*ops.Tensor{tensorOf(ops.Uint8, shape, x), c32(int32(s.out), int32(s.out))}, outTensor(ops.Uint8))
		k := NewResizeBilinear()
		if err := prepare(k, n); err != nil {
			b.Fatal(err)
		}
		kb := k.(*ResizeBilinear)
		dst := n.Outputs[0].Data
		bytes := int64(s.out * s.out * s.d)
		name := fmt.Sprintf("%dx%dx%d", s.out, s.out, s.d)
		b.Run(name+"/eval", func(b *testing.B) {
			b.SetBytes(bytes)
			for b.Loop() {
				if err := k.Eval(n); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/old", func(b *testing.B) {
			b.SetBytes(bytes)
			for b.Loop() {
				resizeBilinearUint8Ref(kb, x, dst, 0, s.out)
			}
		})
		b.Run(name+"/vector", func(b *testing.B) {
			b.SetBytes(bytes)
			saved := kb.taps
			forceTapsU8(b, kb)
			for b.Loop() {
				kb.evalUint8Vector(x, dst, 0, s.out)
			}
			kb.taps = saved
		})
		b.Run(name+"/scalar", func(b *testing.B) {
			b.SetBytes(bytes)
			for b.Loop() {
				kb.evalUint8Scalar(x, dst, 0, s.out)
			}
		})
	}
}
