package arch

import (
	"encoding/binary"
	"unsafe"
)

// Register-blocked matrix products for convolutions (CONV_2D as im2col
// plus GEMM, 1×1 convolutions directly): C = A·Wᵀ where A holds one row
// per output pixel (the im2col patch, or the input pixel) and W one row
// per output channel, both row-major with the reduction dimension k
// innermost, as TFLite's NHWC tensors and OHWI filters are laid out.
//
// The weights are packed once (at a kernel's Prepare) into blocks of
// GemmBlock output channels, so that the kernels read one contiguous
// vector of GemmBlock weights per reduction step and multiply it by one
// broadcast element of A for several pixels at once: no horizontal sums,
// whatever k and n are. The packed layouts are the same at every level
// (a process may switch levels between Prepare and Eval).

// The AVX-512 kernels are the same code for 8 or 4 rows, ZMM or YMM
// registers, float32 or int8: gemm_avx512_amd64.s (and the requantising
// epilogue's macros, requant_channel_amd64.h) are written from templates
// by the generator in _asm/, its own module, which the go tool skips in
// ./... patterns. .ci/asmcheck checks that the committed files are what
// the generator writes.
//go:generate sh -c "cd _asm && go run . -dir .."

// GemmBlock is the number of output channels in one block of packed GEMM
// weights.
const GemmBlock = 16

// Function slots and registry entries of the GEMM family.
var (
	gemmF32  gemmF32Func
	gemmInt8 func(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int)

	gemmF32Impls  = newImpls("GemmF32", &gemmF32, gemmF32Generic)
	gemmInt8Impls = newImpls("GemmInt8", &gemmInt8, gemmInt8Generic)
)

// gemmF32Func is the slot of GemmF32's kernels: the products of one
// range of kb = k reduction indices. w is the packed weights from that
// range's first index on (packed[k0·GemmBlock:]), with the channel block
// stride of the whole reduction, GemmBlock·wk. Each sum starts at 0 and
// adds the products in order of the index, unfused; then, with flags'
// gemmAcc, it is added to the value already in dst; with gemmFinal, the
// bias is added and the result clamped (else stored as it is).
type gemmF32Func func(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k, wk int, lo, hi float32, flags int)

// Flags of gemmF32Func.
const (
	gemmAcc   = 1 // add the products to dst
	gemmFinal = 2 // then add the bias and clamp
	// gemmFused lets a kernel fuse each product into its sum (one
	// rounding per multiply-add): the AVX-512 kernels then use
	// VFMADD231PS; the others ignore it and keep their order.
	gemmFused = 4
)

// PackedGemmF32Len returns the length of the packed form of an n×k
// float32 weight matrix: ceil(n/GemmBlock)·GemmBlock·k.
func PackedGemmF32Len(n, k int) int {
	if n <= 0 || k <= 0 {
		return 0
	}
	return (n + GemmBlock - 1) / GemmBlock * GemmBlock * k
}

// PackGemmF32 packs the row-major n×k matrix w (w[j·k+i] is the weight
// of output channel j for reduction index i, an OHWI filter flattened to
// [outC][fH·fW·inC]) into dst for GemmF32. dst must hold
// PackedGemmF32Len(n, k) values. Layout: block b (channels
// 16b..16b+15) occupies dst[b·16k : (b+1)·16k] column by column, element
// (j, i) at b·16k + i·16 + j%16; channels ≥ n are zero. It panics if a
// slice is too short (a kernel bug).
func PackGemmF32(dst, w []float32, n, k int) {
	size := PackedGemmF32Len(n, k)
	if size == 0 {
		return
	}
	dst = dst[:size]
	w = w[:n*k]
	clear(dst)
	for j := 0; j < n; j++ {
		blk := dst[j/GemmBlock*GemmBlock*k:]
		l := j % GemmBlock
		for i, v := range w[j*k : j*k+k] {
			blk[i*GemmBlock+l] = v
		}
	}
}

// GemmF32 computes m output pixels of n channels:
//
//	dst[p·ldd + j] = clamp(bias[j] + Σ_{i<k} a[p·lda + i]·w[j·k + i], lo, hi)
//
// for p < m, j < n, where packed = PackGemmF32(w, n, k). clamp is
// TFLite's ActivationFunctionWithMinMax (max with lo, then min with hi; a
// NaN stays NaN); pass lo = -Inf, hi = +Inf for no activation. It is the
// float CONV_2D and FULLY_CONNECTED product (TFLite's optimized Conv:
// im2col, then a GEMM with bias and clamp). It is GemmF32Tile of the
// whole product (p0 = 0, total = m); see there for the order of the sums.
// Rows of a and dst may be longer than k and n (lda ≥ k, ldd ≥ n);
// elements between are neither read nor written. dst must not overlap a,
// packed or bias. It panics if a slice is shorter than the sizes say (a
// kernel bug: kernels check shapes at Prepare).
func GemmF32(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32) {
	GemmF32Tile(dst, ldd, a, lda, packed, bias, m, n, k, lo, hi, 0, m)
}

