package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// GEMM twins: every usable GemmF32/GemmInt8 implementation against a
// float64/int64 reference over row counts 0..17 (every row-block tail of
// the 8- and 4-row kernels) and some past the arm64 kernels' 64-row tiles,
// channel counts not multiples of the 8/16 lanes (and more than the
// requantising tiles hold), reduction lengths around the 4-byte groups,
// row strides longer than the rows, inputs ending right before an
// inaccessible page, and guard bands around (and gaps inside) the
// destination.

var (
	gemmRows = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	// From 32 channels on, the VNNI kernels take 32 at a time, then 16 or
	// a masked tail: 47, 96-127 cover every mix.
	gemmCols = []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 48, 64, 96, 97, 100, 111, 112, 127}
	gemmKs   = []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 27, 33, 64, 129}
)

// gemmCase is one GEMM shape with its strides.
type gemmCase struct{ m, n, k, lda, ldd int }

func (c gemmCase) String() string {
	return fmt.Sprintf("m=%d n=%d k=%d lda=%d ldd=%d", c.m, c.n, c.k, c.lda, c.ldd)
}

// gemmCases lists the shapes of the twin tests: every combination of the
// lists above with tight strides, and some with longer ones.
func gemmCases(r *rand.Rand) []gemmCase {
	var cs []gemmCase
	for _, m := range gemmRows {
		for _, n := range gemmCols {
			for _, k := range gemmKs {
				c := gemmCase{m, n, k, k, n}
				if (m+n+k)%5 == 0 {
					c.lda += 1 + r.IntN(5)
					c.ldd += 1 + r.IntN(5)
				}
				cs = append(cs, c)
			}
		}
	}
	for range 60 { // random larger shapes
		m, n, k := r.IntN(40), 1+r.IntN(300), 1+r.IntN(300)
		cs = append(cs, gemmCase{m, n, k, k + r.IntN(3), n + r.IntN(3)})
	}
	// Tall ones: the arm64 kernels compute a partial channel block 64 rows
	// at a time through a stack tile, and the requantising GEMMs tile
	// 2048 sums at a time (more channels than that go to the portable
	// code).
	for _, m := range []int{63, 64, 65, 129, 200} {
		for _, n := range []int{17, 40, 100} {
			cs = append(cs, gemmCase{m, n, 27, 27 + m%3, n + m%2})
		}
	}
	cs = append(cs, gemmCase{3, 2100, 9, 9, 2100}, gemmCase{2, 2049, 4, 5, 2051})
	// Every reduction length up to 257: the arm64 USMMLA kernel steps 16,
	// 8 and then 1 to 7 bytes (and takes k ≥ mmlaMinK only, four rows at a
	// time), the SDOT ones 16, 4 and 1 to 3.
	for k := 1; k <= 257; k++ {
		m, n := []int{4, 5, 8, 11}[k%4], []int{16, 17, 33}[k%3]
		cs = append(cs, gemmCase{m, n, k, k + k%3, n + k%2})
	}
	return cs
}

// gemmInputF32 returns a (the last row ending at an inaccessible page when
// tail is set), the weights and the bias for c.
func gemmInputF32(t testing.TB, r *rand.Rand, c gemmCase, kind f32Kind, tail bool) (a, w, bias []float32) {
	aLen := 0
	if c.m > 0 {
		aLen = (c.m-1)*c.lda + c.k
	}
	if tail {
		a = tailF32(t, aLen)
		bias = tailF32(t, c.n)
	} else {
		a = make([]float32, aLen+1)[1:]
		bias = make([]float32, c.n)
	}
	w = make([]float32, c.n*c.k)
	genF32(r, a, kind)
	genF32(r, w, kind)
	genF32(r, bias, kind)
	return a, w, bias
}

// packF32 packs w into a slice that ends at an inaccessible page when
// tail is set.
func packF32(t testing.TB, w []float32, n, k int, tail bool) []float32 {
	var p []float32
	if tail {
		p = tailF32(t, PackedGemmF32Len(n, k))
	} else {
		p = make([]float32, PackedGemmF32Len(n, k))
	}
	PackGemmF32(p, w, n, k)
	return p
}

// clamp64 is clampF32 in float64.
func clamp64(x, lo, hi float64) float64 {
	if x < lo {
		x = lo
	}
	if x > hi {
		x = hi
	}
	return x
}

