package interpreter

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// Fusion of the float SiLU, y = MUL(x, LOGISTIC(x)) on float32 tensors
// (YOLOv5/8/11's and EfficientNet's activation, exported as two
// operators): LOGISTIC writes a whole tensor that MUL reads back. In
// MUL's place one kernel computes each block of the logistic into the
// output and multiplies it by x there (arch.LogisticEigenF32, then
// arch.VecMul in place, then MUL's clamp to ±FLT_MAX), and LOGISTIC is
// skipped (listed with no time).
// The blocks are multiples of 4 elements from the start of the tensor,
// as LOGISTIC's own splits are, so Eigen's packets and scalar tail fall
// on the same elements: the results are the unfused graph's bit for bit
// (but for which NaN payload a product of two NaNs keeps).

// fuseSiLU finds the float SiLU pairs and installs their kernels; it
// runs with the byte tables (fuseByteTables turns it off too).
func (it *Interpreter) fuseSiLU() {
	sg := it.sg
	readers, producer := it.nodeUses()
	for j := range sg.nodes {
		mul := &sg.nodes[j]
		if mul.Op != ops.OpMul || !fusable(mul) || len(mul.Inputs) != 2 || len(mul.Outputs) != 1 {
			continue
		}
		if _, done := mul.kernel.(*byteTableKernel); done {
			continue
		}
		for xi := range 2 {
			x, s, y := mul.Inputs[xi], mul.Inputs[1-xi], mul.Outputs[0]
			if x == nil || s == nil || y == nil || x == s || s.Kind != ops.ArenaTensor || readers[s.Index] != 1 {
				continue
			}
			p := producer[s.Index]
			if p < 0 || p >= j {
				continue
			}
			act := &sg.nodes[p]
			if act.Op != ops.OpLogistic || !fusable(act) || len(act.Inputs) != 1 || len(act.Outputs) != 1 || act.Inputs[0] != x {
				continue
			}
			if x.Type != ops.Float32 || s.Type != ops.Float32 || y.Type != ops.Float32 || y.Kind != ops.ArenaTensor ||
				!slicesEqual(x.Shape, s.Shape) || !slicesEqual(x.Shape, y.Shape) || mulActivation(mul) != ops.ActNone {
				continue
			}
			sk := &siluKernel{x: xi}
			sk.lo, sk.hi = builtin.ActivationRangeFloat(ops.ActNone)
			sk.fn = sk.part
			mul.kernel = sk
			act.empty = true
			break
		}
	}
}

// mulActivation is MUL node nd's fused activation (NONE when its options
// say nothing).
func mulActivation(nd *node) ops.Activation {
	if o, ok := nd.Options.(*builtin.MulOptions); ok && o != nil {
		return o.Activation
	}
	return ops.ActNone
}

// siluKernel is the fused pair's kernel in MUL's place: output 0 is
// input x times the logistic of x.
type siluKernel struct {
	x       int
	lo, hi  float32 // MUL's clamp (no activation: ±FLT_MAX)
	in, out []float32
	fn      func(worker, lo, hi int)
}

// siluBlock is the granularity of the fused kernel's parts, in elements:
// a multiple of 4, and small enough that a block of the output is still
// in L1 when the product reads it back.
const siluBlock = 2048

func (k *siluKernel) Prepare(n *ops.Node) error { return nil }

func (k *siluKernel) Eval(n *ops.Node) error {
	in, out := n.Inputs[k.x], n.Outputs[0]
	count := in.NumElements()
	if len(in.Data) < 4*count || len(out.Data) < 4*count {
		return fmt.Errorf("fused %s: tensor data is shorter than its shape requires", n.OpName)
	}
	k.in, k.out = in.Float32s()[:count], out.Float32s()[:count]
	n.Parallel((count+siluBlock-1)/siluBlock, 8*count, k.fn)
	k.in, k.out = nil, nil
	return nil
}

func (k *siluKernel) part(_, lo, hi int) {
	a, b := lo*siluBlock, min(hi*siluBlock, len(k.in))
	x, y := k.in[a:b], k.out[a:b]
	arch.LogisticEigenF32(y, x)
	if k.x == 0 {
		arch.VecMul(y, x, y) // MUL(x, s): x·s
	} else {
		arch.VecMul(y, y, x) // MUL(s, x): s·x
	}
	// MUL clamps to its activation's range even without one
	// ([-FLT_MAX, FLT_MAX]: ±Inf become ±FLT_MAX), as TFLite's does.
	arch.VecClamp(y, k.lo, k.hi)
}
