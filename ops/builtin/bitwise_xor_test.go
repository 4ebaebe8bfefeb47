package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of BITWISE_XOR: every type with and without broadcasting against
// the definition, and the types TFLite refuses.

func TestBitwiseXor(t *testing.T) {
	r := lcg(97)
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8, ops.Int16, ops.Uint16, ops.Int32, ops.Uint32} {
		for _, shapes := range [][2][]int{{{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{4, 1, 2}, {3, 1}}, {{}, {5}}} {
			a, b := shapes[0], shapes[1]
			ra, rb := make([]byte, prod(a)*typ.Size()), make([]byte, prod(b)*typ.Size())
			for i := range ra {
				ra[i] = byte(r.next())
			}
			for i := range rb {
				rb[i] = byte(r.next())
			}
			ta, tb := tensorOf(typ, a, ra), tensorOf(typ, b, rb)
			out := binRun(t, NewBitwiseXor(), nil, ta, tb, typ)
			var bc broadcast
			if err := bc.prepare(a, b); err != nil {
				t.Fatal(err)
			}
			wantShape(t, out.Shape, bc.outShape)
			e := typ.Size()
			forEach(bc.outShape, func(o []int) {
				ia, ib := bcIndex(a, bc.outShape, o), bcIndex(b, bc.outShape, o)
				for j := 0; j < e; j++ {
					if g, w := out.Data[index(bc.outShape, o)*e+j], ra[ia*e+j]^rb[ib*e+j]; g != w {
						t.Fatalf("%s %v ^ %v at %v: byte %d is %d, want %d", typ, a, b, o, j, g, w)
					}
				}
			})
		}
	}
	for _, typ := range []ops.DataType{ops.Float32, ops.Int64, ops.Bool} {
		x := tensorOf(typ, []int{1}, make([]byte, typ.Size()))
		wantPrepareError(t, NewBitwiseXor(), binNode(nil, x, x, outTensor(typ)), typ.String())
	}
}

// bcIndex is the flat index in a tensor of shape s of the element that
// output index o (of shape out) reads under numpy broadcasting.
func bcIndex(s, out, o []int) int {
	idx := make([]int, len(s))
	for i := range s {
		j := len(out) - len(s) + i
		if s[i] != 1 {
			idx[i] = o[j]
		}
	}
	return index(s, idx)
}