// checkGemmF32 runs f on c and compares every output with the float64
// reference (clamping is 1-Lipschitz, so sumOK's tolerance still
// applies), and every element outside the outputs with its sentinel.
func checkGemmF32(t testing.TB, name string, f func([]float32, int, []float32, int, []float32, []float32, int, int, int, float32, float32),
	c gemmCase, a, w, packed, bias []float32, lo, hi float32) {
	t.Helper()
	ref := gemmRefF32(c, a, w, bias, lo, hi)
	checkGemmF32Ref(t, name, f, c, a, packed, bias, lo, hi, ref)
}

// gemmRef holds the reference of every output of a float GEMM, indexed
// as dst: the clamped float64 sum, the unclamped one and Σ|terms|; on
// 32-bit ARM also ftz, the reference of inputs with subnormals flushed,
// for the kernels that flush them (flushesSubnormals).
type gemmRef struct {
	want, sum, abs []float64
	ftz            *gemmRef
}

// gemmRefPlain computes the float64 reference of GemmF32 on c.
func gemmRefPlain(c gemmCase, a, w, bias []float32, lo, hi float32) gemmRef {
	size := 0
	if c.m > 0 {
		size = (c.m-1)*c.ldd + c.n
	}
	r := gemmRef{want: make([]float64, size), sum: make([]float64, size), abs: make([]float64, size)}
	for in := range size {
		p, j := in/c.ldd, in%c.ldd
		if j >= c.n {
			continue
		}
		ref, abs := float64(bias[j]), math.Abs(float64(bias[j]))
		for i := 0; i < c.k; i++ {
			pr := float64(a[p*c.lda+i]) * float64(w[j*c.k+i])
			ref += pr
			abs += math.Abs(pr)
		}
		want := clamp64(ref, float64(lo), float64(hi))
		if math.IsNaN(ref) {
			want = ref
		}
		r.want[in], r.sum[in], r.abs[in] = want, ref, abs
	}
	return r
}

// gemmRefF32 is gemmRefPlain plus, on 32-bit ARM, the reference of the
// inputs with subnormals flushed.
func gemmRefF32(c gemmCase, a, w, bias []float32, lo, hi float32) gemmRef {
	r := gemmRefPlain(c, a, w, bias, lo, hi)
	if runtime.GOARCH == "arm" {
		f := gemmRefPlain(c, ftzCopy(a), ftzCopy(w), ftzCopy(bias), lo, hi)
		r.ftz = &f
	}
	return r
}

// checkGemmF32Ref is checkGemmF32 with the reference computed already.
func checkGemmF32Ref(t testing.TB, name string, f func([]float32, int, []float32, int, []float32, []float32, int, int, int, float32, float32),
	c gemmCase, a, packed, bias []float32, lo, hi float32, ref gemmRef) {
	t.Helper()
	size := len(ref.want)
	buf, dst := guardedF32(size, 1)
	if c.m > 0 {
		f(dst, c.ldd, a, c.lda, packed, bias, c.m, c.n, c.k, lo, hi)
	}
	for i, v := range buf {
		in := i - guard - 1
		p, j := 0, -1
		if in >= 0 && in < size {
			p, j = in/c.ldd, in%c.ldd
		}
		if j < 0 || j >= c.n {
			if math.Float32bits(v) != sentinelF32 {
				t.Fatalf("%s %v: element %d outside the outputs written (%v)", name, c, in, v)
			}
			continue
		}
		ok := sumOK(v, ref.want[in], ref.abs[in], c.k+1)
		if !ok && flushesSubnormals(name) && ref.ftz != nil {
			ok = sumOKFTZ(v, ref.ftz.want[in], ref.ftz.abs[in], c.k+1)
		}
		if !ok {
			t.Fatalf("%s %v: dst[%d][%d] = %v, want %v (unclamped %v, Σ|terms| %v)", name, c, p, j, v, ref.want[in], ref.sum[in], ref.abs[in])
		}
	}
}

func TestTwinGemmF32(t *testing.T) {
	// Each case's inputs and float64 reference are made once and every
	// implementation is checked on them.
	ims := implsOf(gemmF32Impls)
	r := rand.New(rand.NewPCG(71, 72))
	for i, c := range gemmCases(r) {
		kind := f32Kind(i % int(numKinds))
		tail := i%2 == 0
		a, w, bias := gemmInputF32(t, r, c, kind, tail)
		packed := packF32(t, w, c.n, c.k, tail)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		switch i % 4 {
		case 1:
			lo, hi = 0, math.MaxFloat32
		case 2:
			lo, hi = -0.25, 0.5
		}
		ref := gemmRefF32(c, a, w, bias, lo, hi)
		for _, im := range ims {
			checkGemmF32Ref(t, im.name, whole(im.fn), c, a, packed, bias, lo, hi, ref)
		}
	}
}

