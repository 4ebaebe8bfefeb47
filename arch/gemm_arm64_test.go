//go:build !purego

package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTwinGemmInt8MMLA checks the USMMLA block kernel itself against the
// int64 reference, for every reduction length 1..257 (GemmInt8 gives it
// only k ≥ mmlaMinK), 4, 8 and 12 rows, row strides longer than the rows
// and rows starting at odd addresses, the last row ending right before an
// inaccessible page (so a read past k faults), weights likewise, guard
// bands and row gaps in the destination, the extreme values (all -128,
// ±127) and seeds near the int32 limits (the sums wrap as TFLite's do).
// It skips on CPUs without FEAT_I8MM (qemu-aarch64 -cpu max has it).
func TestTwinGemmInt8MMLA(t *testing.T) {
	if !cpuInfo.Has(FeatI8MM) {
		t.Skip("this CPU lacks FEAT_I8MM (HWCAP2_I8MM); qemu-aarch64 -cpu max has it")
	}
	block := func(dst []int32, ldd int, a []int8, lda int, packed []int8, seed []int32, m, n, k int) {
		gemmInt8BlockMMLA(&dst[0], ldd, &a[0], lda, &packed[0], &seed[0], m, k)
	}
	r := rand.New(rand.NewPCG(16, 8))
	for k := 1; k <= 257; k++ {
		for _, m := range []int{4, 8, 12} {
			if m == 12 && k%5 != 0 {
				continue
			}
			c := gemmCase{m: m, n: GemmBlock, k: k, lda: k + (k+m)%3, ldd: GemmBlock + k%2}
			off := (k + m) % 4
			a := tailI8(t, (m-1)*c.lda+k+off)[off:]
			packed := tailI8(t, PackedGemmInt8Len(c.n, k))
			seed := make([]int32, c.n)
			w := make([]int8, c.n*k)
			kind := (k + m) % 3
			genI8(r, a, kind)
			genI8(r, w, (kind+k/3)%3)
			for j := range seed {
				seed[j] = []int32{0, int32(r.Uint32()), math.MaxInt32 - 100, math.MinInt32 + 100}[r.IntN(4)]
			}
			PackGemmInt8(packed, w, c.n, k)
			checkGemmInt8(t, "gemmInt8BlockMMLA", block, c, a, w, packed, seed)
		}
	}
}