// GemmF32Tile is GemmF32 for the m rows p0 ≤ p < p0+m of a product of
// total rows (a and dst hold only those m rows), as a kernel that splits
// its output pixels into tiles calls it: the order of each sum depends on
// the row's place in the whole product.
//
// The order is that of TensorFlow Lite's float GEMM on x86 (Eigen's, as
// built without FMA: cpu_backend_gemm's GemmImplUsingEigen, then
// BiasAndClamp), so that results agree with it bit for bit on amd64 and
// in portable builds that do not fuse multiply-adds. Every sum starts at
// 0, adds products unfused and gets the bias last. The reduction is cut
// into blocks of Eigen's kc (680 indices with a 32 KiB L1 cache, fewer
// for an even split), summed separately and added in order. Within a
// block channels below n rounded down to 8 add their products in order of
// i; for rows in the first total rounded down to 4, a 4-channel
// remainder adds the even and the odd indices of the block's first
// multiple of 8 into two sums and then the rest, and the last n%4
// channels use four sums by i mod 4 over the block's first multiple of 4;
// other rows add in order. A product with one row in all (total = 1) or
// one channel is Eigen's matrix × vector product: four sums by i mod 4
// over the first multiple of 4, combined as (s0+s2)+(s1+s3), then the
// rest in order. Elsewhere the result agrees with float64 math to a few
// float32 ulps of Σ|terms| (the NEON kernels, which fuse multiply-adds
// and sum from the bias; on 32-bit ARM, which flushes subnormals to
// zero, with subnormal inputs, products and partial sums taken as zero).
func GemmF32Tile(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32, p0, total int) {
	gemmF32Tile(dst, ldd, a, lda, packed, bias, m, n, k, lo, hi, p0, total, false)
}

// GemmF32TileFused is GemmF32Tile with each product fused into its sum
// where the level in use has fused kernels (AVX-512: VFMADD231PS, one
// rounding per step instead of two, at twice the arithmetic rate; NEON
// fuses in GemmF32Tile already). The result is then not TensorFlow Lite
// builtin's bits but agrees with float64 math to a few float32 ulps of
// Σ|terms|, as XNNPACK's fused kernels do; the summation order (blocks of
// the reduction, then the bias) and every other contract are
// GemmF32Tile's, and results are still identical for every split of the
// rows over threads. Levels without fused kernels compute GemmF32Tile's
// bits.
func GemmF32TileFused(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32, p0, total int) {
	gemmF32Tile(dst, ldd, a, lda, packed, bias, m, n, k, lo, hi, p0, total, true)
}

