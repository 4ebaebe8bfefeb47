package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// BroadcastShape is NumPy/TensorFlow broadcasting of two shapes: aligned
// from the right, a dimension of 1 stretches. Unknown dimensions stay
// unknown unless the other side fixes them; unknown rank gives unknown.
func BroadcastShape(a, b ir.Shape) (ir.Shape, error) {
	if a == nil || b == nil {
		return nil, nil
	}
	n := len(a)
	if len(b) > n {
		n = len(b)
	}
	out := make(ir.Shape, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		case da < 0:
			out[i] = db
		case db < 0:
			out[i] = da
		default:
			return nil, fmt.Errorf("shapes %s and %s do not broadcast", a, b)
		}
	}
	return out, nil
}

// broadcastIndex returns, for each element of the broadcast shape out, the
// flat index of the element of a tensor of shape s that it reads.
func broadcastIndex(s, out ir.Shape) []int {
	total, _ := out.NumElements()
	idx := make([]int, total)
	st := strides(s)
	off := len(out) - len(s)
	coord := make([]int, len(out))
	for i := 0; i < total; i++ {
		k := 0
		for d := off; d < len(out); d++ {
			if s[d-off] != 1 {
				k += coord[d] * st[d-off]
			}
		}
		idx[i] = k
		for d := len(out) - 1; d >= 0; d-- {
			coord[d]++
			if coord[d] < out[d] {
				break
			}
			coord[d] = 0
		}
	}
	return idx
}