// TestTwinGemmF32Specials puts NaN and ±Inf in a, the weights or the
// bias: they must propagate as in the plain sum (and NaN through the
// clamp).
func TestTwinGemmF32Specials(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, im := range implsOf(gemmF32Impls) {
		for _, c := range []gemmCase{{1, 1, 1, 1, 1}, {5, 17, 9, 9, 17}, {9, 8, 27, 27, 8}, {3, 33, 4, 4, 33}} {
			for _, sp := range specials {
				for trial := range 4 {
					a, w, bias := gemmInputF32(t, r, c, kindUniform, false)
					switch trial {
					case 0:
						a[r.IntN(len(a))] = sp
					case 1:
						w[r.IntN(len(w))] = sp
					case 2:
						bias[r.IntN(len(bias))] = sp
					case 3: // Inf times zero
						i := r.IntN(c.k)
						a[i] = sp
						w[r.IntN(c.n)*c.k+i] = 0
					}
					packed := packF32(t, w, c.n, c.k, false)
					checkGemmF32(t, im.name, whole(im.fn), c, a, w, packed, bias, float32(math.Inf(-1)), float32(math.Inf(1)))
					checkGemmF32(t, im.name, whole(im.fn), c, a, w, packed, bias, 0, 6)
				}
			}
		}
	}
}

// TestPackGemmLayouts checks the documented packed layouts element by
// element.
func TestPackGemmLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	for _, n := range []int{1, 15, 16, 17, 40} {
		for _, k := range []int{1, 3, 4, 5, 9} {
			w := make([]float32, n*k)
			genF32(r, w, kindUniform)
			p := make([]float32, PackedGemmF32Len(n, k))
			for i := range p {
				p[i] = 7 // must be overwritten
			}
			PackGemmF32(p, w, n, k)
			for b := 0; b*GemmBlock < n; b++ {
				for i := 0; i < k; i++ {
					for l := 0; l < GemmBlock; l++ {
						want := float32(0)
						if j := b*GemmBlock + l; j < n {
							want = w[j*k+i]
						}
						if got := p[b*GemmBlock*k+i*GemmBlock+l]; got != want {
							t.Fatalf("f32 n=%d k=%d block %d i=%d lane %d: %v, want %v", n, k, b, i, l, got, want)
						}
					}
				}
			}
			w8 := make([]int8, n*k)
			genI8(r, w8, 0)
			p8 := make([]int8, PackedGemmInt8Len(n, k))
			for i := range p8 {
				p8[i] = 7
			}
			PackGemmInt8(p8, w8, n, k)
			blkLen := 64 * ((k + 3) / 4)
			for b := 0; b*GemmBlock < n; b++ {
				blk := p8[b*blkLen : (b+1)*blkLen]
				for l := 0; l < GemmBlock; l++ {
					j := b*GemmBlock + l
					for i := 0; i < (k+3)/4*4; i++ {
						want := int8(0)
						if j < n && i < k {
							want = w8[j*k+i]
						}
						if got := blk[i/4*64+4*l+i%4]; got != want^-128 {
							t.Fatalf("int8 n=%d k=%d block %d i=%d lane %d: %v, want %v", n, k, b, i, l, got, want^-128)
						}
					}
				}
			}
		}
	}
}

// checkGemmInt8 runs f on c and compares every output with the int64
// reference (wrapped to int32), and every element outside the outputs
// with its sentinel.
func checkGemmInt8(t testing.TB, name string, f func([]int32, int, []int8, int, []int8, []int32, int, int, int),
	c gemmCase, a, w, packed []int8, seed []int32) {
	t.Helper()
	checkGemmInt8Ref(t, name, f, c, a, packed, seed, gemmRefInt8(c, a, w, seed))
}

// gemmRefInt8 computes every output of GemmInt8 on c in int64, wrapped
// to int32, indexed as dst.
func gemmRefInt8(c gemmCase, a, w []int8, seed []int32) []int32 {
	size := 0
	if c.m > 0 {
		size = (c.m-1)*c.ldd + c.n
	}
	want := make([]int32, size)
	for in := range want {
		p, j := in/c.ldd, in%c.ldd
		if j >= c.n {
			continue
		}
		s := int64(seed[j])
		for i := 0; i < c.k; i++ {
			s += int64(a[p*c.lda+i]) * int64(w[j*c.k+i])
		}
		want[in] = int32(s)
	}
	return want
}