func gemmF32Tile(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32, p0, total int, fused bool) {
	if m <= 0 || n <= 0 {
		return
	}
	if lda < k || ldd < n || k < 0 {
		panic("arch.GemmF32: row stride shorter than the row")
	}
	if p0 < 0 || total < p0+m {
		panic("arch.GemmF32Tile: rows outside the product")
	}
	_ = dst[(m-1)*ldd+n-1]
	_ = bias[n-1]
	if k == 0 {
		for p := 0; p < m; p++ {
			for j, b := range bias[:n] {
				dst[p*ldd+j] = clampF32(b, lo, hi)
			}
		}
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = packed[PackedGemmF32Len(n, k)-1]
	if total == 1 || n == 1 {
		gemvF32Eigen(dst, ldd, a, lda, packed, bias, m, n, k, lo, hi)
		return
	}
	if !gemmF32Ordered() {
		gemmF32(dst, ldd, a, lda, packed, bias, m, n, k, k, lo, hi, gemmFinal)
		return
	}
	kc := eigenKc(k, n, total)
	for k0 := 0; k0 < k; k0 += kc {
		kb := min(kc, k-k0)
		gemmF32(dst, ldd, a[k0:], lda, packed[k0*GemmBlock:], bias, m, n, kb, k, lo, hi, blockFlags(k0, kb, k, fused))
	}
	if fused && gemmF32FusedLevel() {
		// The fused kernels computed the remainder channels too; the
		// Eigen-order rewrite below is for exact results only.
		return
	}
	if q := min(m, total&^3-p0); n%8 != 0 && q > 0 {
		gemmF32EigenTail(dst, ldd, a, lda, packed, bias, q, n, k, kc, lo, hi)
	}
}

// blockFlags are the gemmF32Func flags of the reduction block [k0,
// k0+kb) of k indices: add to the earlier blocks' sums, finish after the
// last block, fuse if asked.
func blockFlags(k0, kb, k int, fused bool) int {
	flags := 0
	if k0 > 0 {
		flags |= gemmAcc
	}
	if k0+kb == k {
		flags |= gemmFinal
	}
	if fused {
		flags |= gemmFused
	}
	return flags
}

// clampF32 is max(x, lo) then min(·, hi) with NaN kept, as
// TFLite's ActivationFunctionWithMinMax.
func clampF32(x, lo, hi float32) float32 {
	if x < lo {
		x = lo
	}
	if x > hi {
		x = hi
	}
	return x
}

// PackedGemmInt8Len returns the length in bytes of the packed form of an
// n×k int8 weight matrix: per block of GemmBlock channels, ceil(k/4)
// groups of 64 bytes.
func PackedGemmInt8Len(n, k int) int {
	if n <= 0 || k <= 0 {
		return 0
	}
	return (n + GemmBlock - 1) / GemmBlock * 64 * ((k + 3) / 4)
}

// PackGemmInt8 packs the row-major n×k int8 matrix w (output channel j,
// reduction index i at w[j·k+i]) into dst for GemmInt8. dst must hold
// PackedGemmInt8Len(n, k) bytes. Block b (channels 16b..16b+15) occupies
// 64·ceil(k/4) bytes: for each group g of four reduction indices, 16
// channels × 4 bytes, weight (j, 4g+t) at 64g + 4·(j%16) + t, stored
// offset by 128 (w XOR 0x80, the unsigned byte w+128 the VNNI kernel's
// VPDPBUSD needs); channels ≥ n and indices ≥ k hold 0x80 (weight 0). It
// panics if a slice is too short.
func PackGemmInt8(dst, w []int8, n, k int) { packGemm8(dst, w, n, k, -128) }

// PackGemmUint8 packs the row-major n×k uint8 matrix u, re-centred to the
// int8 values u-128 (TFLite's uint8 convolution, zero points moved by
// -128 too), as PackGemmInt8 packs an int8 matrix: the result equals
// PackGemmInt8 of the re-centred matrix, whose stored form w XOR 0x80 is
// the raw byte u, so no re-centred copy is made. dst must hold
// PackedGemmInt8Len(n, k) bytes; it panics if a slice is too short.
func PackGemmUint8(dst []int8, u []uint8, n, k int) { packGemm8(dst, u, n, k, 0) }

// packGemm8 is PackGemmInt8's layout for either byte type: each weight
// is stored as its byte XOR flip (0x80 for int8, making the unsigned
// byte w+128; nothing for uint8, already that byte).
func packGemm8[T int8 | uint8](dst []int8, w []T, n, k int, flip int8) {
	size := PackedGemmInt8Len(n, k)
	if size == 0 {
		return
	}
	dst = dst[:size]
	w = w[:n*k]
	for i := range dst {
		dst[i] = -128 // 0x80: weight 0
	}
	blkLen := 64 * ((k + 3) / 4)
	// Whole groups of four move as one 32-bit word (the bytes XOR flip in
	// every lane); the last k%4 indices one by one.
	wb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w))
	db := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst))
	flip4 := uint32(uint8(flip)) * 0x01010101
	k4 := k &^ 3
	for j := 0; j < n; j++ {
		blk := db[j/GemmBlock*blkLen : j/GemmBlock*blkLen+blkLen]
		l := 4 * (j % GemmBlock)
		row := wb[j*k : j*k+k]
		for i := 0; i < k4; i += 4 {
			binary.LittleEndian.PutUint32(blk[i*16+l:], binary.LittleEndian.Uint32(row[i:])^flip4)
		}
		for i := k4; i < k; i++ {
			blk[i/4*64+l+i%4] = row[i] ^ byte(flip)
		}
	}
}

