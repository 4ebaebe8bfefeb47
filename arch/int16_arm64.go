//go:build !purego

package arch

// The arm64 int16 row dot products (int16_neon_arm64.s), with the
// signature and contract of dotRowsInt16Generic, registered at the neon
// level (ASIMD is part of every arm64 CPU); DotRowsInt16 has checked the
// sizes (rows, cols ≥ 1, slices long enough).

//go:noescape
func dotRowsInt16NEON(dst []int32, a, b []int16, rows, cols int)

var _ = dotRowsInt16Impls.add("neon", NEON, nil, dotRowsInt16NEON)
