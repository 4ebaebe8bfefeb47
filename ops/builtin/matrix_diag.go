package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// MatrixDiag is the kernel of TFLite's MATRIX_DIAG operator: input 0 of
// shape [..., n] becomes the batch of [n, n] matrices, shape [..., n, n],
// with the input's rows on their diagonals and zero (all bytes 0)
// elsewhere. Types: float32, int8, uint8, int16, int32, int64, copied bit
// for bit (TFLite's matrix_diag.cc treats every other type as float32; it
// has no type check). Version 1, as TFLite's register.cc.
type MatrixDiag struct {
	batch, n, elem int
}

// NewMatrixDiag returns a MATRIX_DIAG kernel for one node.
func NewMatrixDiag() ops.Kernel { return &MatrixDiag{} }

func init() {
	register(ops.OpMatrixDiag, NewMatrixDiag, [2]int{1, 1})
}

// matrixDiagTypes are the types both diagonal kernels take.
var matrixDiagTypes = []ops.DataType{ops.Float32, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64}

// Prepare validates the node and sets the output shape.
func (k *MatrixDiag) Prepare(n *ops.Node) error {
	*k = MatrixDiag{}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if in.Rank() < 1 {
		return errors.New("input 0: a scalar has no diagonal")
	}
	if err := requireType(in, "input 0", matrixDiagTypes...); err != nil {
		return err
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	shape := append(copyShape(in.Shape), in.Shape[in.Rank()-1])
	if _, err := ops.ShapeElements(shape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.n = in.Shape[in.Rank()-1]
	k.batch = 1
	for _, d := range in.Shape[:in.Rank()-1] {
		k.batch *= d
	}
	k.elem = in.Type.Size()
	return nil
}

// Eval zeroes each matrix and writes its diagonal.
func (k *MatrixDiag) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("MATRIX_DIAG: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	e, nn := k.elem, k.n
	dst := out.Data[:k.batch*nn*nn*e]
	clear(dst)
	for b := 0; b < k.batch; b++ {
		for i := 0; i < nn; i++ {
			s := (b*nn + i) * e
			d := ((b*nn+i)*nn + i) * e
			copy(dst[d:d+e], in.Data[s:s+e])
		}
	}
	return nil
}
