//go:build !linux

package arch

import "testing"

// Without mprotect the inputs are ordinary slices: over-reads go
// unnoticed here and are caught on Linux.

func tailF32(t testing.TB, n int) []float32 { return make([]float32, n) }

func tailI8(t testing.TB, n int) []int8 { return make([]int8, n) }

func tailI32(t testing.TB, n int) []int32 { return make([]int32, n) }
