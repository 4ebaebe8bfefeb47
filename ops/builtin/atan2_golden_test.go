package builtin_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of ATAN2: float32 and float64 over all four quadrants, and
// float16 (constant inputs, as the random-input generator has no
// half-precision values), where TFLite rounds atan2f's result. bfloat16
// has no npy dtype for the case files; the unit tests cover it.

// halfConsts returns n seeded float16 (half) or bfloat16 bit patterns of
// values in [-4, 4) as little-endian bytes.
func halfConsts(seed uint64, n int, bfloat bool) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		f := float32(8*r.Float64() - 4)
		var h uint16
		if bfloat {
			h = uint16(math.Float32bits(f) >> 16)
		} else {
			// Truncate to half precision (exponents of [-4, 4) fit).
			bits := math.Float32bits(f)
			sign := uint16(bits>>16) & 0x8000
			exp := int(bits>>23&0xff) - 127 + 15
			if exp <= 0 {
				h = sign
			} else {
				h = sign | uint16(exp)<<10 | uint16(bits>>13&0x3ff)
			}
		}
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	return b
}

func atan2Model(typ schema.TensorType, y, x gIn, shape ...int32) []byte {
	return opModel(schema.BuiltinOperatorATAN2, 1, nil, []gIn{y, x}, []gOut{res(typ, shape...)})
}

func TestRecordAtan2(t *testing.T) {
	f32, f64 := schema.TensorTypeFLOAT32, schema.TensorTypeFLOAT64
	f16 := schema.TensorTypeFLOAT16
	recordGolden(t, "atan2", []goldenModel{
		{variant: "f32", model: atan2Model(f32, act(f32, 3, 4, 5), act(f32, 3, 4, 5), 3, 4, 5)},
		{variant: "f32_scalar", model: atan2Model(f32, act(f32), act(f32))},
		{variant: "f64", model: atan2Model(f64, act(f64, 2, 7), act(f64, 2, 7), 2, 7)},
		{variant: "f16", runs: 1, model: atan2Model(f16, cst(f16, halfConsts(1, 24, false), 4, 6), cst(f16, halfConsts(2, 24, false), 4, 6), 4, 6)},
	})
}

func TestGoldenAtan2(t *testing.T) { checkGolden(t, "atan2") }
