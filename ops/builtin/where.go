package builtin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Where is the kernel of TFLite's WHERE operator (one input): the
// coordinates of the non-zero elements of the condition, input 0, as an
// int64 matrix [count, rank] in row-major order of the elements, as
// TFLite's where.cc (reference SelectTrueCoords). Condition types: bool,
// float32 (NaN counts as non-zero, −0 as zero), int64, int32, int8, uint8,
// uint32. The condition must have rank ≥ 1 (TFLite fails Eval on a
// scalar; tflrun refuses it at Prepare). The output is sized at Prepare
// for a constant condition and at Eval otherwise (a dynamic tensor).
// Versions 1 (bool) and 2 (the numeric types), as TFLite's register.cc.
type Where struct {
	typ      ops.DataType
	shape    []int
	outShape [2]int // Eval's shape buffer (a literal would escape)
}

// NewWhere returns a WHERE kernel for one node.
func NewWhere() ops.Kernel { return &Where{} }

func init() {
	register(ops.OpWhere, NewWhere, [2]int{1, 2})
}

// Prepare checks the condition and sizes the output when it is constant.
func (k *Where) Prepare(n *ops.Node) error {
	*k = Where{}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	cond, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if err := requireType(cond, "input 0 (condition)", ops.Bool, ops.Float32, ops.Int64, ops.Int32, ops.Int8, ops.Uint8, ops.Uint32); err != nil {
		return err
	}
	if cond.Rank() == 0 {
		return errors.New("input 0 (condition): a scalar; WHERE needs rank 1 or more")
	}
	if _, err := numElementsChecked(cond, "input 0 (condition)"); err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if out.Type != ops.Int64 {
		return fmt.Errorf("output 0: type %s, WHERE writes int64", out.Type)
	}
	k.typ = cond.Type
	k.shape = copyShape(cond.Shape)
	if !cond.IsConstant() {
		return n.SetOutputDynamic(0)
	}
	out.Shape = []int{whereCount(cond), cond.Rank()}
	return nil
}

// whereCount is the number of non-zero elements of cond.
func whereCount(cond *ops.Tensor) int {
	c := 0
	for i, e := 0, cond.NumElements(); i < e; i++ {
		if whereTrue(cond, i) {
			c++
		}
	}
	return c
}

// whereTrue says whether element i of cond is non-zero.
func whereTrue(cond *ops.Tensor, i int) bool {
	d := cond.Data
	switch cond.Type {
	case ops.Bool, ops.Int8, ops.Uint8:
		return d[i] != 0
	case ops.Float32:
		return math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:])) != 0
	case ops.Int32, ops.Uint32:
		return binary.LittleEndian.Uint32(d[4*i:]) != 0
	default:
		return binary.LittleEndian.Uint64(d[8*i:]) != 0
	}
}

// Eval sizes a dynamic output and writes the coordinates.
func (k *Where) Eval(n *ops.Node) error {
	cond, out := n.Input(0), n.Output(0)
	if cond == nil || out == nil {
		return errors.New("WHERE: input or output missing at Eval")
	}
	if cond.Type != k.typ || !ops.SameShape(cond.Shape, k.shape) {
		return fmt.Errorf("input 0 (condition): %s %v at Eval, prepared for %s %v", cond.Type, cond.Shape, k.typ, k.shape)
	}
	if err := checkData(cond); err != nil {
		return err
	}
	count := whereCount(cond)
	rank := len(k.shape)
	if out.Kind == ops.DynamicTensor {
		k.outShape = [2]int{count, rank}
		if err := n.ResizeOutput(0, k.outShape[:]); err != nil {
			return err
		}
	} else if out.NumElements() != count*rank {
		return fmt.Errorf("output 0: shape %v, the condition has %d non-zero elements of rank %d", out.Shape, count, rank)
	}
	if err := checkData(out); err != nil {
		return err
	}
	o := out.Int64s()
	j := 0
	for i, e := 0, cond.NumElements(); i < e; i++ {
		if !whereTrue(cond, i) {
			continue
		}
		// The coordinates of flat index i, innermost last.
		f := i
		for d := rank - 1; d >= 0; d-- {
			o[j+d] = int64(f % k.shape[d])
			f /= k.shape[d]
		}
		j += rank
	}
	return nil
}
