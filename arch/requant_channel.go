package arch

import (
	"fmt"
	"math"
	"unsafe"
)

// Per-channel requantisation of int32 accumulator tiles laid out
// [pixels][channels] (the output stage of TFLite's integer CONV_2D,
// DEPTHWISE_CONV_2D and per-channel FULLY_CONNECTED), vectorised across
// channels: each channel's MultiplyByQuantizedMultiplier parameters sit in
// one lane of parameter vectors prepared once.

// ChannelRequant holds the requantisation parameters of n channels in the
// layout the kernels read. Make one with NewChannelRequant; it is
// read-only afterwards and may be shared.
type ChannelRequant struct {
	n       int  // channels
	anyLeft bool // some channel has a left shift (shift > 0)
	period  int  // parameter period in elements: n, or 16 when n divides 16
	stride  int  // elements per parameter row (period rounded up to 16)
	// p holds 7 rows of stride values; row r, element i is parameter r of
	// channel i % n for i < period (padding: multiplier 0, shifts 0):
	// 0 multiplier; 1 multiplier of the next channel (element i holds
	// channel (i+1) % n's, so that the odd lanes' multipliers are in the
	// even positions VPMULDQ reads); 2 left shift; 3 right shift; 4
	// rounding mask 2^right-1; 5 rounding threshold mask>>1; 6 the tie
	// mask (tieAway or tieUp, the same in every element, padding
	// included: the AVX-512 kernels load its low 16 bits into K5 and the
	// AVX2 one broadcasts element 0); 7-10 the one-rounding form of
	// ties upward (upRows), as pairs of elements forming little-endian
	// int64s, 64-bit lane i covering elements 2i, 2i+1: 7 the rounding
	// addend 2^30 + 2^(30+right) (2^30 for right = 0) of element 2i's
	// channel, 8 that of element 2i+1's, 9 and 10 their shifts
	// 31 + right.
	p []int32
}

// qRows is the number of parameter rows of a ChannelRequant.
const qRows = 11

// upRows is the first of the rows of the one-rounding form of
// MultiplyByQuantizedMultiplierUp: with ties upward the two roundings
// nest into one, exactly,
//
//	floor((floor((x·m + 2^30) / 2^31) + 2^(e-1)) / 2^e)
//	        = floor((x·m + 2^30 + 2^(30+e)) / 2^(31+e))    (e ≥ 1)
//
// (floor(floor(a/b)/c) = floor(a/(b·c)) for integer a, positive b, c), one
// 64-bit add and arithmetic shift per product, no overflow for |x·m| <
// 2^62. The AVX-512 GEMM epilogues use it (RQF_UP).
const upRows = 7

// NewChannelRequant prepares the parameters of channels c < len(mult):
// TFLite's MultiplyByQuantizedMultiplier(x, mult[c], shift[c]) with its
// default double rounding (ties of the final shift away from zero), as
// its depthwise convolutions, its reference kernels and the uint8 GEMMs it
// runs through gemmlowp compute it. It returns an error if the slices'
// lengths differ or are 0, a shift is outside [-31, 31] or a multiplier
// is MinInt32 (QuantizeMultiplier never gives those).
func NewChannelRequant(mult []int32, shift []int) (*ChannelRequant, error) {
	return newChannelRequant(mult, shift, tieAway)
}

// NewChannelRequantUp is NewChannelRequant for
// MultiplyByQuantizedMultiplierUp(x, mult[c], shift[c]) (ties of the
// final shift upward): the output stage of the int8 GEMMs TFLite runs
// through ruy on x86 (CONV_2D, FULLY_CONNECTED, BATCH_MATMUL and their
// 16x8 forms). Same errors.
func NewChannelRequantUp(mult []int32, shift []int) (*ChannelRequant, error) {
	return newChannelRequant(mult, shift, tieUp)
}

