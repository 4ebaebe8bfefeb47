package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of WHERE: the coordinates of the non-zero elements of every
// condition type and rank against the definition, constant and run-time
// conditions, and the refusals.

func TestWhere(t *testing.T) {
	r := lcg(31)
	for _, typ := range []ops.DataType{ops.Bool, ops.Float32, ops.Int64, ops.Int32, ops.Int8, ops.Uint8, ops.Uint32} {
		for _, shape := range [][]int{{7}, {3, 4}, {2, 3, 2}, {2, 1, 2, 3}, {0, 3}, {4}} {
			e := prod(shape)
			raw := make([]byte, e*typ.Size())
			nonzero := make([]bool, e)
			for i := range e {
				if r.next()%3 == 0 {
					continue
				}
				nonzero[i] = true
				if typ == ops.Float32 {
					// NaN counts as non-zero; −0 (left zero elsewhere) as zero.
					v := []float32{1, -2.5, float32(math.NaN()), 1e-38}[r.next()%4]
					copy(raw[4*i:], tensorOf(ops.Float32, []int{1}, []float32{v}).Data)
					continue
				}
				raw[i*typ.Size()] = byte(1 + r.next()%200) // bool: 1
			}
			if typ == ops.Float32 && e > 0 && !nonzero[0] {
				copy(raw, tensorOf(ops.Float32, []int{1}, []float32{float32(math.Copysign(0, -1))}).Data)
			}
			var want []int64
			forEach(shape, func(idx []int) {
				if nonzero[index(shape, idx)] {
					for _, c := range idx {
						want = append(want, int64(c))
					}
				}
			})
			for _, constant := range []bool{true, false} {
				cond := tensorOf(typ, shape, raw)
				if constant {
					constT(cond)
				}
				n := node(nil, []*ops.Tensor{cond}, outTensor(ops.Int64))
				k := NewWhere()
				runDynamic(t, k, n)
				wantShape(t, n.Outputs[0].Shape, []int{len(want) / len(shape), len(shape)})
				equalInts(t, "coordinates", n.Outputs[0].Int64s()[:len(want)], want)
				noAllocs(t, k, n)
			}
		}
	}
}

func TestWhereErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cond  *ops.Tensor
		out   ops.DataType
		frags []string
	}{
		{"scalar", tensorOf(ops.Bool, []int{}, []bool{true}), ops.Int64, []string{"scalar"}},
		{"int16", tensorOf(ops.Int16, []int{2}, []int16{1, 0}), ops.Int64, []string{"int16"}},
		{"int32 output", tensorOf(ops.Bool, []int{2}, []bool{true, false}), ops.Int32, []string{"output 0", "int64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantPrepareError(t, NewWhere(), node(nil, []*ops.Tensor{tc.cond}, outTensor(tc.out)), tc.frags...)
		})
	}
	// A condition whose shape changed after Prepare fails Eval.
	cond := tensorOf(ops.Bool, []int{2}, []bool{true, false})
	n := node(nil, []*ops.Tensor{cond}, outTensor(ops.Int64))
	k := NewWhere()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	cond.Shape = []int{1, 2}
	if err := k.Eval(n); err == nil {
		t.Fatal("Eval of a condition reshaped after Prepare succeeded")
	}
}
