package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// MatrixSetDiag is the kernel of TFLite's MATRIX_SET_DIAG operator: input
// 0 is a batch of [rows, cols] matrices (shape [..., rows, cols], rank ≥
// 2); the output is a copy with the main diagonal of each matrix replaced
// by the next min(rows, cols) values of input 1 (the diagonals, of the
// input's type, one row of min(rows, cols) per matrix: shape [...,
// min(rows, cols)] in TensorFlow). TFLite's matrix_set_diag.cc checks
// neither input 1's type nor its size and reads as many values as it
// needs; tflrun requires the type and at least that many elements. Types:
// float32, int8, uint8, int16, int32, int64. Version 1, as TFLite's
// register.cc.
type MatrixSetDiag struct {
	batch, rows, cols, elem int
}

// NewMatrixSetDiag returns a MATRIX_SET_DIAG kernel for one node.
func NewMatrixSetDiag() ops.Kernel { return &MatrixSetDiag{} }

func init() {
	register(ops.OpMatrixSetDiag, NewMatrixSetDiag, [2]int{1, 1})
}

// Prepare validates the node and gives the output the input's shape.
func (k *MatrixSetDiag) Prepare(n *ops.Node) error {
	*k = MatrixSetDiag{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	diag, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if in.Rank() < 2 {
		return fmt.Errorf("input 0: shape %v, need rank ≥ 2", in.Shape)
	}
	if err := requireType(in, "input 0", matrixDiagTypes...); err != nil {
		return err
	}
	if diag.Type != in.Type {
		return fmt.Errorf("input 1 (diagonal): type %s differs from input type %s", diag.Type, in.Type)
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	dn, err := numElementsChecked(diag, "input 1 (diagonal)")
	if err != nil {
		return err
	}
	r := in.Rank()
	k.rows, k.cols = in.Shape[r-2], in.Shape[r-1]
	k.batch = 1
	for _, d := range in.Shape[:r-2] {
		k.batch *= d
	}
	if need := k.batch * min(k.rows, k.cols); dn < need {
		return fmt.Errorf("input 1 (diagonal): %d elements (shape %v), need %d", dn, diag.Shape, need)
	}
	k.elem = in.Type.Size()
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval copies the matrices and writes the diagonals.
func (k *MatrixSetDiag) Eval(n *ops.Node) error {
	in, diag, out := n.Input(0), n.Input(1), n.Output(0)
	if in == nil || diag == nil || out == nil {
		return errors.New("MATRIX_SET_DIAG: input or output missing at Eval")
	}
	if err := checkData(in, diag, out); err != nil {
		return err
	}
	e, rows, cols := k.elem, k.rows, k.cols
	copy(out.Data[:k.batch*rows*cols*e], in.Data)
	di := 0
	for b := 0; b < k.batch; b++ {
		for i := 0; i < min(rows, cols); i++ {
			d := ((b*rows+i)*cols + i) * e
			copy(out.Data[d:d+e], diag.Data[di:di+e])
			di += e
		}
	}
	return nil
}
