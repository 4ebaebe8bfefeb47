package interpreter

import "math"

// index32 converts a flatbuffer's uint32 index (a buffer, tensor,
// subgraph or operator-code index) to int for the range checks. On
// 32-bit platforms int(u) would turn indices of 2^31 and above negative
// and slip past a `>= len` check; saturating at MaxInt keeps them out of
// range instead.
func index32(u uint32) int {
	if uint64(u) > math.MaxInt {
		return math.MaxInt
	}
	return int(u)
}