// GemmInt8 computes m output pixels of n channels with exact int32
// accumulation:
//
//	dst[p·ldd + j] = seed[j] + Σ_{i<k} int32(a[p·lda + i])·int32(w[j·k + i])
//
// for p < m, j < n, where packed = PackGemmInt8(w, n, k). Sums wrap
// modulo 2^32 as TFLite's int32 arithmetic does (they cannot overflow for
// k < 2^17); every implementation gives the same bits. seed carries the
// bias and the zero-point terms of TFLite's integer convolutions
// (bias - input_zp·Σw, see ops.Conv2D). Strides as in GemmF32; it panics
// if a slice is shorter than the sizes say.
func GemmInt8(dst []int32, ldd int, a []int8, lda int, packed []int8, seed []int32, m, n, k int) {
	if m <= 0 || n <= 0 {
		return
	}
	if lda < k || ldd < n || k < 0 {
		panic("arch.GemmInt8: row stride shorter than the row")
	}
	_ = dst[(m-1)*ldd+n-1]
	_ = seed[n-1]
	if k == 0 {
		for p := 0; p < m; p++ {
			copy(dst[p*ldd:p*ldd+n], seed)
		}
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = packed[PackedGemmInt8Len(n, k)-1]
	gemmInt8(dst, ldd, a, lda, packed, seed, m, n, k)
}

var (
	gemmInt8Rq      func(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32)
	gemmInt8RqImpls = newImpls("GemmInt8Requantize", &gemmInt8Rq, gemmInt8RqGeneric)
)

// GemmInt8RequantizeInt8 is GemmInt8 followed by RequantizeChannelsInt8
// on every output pixel, without storing the int32 sums (the requantised
// output stage of TFLite's int8 and uint8 CONV_2D, bias, filter zero
// point and activation included):
//
//	s = seed[j] + Σ_i a[p·lda+i]·(w[j·k+i] - wZero)
//	dst[p·ldd + j] = int8(clamp(MBQM(s, channel j) + zp, lo, hi))
//
// for p < m, j < n (int32 arithmetic wrapping); wZero is the weights'
// zero point (0 for TFLite's symmetric int8 filters; a uint8 filter's
// zero point minus 128 once its values are re-centred to int8). q must
// have n channels (a ChannelRequant of another size is a kernel bug and
// panics), lo ≤ hi in [-128, 127]. Every implementation gives the same
// bits. Strides and panics as GemmInt8.
func GemmInt8RequantizeInt8(dst []int8, ldd int, a []int8, lda int, packed []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	if lo < -128 || hi > 127 || lo > hi {
		panic("arch.GemmInt8RequantizeInt8: clamp range outside [-128, 127]")
	}
	gemmInt8RqCheck(len(dst), ldd, a, lda, packed, seed, q, m, n, k)
	if m > 0 && n > 0 {
		gemmInt8Rq(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)), ldd, a, lda, packed, seed, wZero, q, m, n, k, zp, lo, hi)
	}
}

// GemmInt8RequantizeUint8 is GemmInt8RequantizeInt8 for uint8 outputs
// (TFLite's uint8 CONV_2D): lo ≤ hi in [0, 255].
func GemmInt8RequantizeUint8(dst []uint8, ldd int, a []int8, lda int, packed []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	if lo < 0 || hi > 255 || lo > hi {
		panic("arch.GemmInt8RequantizeUint8: clamp range outside [0, 255]")
	}
	gemmInt8RqCheck(len(dst), ldd, a, lda, packed, seed, q, m, n, k)
	if m > 0 && n > 0 {
		gemmInt8Rq(dst, ldd, a, lda, packed, seed, wZero, q, m, n, k, zp, lo, hi)
	}
}

func gemmInt8RqCheck(dstLen, ldd int, a []int8, lda int, packed []int8, seed []int32, q *ChannelRequant, m, n, k int) {
	if m <= 0 || n <= 0 {
		return
	}
	if lda < k || ldd < n || k < 1 {
		panic("arch.GemmInt8Requantize: row stride shorter than the row, or k < 1")
	}
	if q.n != n {
		panic("arch.GemmInt8Requantize: requantisation parameters for another channel count")
	}
	if dstLen < (m-1)*ldd+n {
		panic("arch.GemmInt8Requantize: destination too short")
	}
	_ = seed[n-1]
	_ = a[(m-1)*lda+k-1]
	_ = packed[PackedGemmInt8Len(n, k)-1]
}

// GemmPreferred reports, for the level in use, whether convolutions
// should run through GemmF32 (f32) and the int8 GEMMs (i8) rather than
// one MatVecMulAcc / MatVecMulAccInt8 per output pixel. It is false only
// where the matrix-vector product has assembly and the GEMM does not (no
// level today), where the per-pixel assembly would beat the portable GEMM.
// Both ways give results within the primitives' contracts (integer ones
// identical), so a kernel may decide once at Prepare.
func GemmPreferred() (f32, i8 bool) {
	mu.Lock()
	defer mu.Unlock()
	f32 = gemmF32Impls.cur != 0 || matVecMulAccImpls.cur == 0
	i8 = gemmInt8RqImpls.cur != 0 || matVecMulAccInt8Impls.cur == 0
	return f32, i8
}
