package fused

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// Test helpers: hand-built tensors and nodes standing in for the
// interpreter.

// bytesOf reinterprets a typed slice as its little-endian bytes (the
// machines tflrun targets are little-endian).
func bytesOf[E any](s []E) []byte {
	if len(s) == 0 {
		return nil
	}
	var z E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// constTensor makes a constant tensor holding data.
func constTensor[E any](typ ops.DataType, shape []int, data []E) *ops.Tensor {
	cp := append([]E(nil), data...)
	return &ops.Tensor{Type: typ, Shape: shape, Kind: ops.ConstTensor, Data: bytesOf(cp)}
}

// f32 makes a constant float32 tensor.
func f32(shape []int, data []float32) *ops.Tensor { return constTensor(ops.Float32, shape, data) }

// varTensor makes a zero-filled variable tensor of n elements.
func varTensor(typ ops.DataType, shape []int) *ops.Tensor {
	t := &ops.Tensor{Type: typ, Shape: shape, Kind: ops.VariableTensor}
	t.Data = alignedBytes(t.Bytes())
	return t
}

// alignedBytes returns n zero bytes starting at a 64-byte boundary.
func alignedBytes(n int) []byte {
	b := make([]byte, n+64)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & 63)
	return b[off : off+n : off+n]
}

// quant sets a per-tensor quantisation on t and returns it.
func quant(t *ops.Tensor, scale float32, zp int32) *ops.Tensor {
	t.Quant = &ops.Quantization{Scale: []float32{scale}, ZeroPoint: []int64{int64(zp)}}
	return t
}

// prepared runs Prepare and then plays the interpreter's part: it
// allocates the output and the requested scratch.
func prepared(t *testing.T, k ops.Kernel, n *ops.Node) {
	t.Helper()
	n.ResetScratch()
	if err := k.Prepare(n); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	for _, out := range n.Outputs {
		out.Data = alignedBytes(out.Bytes())
	}
	for _, sz := range n.ScratchSizes() {
		// Fill scratch with garbage: the kernel must not rely on it.
		b := alignedBytes(sz)
		for i := range b {
			b[i] = 0xA5
		}
		n.Scratch = append(n.Scratch, b)
	}
}

// maxAbsDiff returns the largest |a[i]-b[i]| and its index.
func maxAbsDiff(a []float32, b []float64) (float64, int) {
	worst, at := 0.0, -1
	for i := range a {
		d := math.Abs(float64(a[i]) - b[i])
		if d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	return worst, at
}

// newTestRand returns a deterministic generator for seed.
func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
