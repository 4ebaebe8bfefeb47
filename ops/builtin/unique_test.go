package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of UNIQUE: values and indices of every type against the
// definition (first occurrence order), both index types, floats' zeros
// and NaNs, and the refusals.

func TestUnique(t *testing.T) {
	r := lcg(5)
	for _, typ := range []ops.DataType{ops.Int8, ops.Int16, ops.Int32, ops.Int64, ops.Float32, ops.Uint8} {
		for _, size := range []int{0, 1, 9, 40} {
			for _, idx := range []ops.DataType{ops.Int32, ops.Int64} {
				es := typ.Size()
				raw := make([]byte, size*es)
				for i := range size {
					// Few distinct values, with bytes in the high bits too.
					v := uint64(r.next()%5) * 0x0101010101010101
					for j := range es {
						raw[i*es+j] = byte(v >> (8 * j))
					}
				}
				x := tensorOf(typ, []int{size}, raw)
				// The definition: a linear search of the values seen so far.
				var vals [][]byte
				var want []int64
				for i := range size {
					e := raw[i*es : (i+1)*es]
					p := -1
					for j, v := range vals {
						if string(v) == string(e) {
							p = j
						}
					}
					if p < 0 {
						p = len(vals)
						vals = append(vals, e)
					}
					want = append(want, int64(p))
				}
				n := node(&UniqueOptions{IdxOutType: idx}, []*ops.Tensor{x}, outTensor(typ), outTensor(idx))
				k := NewUnique()
				runDynamic(t, k, n)
				wantShape(t, n.Outputs[0].Shape, []int{len(vals)})
				for j, v := range vals {
					if g := n.Outputs[0].Data[j*es : (j+1)*es]; string(g) != string(v) {
						t.Fatalf("%s: value %d is % x, want % x", typ, j, g, v)
					}
				}
				if idx == ops.Int32 {
					equalInts(t, "indices", n.Outputs[1].Int32s()[:size], want)
				} else {
					equalInts(t, "indices", n.Outputs[1].Int64s()[:size], want)
				}
				noAllocs(t, k, n)
			}
		}
	}
}

func TestUniqueFloatSpecials(t *testing.T) {
	nan := float32(math.NaN())
	x := tensorOf(ops.Float32, []int{6}, []float32{float32(math.Copysign(0, -1)), 0, nan, 1, nan, 1})
	n := node(&UniqueOptions{IdxOutType: ops.Int32}, []*ops.Tensor{x}, outTensor(ops.Float32), outTensor(ops.Int32))
	runDynamic(t, NewUnique(), n)
	v := n.Outputs[0].Float32s()[:4]
	wantShape(t, n.Outputs[0].Shape, []int{4})
	if !math.Signbit(float64(v[0])) || v[0] != 0 || v[1] == v[1] || v[2] != 1 || v[3] == v[3] {
		t.Fatalf("values %v, want [-0 NaN 1 NaN]", v)
	}
	equalInts(t, "indices", n.Outputs[1].Int32s()[:6], []int{0, 0, 1, 2, 3, 2})
}

func TestUniqueErrors(t *testing.T) {
	vec := func(typ ops.DataType, shape ...int) *ops.Tensor {
		return tensorOf(typ, shape, make([]byte, prod(shape)*typ.Size()))
	}
	o32 := &UniqueOptions{IdxOutType: ops.Int32}
	for _, tc := range []struct {
		name   string
		opts   any
		x      *ops.Tensor
		v, idx ops.DataType
		frags  []string
	}{
		{"no options", nil, vec(ops.Int32, 3), ops.Int32, ops.Int32, []string{"UniqueOptions"}},
		{"matrix", o32, vec(ops.Int32, 2, 2), ops.Int32, ops.Int32, []string{"vector"}},
		{"bool", o32, vec(ops.Bool, 2), ops.Bool, ops.Int32, []string{"bool"}},
		{"value type", o32, vec(ops.Int32, 2), ops.Int64, ops.Int32, []string{"output 0"}},
		{"index type", o32, vec(ops.Int32, 2), ops.Int32, ops.Int64, []string{"output 1", "int32"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantPrepareError(t, NewUnique(), node(tc.opts, []*ops.Tensor{tc.x}, outTensor(tc.v), outTensor(tc.idx)), tc.frags...)
		})
	}
}