// checkGemmInt8Ref is checkGemmInt8 with the reference computed already.
func checkGemmInt8Ref(t testing.TB, name string, f func([]int32, int, []int8, int, []int8, []int32, int, int, int),
	c gemmCase, a, packed []int8, seed, want []int32) {
	t.Helper()
	size := len(want)
	buf := make([]int32, size+1+2*guard)
	for i := range buf {
		buf[i] = sentinelI32
	}
	dst := buf[guard+1 : guard+1+size : guard+1+size]
	if c.m > 0 {
		f(dst, c.ldd, a, c.lda, packed, seed, c.m, c.n, c.k)
	}
	for i, v := range buf {
		in := i - guard - 1
		p, j := 0, -1
		if in >= 0 && in < size {
			p, j = in/c.ldd, in%c.ldd
		}
		if j < 0 || j >= c.n {
			if v != sentinelI32 {
				t.Fatalf("%s %v: element %d outside the outputs written (%d)", name, c, in, v)
			}
			continue
		}
		if v != want[in] {
			t.Fatalf("%s %v: dst[%d][%d] = %d, want %d", name, c, p, j, v, want[in])
		}
	}
}

func TestTwinGemmInt8(t *testing.T) {
	// Each case's inputs and int64 reference are made once and every
	// implementation is checked on them.
	ims := implsOf(gemmInt8Impls)
	r := rand.New(rand.NewPCG(77, 78))
	for i, c := range gemmCases(r) {
		aLen := 0
		if c.m > 0 {
			aLen = (c.m-1)*c.lda + c.k
		}
		var a, packed []int8
		var seed []int32
		tail := i%2 == 0
		if tail {
			a, seed = tailI8(t, aLen), tailI32(t, c.n)
			packed = tailI8(t, PackedGemmInt8Len(c.n, c.k))
		} else {
			a, seed = make([]int8, aLen+1)[1:], make([]int32, c.n)
			packed = make([]int8, PackedGemmInt8Len(c.n, c.k))
		}
		w := make([]int8, c.n*c.k)
		kind := i % 3
		genI8(r, a, kind)
		genI8(r, w, (kind+i/3)%3)
		for j := range seed {
			seed[j] = []int32{0, int32(r.Uint32()), math.MaxInt32 - 100, math.MinInt32 + 100, int32(r.IntN(20001) - 10000)}[r.IntN(5)]
		}
		PackGemmInt8(packed, w, c.n, c.k)
		want := gemmRefInt8(c, a, w, seed)
		for _, im := range ims {
			checkGemmInt8Ref(t, im.name, im.fn, c, a, packed, seed, want)
		}
	}
}

// TestTwinGemmInt8Requantize checks the fused GEMM and requantisation
// against the int64 sums requantised by MultiplyByQuantizedMultiplier, for
// int8 and uint8 ranges, with guard bands and gaps around the byte outputs.
func TestTwinGemmInt8Requantize(t *testing.T) {
	// Each case's inputs and expected bytes are made once and every
	// implementation is checked on them.
	ims := implsOf(gemmInt8RqImpls)
	r := rand.New(rand.NewPCG(79, 80))
	for i, c := range gemmCases(r) {
		aLen := 0
		if c.m > 0 {
			aLen = (c.m-1)*c.lda + c.k
		}
		var a, packed []int8
		var seed []int32
		if i%2 == 0 {
			a, seed = tailI8(t, aLen), tailI32(t, c.n)
			packed = tailI8(t, PackedGemmInt8Len(c.n, c.k))
		} else {
			a, seed = make([]int8, aLen+1)[1:], make([]int32, c.n)
			packed = make([]int8, PackedGemmInt8Len(c.n, c.k))
		}
		w := make([]int8, c.n*c.k)
		genI8(r, a, i%3)
		genI8(r, w, (i/3)%3)
		for j := range seed {
			seed[j] = int32(r.IntN(1<<20) - 1<<19)
			if r.IntN(8) == 0 {
				seed[j] = int32(r.Uint32())
			}
		}
		PackGemmInt8(packed, w, c.n, c.k)
		q, mult, shift := randomChannelRequant(t, r, c.n)
		if i%3 != 0 { // realistic conv multipliers: < 1, right shifts
			for j := range mult {
				mult[j], shift[j] = int32(1<<30+r.IntN(1<<30)), -r.IntN(12)
			}
			var err error
			if q, err = newChannelRequant(mult, shift, q.tie()); err != nil {
				t.Fatal(err)
			}
		}
		zp, lo, hi := int32(r.IntN(256)-128), int32(-128), int32(127)
		if i%4 == 1 {
			zp, lo, hi = int32(r.IntN(256)), 0, 255
		}
		if i%5 == 2 {
			lo, hi = lo+int32(r.IntN(50)), hi-int32(r.IntN(50))
		}
		size := 0
		if c.m > 0 {
			size = (c.m-1)*c.ldd + c.n
		}
		wZero := int32(0)
		if i%3 == 1 { // a uint8 filter's zero point, re-centred
			wZero = int32(r.IntN(256) - 128)
		}
		want, sums := make([]byte, size), make([]int32, size)
		for in := range want {
			p, ch := in/c.ldd, in%c.ldd
			if ch >= c.n {
				continue
			}
			s := int64(seed[ch])
			for x := 0; x < c.k; x++ {
				s += int64(a[p*c.lda+x]) * (int64(w[ch*c.k+x]) - int64(wZero))
			}
			sums[in] = int32(s)
			want[in] = byte(max(lo, min(mbqmTie(int32(s), mult[ch], shift[ch], q.tie())+zp, hi)))
		}
		for _, im := range ims {
			const sentinel = 0x5a
			buf := make([]byte, size+2*guard)
			for j := range buf {
				buf[j] = sentinel
			}
			dst := buf[guard : guard+size : guard+size]
			if c.m > 0 {
				im.fn(dst, c.ldd, a, c.lda, packed, seed, wZero, q, c.m, c.n, c.k, zp, lo, hi)
			}
			for j, v := range buf {
				in := j - guard
				p, ch := 0, -1
				if in >= 0 && in < size {
					p, ch = in/c.ldd, in%c.ldd
				}
				if ch < 0 || ch >= c.n {
					if v != sentinel {
						t.Fatalf("%s %v: byte %d outside the outputs written", im.name, c, in)
					}
					continue
				}
				if v != want[in] {
					t.Fatalf("%s %v: dst[%d][%d] = %d, want %d (sum %d, mult %d shift %d)", im.name, c, p, ch, v, want[in], sums[in], mult[ch], shift[ch])
				}
			}
		}
	}
}

