package interpreter

import "testing"

// SeedModels returns the small models this package's internal tests
// build, packed, for FuzzLoadAllocateInvoke (package interpreter_test,
// which can import internal/hostile: this package's own tests cannot,
// since hostile builds with optest, which imports the interpreter).
func SeedModels(tb testing.TB) [][]byte {
	return [][]byte{
		pack(fcModel()),
		pack(lstmModel()),
		pack(reshapeModel([]int32{3, 2}, []int32{3, 2})),
		pack(dequantModel(tb, false)), // float16 weights: precomputed DEQUANTIZE
	}
}
