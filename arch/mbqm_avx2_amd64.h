// MBQM, shared by the AVX2 quantised ADD/SUB (addquant_avx2_amd64.s), MUL
// (mulquant_avx2_amd64.s) and PRELU (preluquant_avx2_amd64.s) kernels:
// TFLite's MultiplyByQuantizedMultiplier on eight int32 lanes, bit-exact
// with the portable kernels:
//
//	x = Y0 << left                        VPSLLD (wraps)
//	h = (x·mult + 2^30) >> 31             VPMULDQ on the even and the odd
//	                                      lanes, bits 31..62 of each product
//	Y1 = (h >> right) + (h&mask + (h<0 ? -1 : 0) > thr)
//	                                      the rounding divide, ties away
//	                                      from zero
//
// The stage's rows (eight int32 each) lie at byte offsets mult, mask,
// thr, left and right of R8; Y10 holds the rounding constant 2^30 in
// every 64-bit lane. Clobbers Y0, Y2-Y4.
#define MBQM(mult, mask, thr, left, right) \
	VPSLLD   left(R8), Y0, Y0   \
	VPMULDQ  mult(R8), Y0, Y1   \
	VPSRLQ   $32, Y0, Y2        \
	VPMULDQ  mult(R8), Y2, Y2   \
	VPADDQ   Y10, Y1, Y1        \
	VPADDQ   Y10, Y2, Y2        \
	VPSRLQ   $31, Y1, Y1        \
	VPSRLQ   $31, Y2, Y2        \
	VPSLLQ   $32, Y2, Y2        \
	VPBLENDD $0xaa, Y2, Y1, Y1  \
	VPAND    mask(R8), Y1, Y3   \
	VPSRAD   $31, Y1, Y4        \
	VPADDD   Y4, Y3, Y3         \
	VPCMPGTD thr(R8), Y3, Y3    \
	VPSRAD   right(R8), Y1, Y1  \
	VPSUBD   Y3, Y1, Y1