func newChannelRequant(mult []int32, shift []int, tie int32) (*ChannelRequant, error) {
	n := len(mult)
	if n == 0 || len(shift) != n {
		return nil, fmt.Errorf("arch: %d multipliers and %d shifts, need the same non-zero count", n, len(shift))
	}
	for c := range mult {
		if mult[c] == math.MinInt32 {
			return nil, fmt.Errorf("arch: channel %d: multiplier MinInt32 is not supported", c)
		}
		if shift[c] < -31 || shift[c] > 31 {
			return nil, fmt.Errorf("arch: channel %d: shift %d outside [-31, 31]", c, shift[c])
		}
	}
	q := &ChannelRequant{n: n, period: n}
	if n < 16 && 16%n == 0 {
		q.period = 16
	}
	q.stride = (q.period + 15) / 16 * 16
	q.p = make([]int32, qRows*q.stride)
	row := func(r int) []int32 { return q.p[r*q.stride : (r+1)*q.stride] }
	for i := 0; i < q.period; i++ {
		c := i % n
		left, right := 0, 0
		if shift[c] > 0 {
			left = shift[c]
		} else {
			right = -shift[c]
		}
		mask := int32(1)<<right - 1
		q.anyLeft = q.anyLeft || left > 0
		row(0)[i] = mult[c]
		if i+1 < q.period {
			row(1)[i] = mult[(i+1)%n]
		}
		row(2)[i] = int32(left)
		row(3)[i] = int32(right)
		row(4)[i] = mask
		row(5)[i] = mask >> 1
		add := int64(1) << 30
		if right > 0 {
			add += int64(1) << (30 + right)
		}
		r := upRows + i%2 // the even or the odd lanes' row
		j := i &^ 1       // the 64-bit lane's first element
		row(r)[j], row(r)[j+1] = int32(add), int32(add>>32)
		row(r + 2)[j] = int32(31 + right)
	}
	for i := range row(6) {
		row(6)[i] = tie
	}
	return q, nil
}

// rqFlags returns the flags of the amd64 requantising epilogues
// (RQF_* in requant_channel_amd64.h): 1 if some channel shifts left; 2
// if the clamp [lo, hi] is int8's full range, 4 if it is uint8's (the
// saturating narrowing does the clamp); 8 if ties round upward (the GEMM
// epilogues then use the one-rounding rows, upRows).
func (q *ChannelRequant) rqFlags(lo, hi int32) uint64 {
	var f uint64
	if q.anyLeft {
		f |= 1
	}
	if q.tie() == tieUp {
		f |= 8
	}
	switch {
	case lo == -128 && hi == 127:
		f |= 2
	case lo == 0 && hi == 255:
		f |= 4
	}
	return f
}

// Channels returns the number of channels q was made for.
func (q *ChannelRequant) Channels() int { return q.n }

// tie returns q's tie mask (tieAway, tieUp).
func (q *ChannelRequant) tie() int32 { return q.p[6*q.stride] }

var (
	requantChannels      func(dst []byte, acc []int32, q *ChannelRequant, zp, lo, hi int32)
	requantChannelsImpls = newImpls("RequantizeChannels", &requantChannels, requantChannelsGeneric)
)

// RequantizeChannelsInt8 sets, for every i < len(acc) with channel
// c = i % q.Channels(),
//
//	dst[i] = int8(clamp(MultiplyByQuantizedMultiplier(acc[i], mult[c], shift[c]) + zp, lo, hi))
//
// (TFLite's double rounding, or MultiplyByQuantizedMultiplierUp for a q
// from NewChannelRequantUp; the + zp wraps in int32), the per-channel
// output stage of TFLite's int8 convolutions. acc is a tile of whole
// pixels (len(acc) a multiple of the channel count); dst must be at least
// as long. lo ≤ hi must lie in [-128, 127]. Every implementation gives the
// same bits. It panics on a bad length or range (a kernel bug).
func RequantizeChannelsInt8(dst []int8, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	if lo < -128 || hi > 127 || lo > hi {
		panic("arch.RequantizeChannelsInt8: clamp range outside [-128, 127]")
	}
	requantChannelsCheck(len(dst), acc, q)
	requantChannels(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)), acc, q, zp, lo, hi)
}

// RequantizeChannelsUint8 is RequantizeChannelsInt8 for uint8 outputs
// (TFLite's uint8 convolutions): lo ≤ hi must lie in [0, 255].
func RequantizeChannelsUint8(dst []uint8, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	if lo < 0 || hi > 255 || lo > hi {
		panic("arch.RequantizeChannelsUint8: clamp range outside [0, 255]")
	}
	requantChannelsCheck(len(dst), acc, q)
	requantChannels(dst, acc, q, zp, lo, hi)
}

func requantChannelsCheck(dstLen int, acc []int32, q *ChannelRequant) {
	if len(acc)%q.n != 0 {
		panic("arch.RequantizeChannels: accumulators are not whole pixels")
	}
	if dstLen < len(acc) {
		panic("arch.RequantizeChannels: destination shorter than the accumulators")
	}
}
