package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestDequantizeVectorMatchesTable: the vector int8/uint8 path (convert,
// then the float32 product) gives the table's float32(scale·(v − zp))
// (product in float64) for every byte, zero points across the type, and
// scales of every magnitude the kernel takes (subnormal and
// near FLT_MAX included: products overflow to ±Inf).
func TestDequantizeVectorMatchesTable(t *testing.T) {
	scales := []float32{1, 0.0078125, 0.1, 3.7e-5, 1234.5, 1e-40, 3e38}
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		zps := []int32{0, -128, 127, 17}
		if typ == ops.Uint8 {
			zps = []int32{0, 128, 255, 17}
		}
		for _, zp := range zps {
			for _, sc := range scales {
				data := make([]byte, 300)
				for i := range data {
					data[i] = byte(i * 7)
				}
				in := &ops.Tensor{Type: typ, Shape: []int{300}, Data: data, Quant: &ops.Quantization{Scale: []float32{sc}, ZeroPoint: []int64{int64(zp)}}}
				n := node(nil, []*ops.Tensor{in}, outTensor(ops.Float32))
				k := NewDequantize()
				if err := prepare(k, n); err != nil {
					t.Fatal(err)
				}
				if err := k.Eval(n); err != nil {
					t.Fatal(err)
				}
				for i, got := range n.Outputs[0].Float32s() {
					v := int32(data[i])
					if typ == ops.Int8 {
						v = int32(int8(data[i]))
					}
					want := float32(float64(sc) * float64(v-zp))
					if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
						t.Fatalf("%s zp %d scale %g: value %d gave %v, want %v", typ, zp, sc, v, got, want)
					}
				}
			}
		}
	}
}
