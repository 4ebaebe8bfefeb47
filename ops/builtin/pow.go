package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Pow is the kernel of TFLite's POW operator: out = a^b element-wise with
// numpy-style broadcasting, as TFLite's pow.cc. float32 computes powf
// (here in float64, rounded once). int32 computes the power of the two
// integers in double precision and truncates it to int32, as TFLite's
// std::pow on int32 does; Eval fails when an exponent is negative (as
// TFLite's), and a result outside the int32 range gives −2^31 (x86's
// conversion of an out-of-range double).
type Pow struct {
	bc  broadcast
	typ ops.DataType
}

// NewPow returns a POW kernel for one node.
func NewPow() ops.Kernel { return &Pow{} }

func init() {
	register(ops.OpPow, NewPow, [2]int{1, 1})
}

// Prepare checks the types and sets the broadcast output shape.
func (k *Pow) Prepare(n *ops.Node) error {
	*k = Pow{}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32, ops.Int32); err != nil {
		return err
	}
	k.typ = a.Type
	return nil
}

// Eval computes the powers.
func (k *Pow) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("POW: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	if k.typ == ops.Float32 {
		broadcastMap(&k.bc, a.Float32s(), b.Float32s(), out.Float32s(), func(x, y float32) float32 {
			return float32(math.Pow(float64(x), float64(y)))
		})
		return nil
	}
	bv := b.Int32s()[:b.NumElements()]
	for i, e := range bv {
		if e < 0 {
			return fmt.Errorf("POW: input 1: element %d is %d; int32 POW needs exponents ≥ 0", i, e)
		}
	}
	broadcastMap(&k.bc, a.Int32s(), bv, out.Int32s(), func(x, y int32) int32 {
		p := math.Pow(float64(x), float64(y))
		if !(p >= math.MinInt32 && p < 1<<31) {
			return math.MinInt32
		}
		return int32(p)
	})
	return nil
}
