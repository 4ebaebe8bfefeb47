//go:build !purego && (arm64 || arm.7)

package arch

// The NEON per-channel requantisation of arm64
// (requant_channel_neon_arm64.s) and of 32-bit ARM in GOARM=7 builds
// (requant_channel_neon_arm.s, the same instructions), which share this
// wrapper and registration. The assembly does four channels per step; when
// the parameter period is 16 (the channel count divides 16) the tile is
// one run of 16-channel "pixels" with the same parameter vectors, else
// each pixel's first n&^3 channels, and the portable code does what is
// left (the last n%4 channels of each pixel, or the last len%16 values).

//go:noescape
func requantRowsNEON(dst *byte, acc *int32, rows, nv, ps int, qp *int32, qstride int, zp, lo, hi int32)

func requantChannelsNEON(dst []byte, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	if len(acc) == 0 {
		return
	}
	dst = dst[:len(acc)]
	if q.period == 16 {
		rows := len(acc) / 16
		if rows > 0 {
			requantRowsNEON(&dst[0], &acc[0], rows, 16, 4*16, &q.p[0], 4*q.stride, zp, lo, hi)
		}
		if done := rows * 16; done < len(acc) {
			requantSpan(dst[done:], acc[done:], q, 0, zp, lo, hi)
		}
		return
	}
	n := q.n
	rows := len(acc) / n
	nv := n &^ 3
	if nv > 0 {
		requantRowsNEON(&dst[0], &acc[0], rows, nv, 4*n, &q.p[0], 4*q.stride, zp, lo, hi)
	}
	if nv < n {
		for p := 0; p < rows; p++ {
			requantSpan(dst[p*n+nv:p*n+n], acc[p*n+nv:p*n+n], q, nv, zp, lo, hi)
		}
	}
}

var _ = requantChannelsImpls.add("neon", NEON, nil, requantChannelsNEON)