// TestCNNPrimitivesAllocateNothing checks every implementation of the
// convolution primitives for heap allocations (kernels' Eval must not
// allocate), with a filter zero point and requantisation.
func TestCNNPrimitivesAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m, n, k := 9, 24, 27
	a, w, seed, out := make([]int8, m*k), make([]int8, n*k), make([]int32, n), make([]byte, m*n)
	genI8(r, a, 0)
	genI8(r, w, 0)
	packed := make([]int8, PackedGemmInt8Len(n, k))
	PackGemmInt8(packed, w, n, k)
	q, _, _ := randomChannelRequant(t, r, n)
	for _, im := range implsOf(gemmInt8RqImpls) {
		if got := testing.AllocsPerRun(5, func() { im.fn(out, n, a, k, packed, seed, -3, q, m, n, k, 1, 0, 255) }); got != 0 {
			t.Errorf("GemmInt8Requantize %s allocated %v times", im.name, got)
		}
	}
	g := DepthwiseGeom{Rows: 3, Cols: 5, C: 24, TapRows: 3, TapCols: 3, XRowStep: 7 * 24, XColStep: 24,
		XTapRow: 7 * 24, XTapCol: 24, DstRowStep: 5 * 24, WTapRow: 3 * 24}
	xn, wn, dn, _ := g.span()
	x, wt, bias, dst := make([]float32, xn), make([]float32, wn), make([]uint32, 24), make([]byte, 4*dn)
	for mode := 0; mode < 3; mode++ {
		args := g.args(mode)
		if mode == 2 {
			q, _, _ := randomChannelRequant(t, r, 24)
			args.qp, args.qStride, args.zp, args.lo, args.hi = &q.p[0], 4*q.stride, 0, -128, 127
		}
		for _, im := range implsOf(dwConvImpls) {
			if got := testing.AllocsPerRun(5, func() { im.fn(dst, x, wt, bias, args, 0, 6) }); got != 0 {
				t.Errorf("depthwise %s mode %d allocated %v times", im.name, mode, got)
			}
		}
	}
	acc := make([]int32, m*n)
	for _, im := range implsOf(requantChannelsImpls) {
		if got := testing.AllocsPerRun(5, func() { im.fn(out, acc, q, 0, -128, 127) }); got != 0 {
			t.Errorf("RequantizeChannels %s allocated %v times", im.name, got)
		}
	}
}

