package arch

import (
	"math/rand/v2"
	"testing"
)

// Byte depthwise twins: every usable implementation of DepthwiseQ8Requant
// and DepthwiseQ8Interleave against straightforward references, over
// rows of 0-11 pixels (the 4-pixel groups and the single pixels after
// them), channel counts around the 16 lanes, 0-3 groups, 0-4 filter
// columns, strides, one or two weight sets (the second for some channel
// blocks only), every clamp class (int8 and
// uint8 full ranges, narrower ones), left shifts, inputs and weights
// ending right before an inaccessible page and guard bytes after the
// output.

// dwq8Ref is the reference of DepthwiseQ8Requant: int32 sums, then
// requantSpan.
func dwq8Ref(dst []byte, x []byte, w, w2 []int8, w2Blocks []byte, bias []int32, g DepthwiseQ8Geom, q *ChannelRequant, zp, lo, hi int32) {
	acc := make([]int32, g.C)
	for px := 0; px < g.Cols; px++ {
		for ch := 0; ch < g.C; ch++ {
			s := bias[ch]
			for gr := 0; gr < g.Groups; gr++ {
				for tx := 0; tx < g.TapCols; tx++ {
					for j := 0; j < 4; j++ {
						xv := int32(x[gr*g.XGroupStep+(px*g.ColStep+tx*g.TapStep)*4*g.C+4*ch+j])
						wi := ((gr*g.TapCols+tx)*g.C+ch)*4 + j
						wv := int32(w[wi])
						if w2 != nil && (w2Blocks == nil || w2Blocks[ch/16] != 0) {
							wv += int32(w2[wi])
						}
						s += xv * wv
					}
				}
			}
			acc[ch] = s
		}
		requantSpan(dst[px*g.C:], acc, q, 0, zp, lo, hi)
	}
}

func TestDepthwiseQ8RequantTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 8))
	chans := []int{1, 2, 3, 7, 8, 15, 16, 17, 24, 31, 32, 33, 48, 64, 72}
	for _, im := range implsOf(dwq8Impls) {
		t.Logf("implementation %s", im.name)
		for trial := 0; trial < 1500; trial++ {
			c := chans[trial%len(chans)]
			g := DepthwiseQ8Geom{Cols: r.IntN(12), C: c, Groups: r.IntN(4), TapCols: r.IntN(5), ColStep: 1 + r.IntN(2), TapStep: 1 + r.IntN(2)}
			if trial%97 == 0 {
				g.Cols = 0
			}
			rowCols := 0
			if g.Cols > 0 && g.TapCols > 0 {
				rowCols = (g.Cols-1)*g.ColStep + (g.TapCols-1)*g.TapStep + 1
			}
			g.XGroupStep = (rowCols + r.IntN(2)) * 4 * c
			xn := 0
			if g.Groups > 0 && rowCols > 0 {
				xn = (g.Groups-1)*g.XGroupStep + rowCols*4*c
			}
			wn := g.Groups * g.TapCols * 4 * c
			x, w := tailOf[uint8](t, xn), tailOf[int8](t, wn)
			for i := range x {
				x[i] = byte(r.Uint32())
			}
			for i := range w {
				w[i] = int8(r.Uint32())
			}
			var w2 []int8
			var w2Blocks []byte
			if trial%3 == 1 {
				w2 = make([]int8, wn)
				for i := range w2 {
					w2[i] = int8(r.Uint32())
				}
				if trial%2 == 0 {
					w2Blocks = make([]byte, (c+15)/16)
					for i := range w2Blocks {
						w2Blocks[i] = byte(r.IntN(2) * (1 + r.IntN(255)))
					}
				}
			}
			bias := tailI32(t, c)
			for i := range bias {
				bias[i] = int32(r.IntN(1<<20)) - 1<<19
			}
			mult, shift := make([]int32, c), make([]int, c)
			for i := range mult {
				mult[i] = 1<<30 + int32(r.IntN(1<<30))
				shift[i] = -12 + r.IntN(10)
				if trial%5 == 0 && i%3 == 0 {
					shift[i] = r.IntN(3)
				}
			}
			q, err := NewChannelRequant(mult, shift)
			if err != nil {
				t.Fatal(err)
			}
			var zp, lo, hi int32
			switch trial % 4 {
			case 0:
				zp, lo, hi = int32(r.IntN(256))-128, -128, 127
			case 1:
				zp, lo, hi = int32(r.IntN(256)), 0, 255
			case 2:
				zp, lo, hi = int32(r.IntN(256))-128, -100+int32(r.IntN(50)), 20+int32(r.IntN(100))
			default:
				zp, lo, hi = int32(r.IntN(256)), 10, 200
			}
			const guard = 5
			want := make([]byte, g.Cols*c+guard)
			got := make([]byte, len(want))
			for i := range want {
				want[i] = byte(i * 7)
				got[i] = want[i]
			}
			dwq8Ref(want, x, w, w2, w2Blocks, bias, g, q, zp, lo, hi)
			save := dwq8
			dwq8 = im.fn
			DepthwiseQ8Requant(got, x, w, w2, w2Blocks, bias, g, q, zp, lo, hi)
			dwq8 = save
			if string(got) != string(want) {
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s: trial %d, geometry %+v, w2 %v %v, clamp %d..%d: byte %d (pixel %d channel %d) = %d, want %d", im.name, trial, g, w2 != nil, w2Blocks, lo, hi, i, i/c, i%c, got[i], want[i])
					}
				}
			}
		}
	}
}

