package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestFullyConnectedPackedWeights: float FULLY_CONNECTED with constant
// weights (packed at Prepare, arch.MatVecMulAccPacked) and with the same
// weights in the arena (row-major product) both agree with a float64
// reference, over units that fill, straddle and fall short of the packed
// 16-row blocks, input sizes up to and past fcPackSmallCols and
// fcPackMaxCols, batches and activations.
func TestFullyConnectedPackedWeights(t *testing.T) {
	r := lcg(41)
	for _, units := range []int{1, 5, 16, 17, 40, 64, 100} {
		for _, cols := range []int{1, 3, 16, 20, 33, fcPackSmallCols, fcPackSmallCols + 1, 784, fcPackMaxCols + 1} {
			if cols > fcPackMaxCols && units > 5 {
				continue
			}
			batch := 1 + (units+cols)%3
			act := []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActRelu6}[(units*cols)%3]
			x, w, bias := make([]float32, batch*cols), make([]float32, units*cols), make([]float32, units)
			for i := range x {
				x[i] = r.float(-1, 1)
			}
			for i := range w {
				w[i] = r.float(-1, 1)
			}
			for i := range bias {
				bias[i] = r.float(-1, 1)
			}
			for _, constant := range []bool{true, false} {
				wt := tensorOf(ops.Float32, []int{units, cols}, w)
				if constant {
					wt = constT(wt)
				}
				n := node(&FullyConnectedOptions{Activation: act},
					[]*ops.Tensor{tensorOf(ops.Float32, []int{batch, cols}, x), wt, constT(tensorOf(ops.Float32, []int{units}, bias))},
					outTensor(ops.Float32))
				k := NewFullyConnected()
				run(t, k, n)
				if packed := k.(*FullyConnected).packed != nil; packed != (constant && fcPacks(units, cols)) {
					t.Fatalf("units %d cols %d constant %v: packed = %v", units, cols, constant, packed)
				}
				lo, hi := ActivationRangeFloat(act)
				got := n.Outputs[0].Float32s()
				for b := 0; b < batch; b++ {
					for u := 0; u < units; u++ {
						ref, abs := float64(bias[u]), math.Abs(float64(bias[u]))
						for c := 0; c < cols; c++ {
							p := float64(w[u*cols+c]) * float64(x[b*cols+c])
							ref += p
							abs += math.Abs(p)
						}
						ref = min(max(ref, float64(lo)), float64(hi))
						if d := math.Abs(float64(got[b*units+u]) - ref); d > float64(cols+2)*0x1p-23*abs {
							t.Fatalf("%s: batch %d unit %d = %v, want %v", fmt.Sprintf("units %d cols %d constant %v", units, cols, constant), b, u, got[b*units+u], ref)
						}
					}
				}
				noAllocs(t, k, n)
			}
		}
	}
}