// FuzzGemm covers GemmF32, GemmInt8 and GemmInt8Requantize: shape bytes
// m (0-19), n (1-40), k (1-70), then the values.
func FuzzGemm(f *testing.F) {
	f.Add(uint8(9), uint8(8), uint8(27), []byte{1, 2, 3, 0x80, 0x7f, 0xff, 0, 0x3f, 0x80, 0x80})
	f.Add(uint8(17), uint8(33), uint8(5), []byte{0xff, 0xff, 0x7f, 0x7f, 0, 0, 0xc0, 0x7f})
	f.Fuzz(func(t *testing.T, mB, nB, kB uint8, data []byte) {
		m, n, k := int(mB%20), 1+int(nB%40), 1+int(kB%70)
		src := &fuzzBytes{b: data}
		c := gemmCase{m, n, k, k, n}
		af, wf, bias := make([]float32, m*k), make([]float32, n*k), make([]float32, n)
		for i := range af {
			af[i] = src.f32()
		}
		for i := range wf {
			wf[i] = src.f32()
		}
		for i := range bias {
			bias[i] = src.f32()
		}
		finite := true
		for _, s := range [][]float32{af, wf, bias} {
			for _, v := range s {
				if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 1e15 {
					finite = false
				}
			}
		}
		if finite { // (overflowing sums depend on the order)
			packed := make([]float32, PackedGemmF32Len(n, k))
			PackGemmF32(packed, wf, n, k)
			for _, im := range implsOf(gemmF32Impls) {
				checkGemmF32(t, im.name, whole(im.fn), c, af, wf, packed, bias, float32(math.Inf(-1)), float32(math.Inf(1)))
			}
		}
		a8, w8, seed := make([]int8, m*k), make([]int8, n*k), make([]int32, n)
		for i := range a8 {
			a8[i] = int8(src.next())
		}
		for i := range w8 {
			w8[i] = int8(src.next())
		}
		for i := range seed {
			seed[i] = src.i32()
		}
		packed8 := make([]int8, PackedGemmInt8Len(n, k))
		PackGemmInt8(packed8, w8, n, k)
		for _, im := range implsOf(gemmInt8Impls) {
			checkGemmInt8(t, im.name, im.fn, c, a8, w8, packed8, seed)
		}
		if m == 0 {
			return
		}
		mult, shift := make([]int32, n), make([]int, n)
		for i := range mult {
			mult[i] = src.i32()
			if mult[i] == math.MinInt32 {
				mult[i]++
			}
			shift[i] = int(src.next()%63) - 31
		}
		q, err := newChannelRequant(mult, shift, []int32{tieAway, tieUp}[src.next()%2])
		if err != nil {
			t.Fatal(err)
		}
		zp, lo, hi := int32(int8(src.next())), int32(-128), int32(127)
		if src.next()%2 == 0 {
			lo, hi = 0, 255
		}
		wZero := int32(int8(src.next()))
		want := make([]byte, m*n)
		for p := 0; p < m; p++ {
			for j := 0; j < n; j++ {
				s := seed[j]
				for i := 0; i < k; i++ {
					s += int32(a8[p*k+i]) * (int32(w8[j*k+i]) - wZero)
				}
				want[p*n+j] = byte(max(lo, min(mbqmTie(s, mult[j], shift[j], q.tie())+zp, hi)))
			}
		}
		for _, im := range implsOf(gemmInt8RqImpls) {
			got := make([]byte, m*n)
			im.fn(got, n, a8, k, packed8, seed, wZero, q, m, n, k, zp, lo, hi)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("GemmInt8Requantize %s %v [%d]: %d, want %d", im.name, c, i, got[i], want[i])
				}
			}
		}
	})
}

// whole calls a gemmF32Func on the whole reduction, with the bias and
// the clamp.
func whole(fn gemmF32Func) func(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k int, lo, hi float32) {
	return func(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k int, lo, hi float32) {
		fn(dst, ldd, a, lda, w, bias, m, n, k, k, lo, hi, gemmFinal)
	}
}

