package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// TestStablehloMoversRandom draws random shapes and (often hostile)
// paddings, dilations and windows for STABLEHLO_PAD, DILATE and
// REDUCE_WINDOW: Prepare may refuse, but must never panic, and a node
// it accepts must evaluate, with an output of the size it announced and
// STABLEHLO_PAD's and DILATE's output holding every input element or
// padding value only.
func TestStablehloMoversRandom(t *testing.T) {
	r := lcg(11)
	accepted := [3]int{}
	for it := 0; it < 400; it++ {
		rank := r.intn(1, 4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = r.intn(0, 4)
		}
		cnt := 1
		for _, d := range shape {
			cnt *= d
		}
		vals := make([]int16, cnt)
		for i := range vals {
			vals[i] = int16(i + 1)
		}
		in := tensorOf(ops.Int16, shape, vals)
		pv := tensorOf(ops.Int16, nil, []int16{-1})
		small := func() int64 { return int64(r.intn(-4, 4)) }
		var n *ops.Node
		var k ops.Kernel
		switch it % 3 {
		case 0:
			o := &StablehloPadOptions{}
			for range rank {
				o.EdgePaddingLow = append(o.EdgePaddingLow, small())
				o.EdgePaddingHigh = append(o.EdgePaddingHigh, small())
				o.InteriorPadding = append(o.InteriorPadding, small()/2)
			}
			n, k = node(o, []*ops.Tensor{in, pv}, outTensor(ops.Int16)), NewStablehloPad()
		case 1:
			d := make([]int32, rank)
			for i := range d {
				d[i] = int32(r.intn(-1, 3))
			}
			n, k = node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{rank}, d)), pv}, outTensor(ops.Int16)), NewDilate()
		default:
			vec := func(lo int) *ops.Tensor {
				v := make([]int64, rank)
				for i := range v {
					v[i] = int64(r.intn(lo, 3))
				}
				return constT(tensorOf(ops.Int64, []int{rank}, v))
			}
			// Mostly valid, now and then a zero entry or an unknown body.
			lo, fn := 1, schema.ReduceWindowFunction(r.intn(1, 6))
			if it%7 == 0 {
				lo = 0
			}
			if it%11 == 0 {
				fn = schema.ReduceWindowFunction(r.intn(0, 1) * 7)
			}
			n, k = node(&ReduceWindowOptions{ReduceFunction: fn}, []*ops.Tensor{in, pv, vec(lo), vec(lo), vec(lo)}, outTensor(ops.Int16)), NewReduceWindow()
		}
		name := fmt.Sprintf("case %d (%T, shape %v)", it, k, shape)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("%s: panic %v", name, p)
				}
			}()
			if err := prepare(k, n); err != nil {
				return
			}
			if err := k.Eval(n); err != nil {
				t.Fatalf("%s: Prepare accepted, Eval failed: %v", name, err)
			}
			accepted[it%3]++
			out := n.Outputs[0]
			if len(out.Data) < out.Bytes() {
				t.Fatalf("%s: output data shorter than shape %v", name, out.Shape)
			}
			if it%3 == 2 {
				return
			}
			for _, v := range out.Int16s()[:out.NumElements()] {
				if v != -1 && (v < 1 || int(v) > cnt) {
					t.Fatalf("%s: output value %d is neither padding nor an input element", name, v)
				}
			}
		}()
	}
	for i, a := range accepted {
		if a < 20 {
			t.Errorf("kernel %d: only %d of its random cases were accepted; the draw tests too little", i, a)
		}
	}
	t.Logf("accepted per kernel (STABLEHLO_PAD, DILATE, REDUCE_WINDOW): %v of ~133 each", accepted)
}
