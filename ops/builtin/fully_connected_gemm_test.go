package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestFullyConnectedInt8GemmMatchesRows holds the int8 batch GEMM
// (fully_connected_gemm.go) to the row-by-row path (int8Rows) bit for bit:
// random batches of 4-40 rows, 1-70 units, 1-90 columns, weights with and
// without a zero point (yolo11n's attention multiplies activations with
// zero points 11 and -128), constant and non-constant weights, per-tensor
// and per-channel scales, with and without bias, NONE and RELU, ruy's
// upward ties and ties away from zero, and the thread sweep (run).
func TestFullyConnectedInt8GemmMatchesRows(t *testing.T) {
	r := lcg(41)
	for trial := range 60 {
		batch, units, cols := r.intn(4, 40), r.intn(1, 70), r.intn(1, 90)
		wzp := []int64{0, 0, 11, -128, 5}[r.intn(0, 4)]
		xzp := int64(r.intn(-128, 127))
		perChannel := r.intn(0, 2) == 0 && wzp == 0
		act := []ops.Activation{ops.ActNone, ops.ActRelu}[r.intn(0, 1)]
		x := make([]int8, batch*cols)
		w := make([]int8, units*cols)
		for i := range x {
			x[i] = int8(r.intn(-128, 127))
		}
		for i := range w {
			w[i] = int8(r.intn(-128, 127))
		}
		wScales := []float32{0.01 + 0.02*float32(r.intn(0, 9))}
		if perChannel {
			wScales = make([]float32, units)
			for u := range wScales {
				wScales[u] = 0.005 + 0.003*float32(r.intn(0, 20))
			}
		}
		inScale := float32(0.05 + 0.01*float32(r.intn(0, 10)))
		mk := func() *ops.Node {
			wt := tensorOf(ops.Int8, []int{units, cols}, append([]int8(nil), w...))
			if r.intn(0, 1) == 0 {
				wt = constT(wt)
			}
			zps := make([]int64, len(wScales))
			for i := range zps {
				zps[i] = wzp
			}
			wt.Quant = &ops.Quantization{Scale: wScales, ZeroPoint: zps}
			ins := []*ops.Tensor{q(tensorOf(ops.Int8, []int{batch, cols}, append([]int8(nil), x...)), inScale, xzp), wt}
			if trial%3 != 0 {
				b := make([]int32, units)
				bs := make([]float32, units)
				for u := range b {
					b[u] = int32(r.intn(-5000, 5000))
					bs[u] = inScale * wScales[min(u, len(wScales)-1)]
				}
				bt := constT(tensorOf(ops.Int32, []int{units}, b))
				bt.Quant = &ops.Quantization{Scale: bs, ZeroPoint: make([]int64, units)}
				ins = append(ins, bt)
			}
			outScale := inScale * wScales[0] * float32(cols) / 8
			return node(&FullyConnectedOptions{Activation: act}, ins, q(outTensor(ops.Int8), outScale, int64(r.intn(-20, 20))))
		}
		// Every fourth trial rounds ties away from zero (the arithmetic
		// of sparse weights, which take this path too).
		away := trial%4 == 3
		seed := r
		n := mk()
		k := NewFullyConnected()
		run(t, k, n)
		fc := k.(*FullyConnected)
		if fc.gemm == nil {
			t.Fatalf("trial %d: batch %d took the row path", trial, batch)
		}
		if away {
			fc.roundAway = true
			if err := fc.prepareGemm(n.Outputs[0]); err != nil {
				t.Fatal(err)
			}
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
		}
		got := append([]int8(nil), n.Outputs[0].Int8s()...)
		r = seed
		n2 := mk()
		k2 := NewFullyConnected()
		if err := prepare(k2, n2); err != nil {
			t.Fatal(err)
		}
		k2.(*FullyConnected).gemm = nil // the row path
		k2.(*FullyConnected).roundAway = away
		if err := k2.Eval(n2); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("trial %d: batch %d units %d cols %d wzp %d xzp %d per-channel %v %s ties away %v", trial, batch, units, cols, wzp, xzp, perChannel, act, away)
		for i, v := range n2.Outputs[0].Int8s() {
			if got[i] != v {
				t.Fatalf("%s: output %d is %d, the row path gives %d", name, i, got[i], v)
			}
		}
	}
}

// BenchmarkFullyConnectedInt8Batch times yolo11n's attention products
// (non-constant int8 weights with a zero point) through the batch GEMM
// and through the row path: go test ./ops/builtin -bench
// FullyConnectedInt8Batch.
func BenchmarkFullyConnectedInt8Batch(b *testing.B) {
	for _, c := range [][3]int{{400, 32, 400}, {64, 400, 400}} {
		batch, cols, units := c[0], c[1], c[2]
		r := lcg(3)
		x, w := make([]int8, batch*cols), make([]int8, units*cols)
		for i := range x {
			x[i] = int8(r.intn(-128, 127))
		}
		for i := range w {
			w[i] = int8(r.intn(-128, 127))
		}
		wt := tensorOf(ops.Int8, []int{units, cols}, w)
		wt.Quant = &ops.Quantization{Scale: []float32{0.1}, ZeroPoint: []int64{11}}
		n := node(&FullyConnectedOptions{}, []*ops.Tensor{q(tensorOf(ops.Int8, []int{batch, cols}, x), 0.1, -128), wt}, q(outTensor(ops.Int8), 0.7, -25))
		for _, path := range []string{"gemm", "rows"} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", batch, cols, units, path), func(b *testing.B) {
				k := NewFullyConnected()
				if err := prepare(k, n); err != nil {
					b.Fatal(err)
				}
				if path == "rows" {
					k.(*FullyConnected).gemm = nil
				}
				for b.Loop() {
					if err := k.Eval(n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
