// Per-channel requantisation on 16 int32 lanes (AVX-512), shared by the
// standalone kernel (requant_channel_avx512_amd64.s) and the fused
// epilogues of the int8 GEMM and depthwise kernels. Bit-exact with
// requantChannelsGeneric (requant_channel_generic.go):
//
//	x = acc << left                       VPSLLVD (wraps)
//	h = (x·mult + 2^30) >> 31             VPMULDQ on the even lanes (mult)
//	                                      and on the odd lanes shifted down
//	                                      (mult of the next channel), bits
//	                                      31..62 of each 64-bit product
//	r = (h >> right) + (h&mask + (h>>31) > thr)
//	                                      the rounding carry: remainder above
//	                                      half, or above half plus one for
//	                                      negative h
//	out = clamp(r + zp, lo, hi)
//
// Registers (set up by the kernel): Z22 mult, Z23 next mult, Z24 left,
// Z25 right, Z26 mask, Z27 thr (the ChannelRequant rows at the lanes'
// channels); Z28 2^30 in every qword; Z29 1 in every dword; Z30 zp; Z31
// lo; Z21 hi; K4 the odd lanes (0xaaaa).

// RQPARAMS loads the six parameter rows at base (the ChannelRequant
// block, rows stride bytes apart) plus off into Z22-Z27. Clobbers tmp.
#define RQPARAMS(base, off, stride, tmp) \
	LEAQ      (base)(off*1), tmp \
	VMOVDQU32 (tmp), Z22         \
	ADDQ      stride, tmp        \
	VMOVDQU32 (tmp), Z23         \
	ADDQ      stride, tmp        \
	VMOVDQU32 (tmp), Z24         \
	ADDQ      stride, tmp        \
	VMOVDQU32 (tmp), Z25         \
	ADDQ      stride, tmp        \
	VMOVDQU32 (tmp), Z26         \
	ADDQ      stride, tmp        \
	VMOVDQU32 (tmp), Z27

// RQCONSTS sets Z28, Z29, K4 and Z30, Z31, Z21 from the int32 arguments
// zp, lo, hi. Clobbers tmp.
#define RQCONSTS(zp, lo, hi, tmp) \
	MOVQ         $0x40000000, tmp \
	VPBROADCASTQ tmp, Z28         \
	MOVL         $1, tmp          \
	VPBROADCASTD tmp, Z29         \
	MOVL         $0xaaaa, tmp     \
	KMOVW        tmp, K4          \
	MOVL         zp, tmp          \
	VPBROADCASTD tmp, Z30         \
	MOVL         lo, tmp          \
	VPBROADCASTD tmp, Z31         \
	MOVL         hi, tmp          \
	VPBROADCASTD tmp, Z21

// RQ16 requantises the 16 lanes of x in place (clamped int32 results).
// Clobbers t1, t2 and K3. It is RQLEFT, RQCORE, RQCLAMP; kernels that know
// the left shifts are all 0 or the clamp is the full int8/uint8 range (so
// that the narrowing VPMOVSDB, or VPMAXSD 0 and VPMOVUSDB, does it) use
// the parts (see RQF_* and RQNARROW).
#define RQ16(x, t1, t2) \
	RQLEFT(x)          \
	RQCORE(x, t1, t2)  \
	RQCLAMP(x)

#define RQLEFT(x) \
	VPSLLVD Z24, x, x

// RQCORE is RQ16 without the left shift and the clamp (zp added).
#define RQCORE(x, t1, t2) \
	VPMULDQ   Z22, x, t1     \
	VPSRLQ    $32, x, t2     \
	VPMULDQ   Z23, t2, t2    \
	VPADDQ    Z28, t1, t1    \
	VPADDQ    Z28, t2, t2    \
	VPSRLQ    $31, t1, t1    \
	VPSLLQ    $1, t2, t2     \
	VPBLENDMD t2, t1, K4, x  \
	VPANDD    Z26, x, t1     \
	VPSRAD    $31, x, t2     \
	VPADDD    t2, t1, t1     \
	VPCMPGTD  Z27, t1, K3    \
	VPSRAVD   Z25, x, x      \
	VPADDD    Z29, x, K3, x  \
	VPADDD    Z30, x, x

#define RQCLAMP(x) \
	VPMAXSD Z31, x, x \
	VPMINSD Z21, x, x

// Requantisation flags (rqFlags in requant_channel.go): RQF_LEFT, some
// channel has a left shift; RQF_NARROW (two bits): 0 clamp then truncate
// (VPMOVDB), 1 the clamp is [-128, 127] (VPMOVSDB saturates), 2 it is
// [0, 255] (VPMAXSD with lo = 0, then VPMOVUSDB).
#define RQF_LEFT 1
#define RQF_SAT8 2
#define RQF_USAT8 4

// The same on 8 lanes (EVEX YMM), for channel counts up to 8: Y22-Y31,
// Y21 and K4 (low 8 bits) as above.
#define RQCONSTSY(zp, lo, hi, tmp) \
	MOVQ         $0x40000000, tmp \
	VPBROADCASTQ tmp, Y28         \
	MOVL         $1, tmp          \
	VPBROADCASTD tmp, Y29         \
	MOVL         $0xaaaa, tmp     \
	KMOVW        tmp, K4          \
	MOVL         zp, tmp          \
	VPBROADCASTD tmp, Y30         \
	MOVL         lo, tmp          \
	VPBROADCASTD tmp, Y31         \
	MOVL         hi, tmp          \
	VPBROADCASTD tmp, Y21

#define RQLEFTY(x) \
	VPSLLVD Y24, x, x

#define RQCOREY(x, t1, t2) \
	VPMULDQ   Y22, x, t1     \
	VPSRLQ    $32, x, t2     \
	VPMULDQ   Y23, t2, t2    \
	VPADDQ    Y28, t1, t1    \
	VPADDQ    Y28, t2, t2    \
	VPSRLQ    $31, t1, t1    \
	VPSLLQ    $1, t2, t2     \
	VPBLENDMD t2, t1, K4, x  \
	VPANDD    Y26, x, t1     \
	VPSRAD    $31, x, t2     \
	VPADDD    t2, t1, t1     \
	VPCMPGTD  Y27, t1, K3    \
	VPSRAVD   Y25, x, x      \
	VPADDD    Y29, x, K3, x  \
	VPADDD    Y30, x, x

#define RQCLAMPY(x) \
	VPMAXSD Y31, x, x \
	VPMINSD Y21, x, x
