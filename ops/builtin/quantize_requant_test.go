package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestQuantizeRequantizeToInt8: QUANTIZE from int8, uint8, int16 and int32
// to int8 (the arch.RequantizeInt8 path, in chunks of quantizeChunk)
// gives MultiplyByQuantizedMultiplier(q − zp_in) + zp_out clamped, for
// random and extreme inputs, scale ratios from 2^-20 to 2^10 and sizes
// around the chunk size.
func TestQuantizeRequantizeToInt8(t *testing.T) {
	r := lcg(51)
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8, ops.Int16, ops.Int32} {
		lo, hi, _ := ops.TypeRange(typ)
		for trial, size := range []int{1, 7, 96, quantizeChunk - 1, quantizeChunk, 2*quantizeChunk + 5} {
			inScale := float32(math.Ldexp(0.5+float64(r.next()%1000)/2000, r.intn(-10, 10)))
			outScale := float32(math.Ldexp(0.5+float64(r.next()%1000)/2000, r.intn(-10, 10)))
			inZP := int64(0)
			if typ != ops.Int32 {
				inZP = int64(r.intn(int(max(lo, -128)), int(min(hi, 127))))
			}
			outZP := int64(r.intn(-128, 127))
			vals := make([]int64, size)
			for i := range vals {
				switch i % 5 {
				case 0:
					vals[i] = int64(lo)
				case 1:
					vals[i] = int64(hi)
				default:
					vals[i] = int64(lo) + int64(r.next())%(int64(hi)-int64(lo)+1)
				}
			}
			var in *ops.Tensor
			switch typ {
			case ops.Int8:
				v := make([]int8, size)
				for i, x := range vals {
					v[i] = int8(x)
				}
				in = tensorOf(ops.Int8, []int{size}, v)
			case ops.Uint8:
				v := make([]uint8, size)
				for i, x := range vals {
					v[i] = uint8(x)
				}
				in = tensorOf(ops.Uint8, []int{size}, v)
			case ops.Int16:
				v := make([]int16, size)
				for i, x := range vals {
					v[i] = int16(x)
				}
				in = tensorOf(ops.Int16, []int{size}, v)
			case ops.Int32:
				v := make([]int32, size)
				for i, x := range vals {
					v[i] = int32(x)
				}
				in = tensorOf(ops.Int32, []int{size}, v)
			}
			n := node(nil, []*ops.Tensor{q(in, inScale, inZP)}, q(outTensor(ops.Int8), outScale, outZP))
			k := NewQuantize()
			run(t, k, n)
			mult, shift := ops.QuantizeMultiplier(float64(inScale) / float64(outScale))
			got := n.Outputs[0].Int8s()
			for i, x := range vals {
				want := ops.ClampInt32(ops.MultiplyByQuantizedMultiplier(int32(x)-int32(inZP), mult, shift)+int32(outZP), -128, 127)
				if int32(got[i]) != want {
					t.Fatalf("%s trial %d [%d] %d (scales %g→%g, zp %d→%d): got %d, want %d", fmt.Sprint(typ), trial, i, x, inScale, outScale, inZP, outZP, got[i], want)
				}
			}
			noAllocs(t, k, n)
		}
	}
}
