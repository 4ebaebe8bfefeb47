package arch

// requantChannelsGeneric is the portable RequantizeChannelsInt8/Uint8,
// one pixel at a time, with the branch-free form of requantInt8Generic
// (the floor form of the rounding doubling high multiply, exact for
// multipliers other than MinInt32, and the sign-bit rounding carry, the
// sign term masked by q's tie mask).
func requantChannelsGeneric(dst []byte, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	n := q.n
	mult, left, right := q.p[:n], q.p[2*q.stride:2*q.stride+n], q.p[3*q.stride:3*q.stride+n]
	mask, thr := q.p[4*q.stride:4*q.stride+n], q.p[5*q.stride:5*q.stride+n]
	tie := q.tie()
	dst = dst[:len(acc)]
	for p0 := 0; p0+n <= len(acc); p0 += n {
		a, d := acc[p0:p0+n], dst[p0:p0+n]
		for c, x := range a {
			h := int32((int64(x<<uint32(left[c]))*int64(mult[c]) + 1<<30) >> 31)
			th := thr[c] - h>>31&tie // one more for negative h, ties away
			r := h>>uint32(right[c]) + int32(uint32(th-h&mask[c])>>31)
			d[c] = byte(max(lo, min(r+zp, hi)))
		}
	}
}