// TestTwinGemmF32Order checks that the kernels that sum in GemmF32Tile's
// order (all but NEON's) agree with the portable one bit for bit, on
// reduction ranges inside a longer packed matrix, with and without
// gemmAcc and gemmFinal.
func TestTwinGemmF32Order(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 78))
	for trial := range 300 {
		m, n := 1+r.IntN(20), 1+r.IntN(40)
		wk := 1 + r.IntN(70)
		k0 := r.IntN(wk)
		k := 1 + r.IntN(wk-k0)
		if trial%5 == 0 {
			m, n = 1+r.IntN(257), 1+r.IntN(70)
		}
		if trial%25 == 3 { // the AVX-512 wrapper's chunks of channels
			m, n, wk = 9+r.IntN(30), 300+r.IntN(400), 300+r.IntN(200)
			k0 = r.IntN(wk)
			k = 1 + r.IntN(wk-k0)
			if trial%2 == 1 {
				k0, k = 0, wk
			}
		}
		lda, ldd := wk+r.IntN(3), n+r.IntN(3)
		flags := trial % 4
		a, w, bias := make([]float32, m*lda), make([]float32, n*wk), make([]float32, n)
		kind := f32Kind(trial % int(numKinds))
		genF32(r, a, kind)
		genF32(r, w, kind)
		genF32(r, bias, kindUniform)
		packed := make([]float32, PackedGemmF32Len(n, wk))
		PackGemmF32(packed, w, n, wk)
		init := make([]float32, m*ldd)
		genF32(r, init, kindUniform)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if trial%3 == 1 {
			lo, hi = -0.5, 0.25
		}
		want := append([]float32(nil), init...)
		gemmF32Generic(want, ldd, a[k0:], lda, packed[k0*GemmBlock:], bias, m, n, k, wk, lo, hi, flags)
		for _, im := range implsOf(gemmF32Impls) {
			if im.name == "neon" {
				continue
			}
			got := append([]float32(nil), init...)
			im.fn(got, ldd, a[k0:], lda, packed[k0*GemmBlock:], bias, m, n, k, wk, lo, hi, flags)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s m=%d n=%d k=%d of %d at %d, flags %d: dst[%d] = %v, portable %v", im.name, m, n, k, wk, k0, flags, i, got[i], want[i])
				}
			}
		}
	}
}

// TestTwinGemvRow16 checks gemvRow16's kernels against the portable one
// bit for bit on random and edge depths, partial blocks, specials and
// clamps.
func TestTwinGemvRow16(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for trial := range 300 {
		k, nc := 1+r.IntN(80), GemmBlock
		switch {
		case trial < 12:
			k = 1 + trial
		case trial < 20:
			k = 250 + trial
		case trial%5 == 0:
			nc = 1 + r.IntN(GemmBlock)
		}
		a, w := make([]float32, k+1), make([]float32, GemmBlock*k+1)
		bias := make([]float32, GemmBlock+1)
		kind := f32Kind(trial % int(numKinds))
		genF32(r, a, kind)
		genF32(r, w, kind)
		genF32(r, bias, kindUniform)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if trial%3 == 1 {
			lo, hi = -0.5, 0.75
		}
		want := make([]float32, GemmBlock+1)
		gemvRow16Generic(want[1:], a[1:], w[1:], bias[1:], nc, k, lo, hi)
		for _, im := range implsOf(gemvRow16Impls) {
			got := make([]float32, GemmBlock+1)
			im.fn(got[1:], a[1:], w[1:], bias[1:], nc, k, lo, hi)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s k=%d nc=%d: dst[%d] = %v, portable %v", im.name, k, nc, i-1, got[i], want[i])
				}
			}
		}
	}
}

// TestGemvOneRowOrder checks that the one-row path of gemvF32Eigen
// (gemvRow16 across a channel block) gives the bits of the one-channel
// path (gemvCol's lane sums) run on every channel.
func TestGemvOneRowOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	for trial := range 60 {
		n, k := 1+r.IntN(40), 1+r.IntN(300)
		if trial < 8 {
			n, k = 16+trial, 1+trial
		}
		w := make([]float32, n*k)
		a := make([]float32, 2*k)
		bias := make([]float32, n)
		kind := f32Kind(trial % int(numKinds))
		genF32(r, w, kind)
		genF32(r, a[:k], kind)
		genF32(r, bias, kindUniform)
		copy(a[k:], a[:k])
		packed := make([]float32, PackedGemmF32Len(n, k))
		PackGemmF32(packed, w, n, k)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		one, two := make([]float32, n), make([]float32, n)
		gemvF32Eigen(one, n, a, k, packed, bias, 1, n, k, lo, hi)
		for j := range n {
			gemvColGeneric(two[j:], 1, a, k, packed[j/GemmBlock*GemmBlock*k+j%GemmBlock:], bias[j], 1, k, lo, hi)
		}
		for j := range one {
			if math.Float32bits(one[j]) != math.Float32bits(two[j]) && !(one[j] != one[j] && two[j] != two[j]) {
				t.Fatalf("n=%d k=%d: channel %d one-row %v, lane-sum path %v", n, k, j, one[j], two[j])
			}
		}
	}
}

