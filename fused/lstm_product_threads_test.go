package fused

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// TestPackedProductSplit: a packed product computed block by block of
// productUnit rows (each unit its own packedProduct.run call, the
// finest split threads make) and through productOn on 2, 3 and 4 threads
// with every product split is bit-identical to matBatchVecMulAccPacked,
// on random and edge sizes.
func TestPackedProductSplit(t *testing.T) {
	r := newTestRand(11)
	defer parallel.SetMinWork(parallel.SetMinWork(0))
	pools := []*parallel.Pool{parallel.New(2), parallel.New(3), parallel.New(4)}
	defer func() {
		for _, p := range pools {
			p.Stop()
		}
	}()
	sizes := [][3]int{{1, 1, 1}, {15, 7, 1}, {16, 16, 1}, {17, 33, 2}, {64, 257, 1}, {100, 31, 3}, {1024, 256, 1}}
	for i := 0; i < 20; i++ {
		sizes = append(sizes, [3]int{1 + r.IntN(200), 1 + r.IntN(300), 1 + r.IntN(3)})
	}
	for _, sz := range sizes {
		rows, cols, nb := sz[0], sz[1], sz[2]
		m := make([]float32, rows*cols)
		for j := range m {
			m[j] = float32(r.NormFloat64())
		}
		p := arch.PackMatrix(m, rows, cols)
		x := make([]float32, nb*cols)
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		seed := make([]float32, nb*rows)
		for j := range seed {
			seed[j] = float32(r.NormFloat64())
		}
		want := append([]float32(nil), seed...)
		matBatchVecMulAccPacked(want, p, rows, cols, x, nb)
		same := func(what string, got []float32) {
			t.Helper()
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("rows %d cols %d nb %d, %s: element %d = %v, want %v", rows, cols, nb, what, j, got[j], want[j])
				}
			}
		}
		got := append([]float32(nil), seed...)
		pp := packedProduct{dst: got, p: p, x: x, rows: rows, cols: cols, nb: nb}
		for u := 0; u*productUnit < rows; u++ {
			pp.run(0, u, u+1)
		}
		same("block by block", got)
		c := newLSTMCell(lstmConfig{}, lstmPathFloat)
		for _, pool := range pools {
			got := append([]float32(nil), seed...)
			c.productOn(&ops.Node{Pool: pool}, got, p, rows, cols, x, nb)
			same("threaded", got)
		}
	}
}