func TestDepthwiseQ8InterleaveTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, im := range implsOf(dwq8IlvImpls) {
		for _, n := range []int{0, 1, 15, 63, 64, 65, 127, 128, 200, 256, 1000} {
			rows := make([][]byte, 4)
			for j := range rows {
				rows[j] = tailBytes(t, n)
				for i := range rows[j] {
					rows[j][i] = byte(r.Uint32())
				}
			}
			for _, flip := range []byte{0, 0x80} {
				got := make([]byte, 4*n+3)
				for i := range got {
					got[i] = 0xaa
				}
				save := dwq8Ilv
				dwq8Ilv = im.fn
				DepthwiseQ8Interleave(got, rows[0], rows[1], rows[2], rows[3], flip)
				dwq8Ilv = save
				for i := range got {
					want := byte(0xaa)
					if i < 4*n {
						want = rows[i%4][i/4] ^ flip
					}
					if got[i] != want {
						t.Fatalf("%s: n %d flip %#x: byte %d = %#x, want %#x", im.name, n, flip, i, got[i], want)
					}
				}
			}
		}
	}
}

// FuzzDepthwiseQ8 covers DepthwiseQ8Requant on a fuzzer-chosen row
// (pixels 0-10, channels 1-40, groups 0-2, filter columns 0-3, strides
// 1-2, one or two weight sets with fuzzer-chosen blocks), any
// multipliers, shifts in [-31, 31], both tie modes and any clamp range.
func FuzzDepthwiseQ8(f *testing.F) {
	f.Add([]byte{9, 17, 1, 3, 0, 1, 1, 0, 1, 2, 3, 4, 5, 250, 251, 0x80})
	f.Add([]byte{4, 33, 2, 2, 1, 0, 3, 0x7f, 0x80, 0xff, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &fuzzBytes{b: data}
		g := DepthwiseQ8Geom{Cols: int(src.next() % 11), C: 1 + int(src.next()%40), Groups: int(src.next() % 3), TapCols: int(src.next() % 4),
			ColStep: 1 + int(src.next()%2), TapStep: 1 + int(src.next()%2)}
		rowCols := (g.Cols+1)*g.ColStep + 3*g.TapStep
		g.XGroupStep = rowCols * 4 * g.C
		x := make([]byte, max(1, g.Groups)*g.XGroupStep)
		w := make([]int8, g.Groups*g.TapCols*4*g.C)
		for i := range x {
			x[i] = src.next()
		}
		for i := range w {
			w[i] = int8(src.next())
		}
		var w2 []int8
		var w2Blocks []byte
		switch src.next() % 3 {
		case 1:
			w2 = make([]int8, len(w))
		case 2:
			w2 = make([]int8, len(w))
			w2Blocks = make([]byte, (g.C+15)/16)
			for i := range w2Blocks {
				w2Blocks[i] = src.next() % 2
			}
		}
		for i := range w2 {
			w2[i] = int8(src.next())
		}
		bias := make([]int32, g.C)
		mult, shift := make([]int32, g.C), make([]int, g.C)
		for i := range bias {
			bias[i] = src.i32()
			mult[i] = src.i32() | 1
			shift[i] = int(src.next()%63) - 31
		}
		q, err := newChannelRequant(mult, shift, []int32{tieAway, tieUp}[src.next()%2])
		if err != nil {
			t.Fatal(err)
		}
		lo := int32(src.next()) - 128
		hi := min(255, lo+int32(src.next()))
		zp := int32(src.next()) - 128
		want := make([]byte, g.Cols*g.C)
		dwq8Ref(want, x, w, w2, w2Blocks, bias, g, q, zp, lo, hi)
		for _, im := range implsOf(dwq8Impls) {
			got := make([]byte, len(want))
			save := dwq8
			dwq8 = im.fn
			DepthwiseQ8Requant(got, x, w, w2, w2Blocks, bias, g, q, zp, lo, hi)
			dwq8 = save
			if string(got) != string(want) {
				t.Fatalf("%s: geometry %+v: got %v, want %v", im.name, g, got, want)
			}
		}
	})
}