// tailRef is the order of Eigen's remainder channels (gemmF32EigenTail's
// doc), one output at a time in plain scalar code: row against channel j
// of n with depth k cut into blocks of kc.
func tailRef(row, col []float32, j, n, k, kc int) float32 {
	var res float32
	for k0 := 0; k0 < k; k0 += kc {
		k1 := min(k0+kc, k)
		var s float32
		if j < n&^3 {
			peel := k0 + (k1-k0)&^7
			var e, o float32
			for i := k0; i < peel; i += 2 {
				e += float32(row[i] * col[i])
				o += float32(row[i+1] * col[i+1])
			}
			s = e + o
			for i := peel; i < k1; i++ {
				s += float32(row[i] * col[i])
			}
			res += s
			continue
		}
		end4 := k0 + (k1-k0)&^3
		var l [4]float32
		for i := k0; i < end4; i++ {
			l[(i-k0)%4] += float32(row[i] * col[i])
		}
		s = (l[0] + l[1]) + (l[2] + l[3])
		for i := end4; i < k1; i++ {
			s += float32(row[i] * col[i])
		}
		if k0 > 0 {
			s = res + s
		}
		res = s
	}
	return res
}

// TestGemmF32EigenTail checks gemmF32EigenTail (with every eigenTail
// kernel) against tailRef bit for bit, over several depth blocks,
// strides, specials and channel counts with every n%8.
func TestGemmF32EigenTail(t *testing.T) {
	r := rand.New(rand.NewPCG(85, 86))
	for trial := range 120 {
		m, n, k := 1+r.IntN(9), 1+r.IntN(40), 1+r.IntN(60)
		if trial < 16 {
			n = 16 + trial
		}
		kc := k
		if trial%3 == 0 {
			kc = 1 + r.IntN(k)
		}
		if trial%17 == 0 {
			k, kc = 1300+r.IntN(40), eigenKc(1300, n, 300)
		}
		lda, ldd := k+r.IntN(3), n+r.IntN(3)
		a, w, bias := make([]float32, m*lda), make([]float32, n*k), make([]float32, n)
		kind := f32Kind(trial % int(numKinds))
		genF32(r, a, kind)
		genF32(r, w, kind)
		genF32(r, bias, kindUniform)
		packed := make([]float32, PackedGemmF32Len(n, k))
		PackGemmF32(packed, w, n, k)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if trial%4 == 1 {
			lo, hi = -0.25, 0.5
		}
		for _, im := range implsOf(eigenTailImpls) {
			eigenTail = im.fn
			dst := make([]float32, m*ldd)
			gemmF32EigenTail(dst, ldd, a, lda, packed, bias, m, n, k, kc, lo, hi)
			for p := range m {
				for j := n &^ 7; j < n; j++ {
					want := clampF32(tailRef(a[p*lda:p*lda+k], w[j*k:j*k+k], j, n, k, kc)+bias[j], lo, hi)
					got := dst[p*ldd+j]
					if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
						t.Fatalf("%s m=%d n=%d k=%d kc=%d: dst[%d][%d] = %v, reference %v", im.name, m, n, k, kc, p, j, got, want)
					}
				}
			}
		}
		eigenTail = eigenTailImpls.list[eigenTailImpls.cur].fn
	}
}

// TestTwinGemvCol checks gemvCol's kernels against the portable one bit
// for bit on random and edge depths, strides, specials and clamps.
func TestTwinGemvCol(t *testing.T) {
	r := rand.New(rand.NewPCG(87, 88))
	for trial := range 300 {
		m, k := 1+r.IntN(9), 1+r.IntN(80)
		switch {
		case trial < 12:
			k = 1 + trial
		case trial < 20:
			k = 250 + trial
		}
		lda, ldd := k+r.IntN(3), 1+r.IntN(3)
		a, w := make([]float32, m*lda+1), make([]float32, GemmBlock*k+1)
		kind := f32Kind(trial % int(numKinds))
		genF32(r, a, kind)
		genF32(r, w, kind)
		bias := float32(r.NormFloat64())
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if trial%3 == 1 {
			lo, hi = -0.5, 0.75
		}
		want := make([]float32, m*ldd+1)
		gemvColGeneric(want[1:], ldd, a[1:], lda, w[1:], bias, m, k, lo, hi)
		for _, im := range implsOf(gemvColImpls) {
			got := make([]float32, m*ldd+1)
			im.fn(got[1:], ldd, a[1:], lda, w[1:], bias, m, k, lo, hi)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s m=%d k=%d: dst[%d] = %v, portable %v", im.name, m, k, i-1, got[i], want[i])
				}
			}
		}
	}
}
