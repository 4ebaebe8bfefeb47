//go:build !purego

package arch

// The amd64 per-channel requantisation kernels
// (requant_channel_avx2_amd64.s, requant_channel_avx512_amd64.s).

//go:noescape
func requantChannelsAVX512(dst *byte, acc *int32, total, period int, p *int32, stride int, tailFull, tailLast uint64, zp, lo, hi int32)

//go:noescape
func requantChannelsAVX2(dst *byte, acc *int32, total, period int, p *int32, stride int, maskFull, maskLast *int32, zp, lo, hi int32)

func requantChannelsAVX512Go(dst []byte, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	if len(acc) == 0 {
		return
	}
	tailFull := uint64(1)<<(q.period%16) - 1
	tailLast := uint64(1)<<(len(acc)%q.period%16) - 1
	requantChannelsAVX512(&dst[0], &acc[0], len(acc), q.period, &q.p[0], q.stride, tailFull, tailLast, zp, lo, hi)
}

func requantChannelsAVX2Go(dst []byte, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	if len(acc) == 0 {
		return
	}
	full, last := q.period%8, len(acc)%q.period%8
	requantChannelsAVX2(&dst[0], &acc[0], len(acc), q.period, &q.p[0], q.stride, &tailMask32[8-full], &tailMask32[8-last], zp, lo, hi)
}

var (
	_ = requantChannelsImpls.add("avx2", AVX2, nil, requantChannelsAVX2Go)
	_ = requantChannelsImpls.add("avx512", AVX512, nil, requantChannelsAVX512Go)
)
