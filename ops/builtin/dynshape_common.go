package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// This file holds what the kernels whose output shape TFLite computes from
// an input's values share: TFLite marks such an output kTfLiteDynamic when
// that input is not constant and sizes it at Eval. These kernels read the
// input at Prepare; a non-constant one gives dynamicShapeError, an
// ops.NotConstantError, on which the interpreter prepares the node again
// at Invoke with the input's values (and again whenever they change).

// dynamicShapeError is the error of a kernel whose output shape depends on
// the values of input i (role names it), which is not a constant.
func dynamicShapeError(i int, role string) error {
	return ops.NotConstant(ioLabel("input", i, role))
}

// constInts reads the values of a constant int32 (or, when allow64, int64)
// tensor of any shape, for a kernel that needs them at Prepare. A tensor
// that is not constant gives dynamicShapeError.
func constInts(t *ops.Tensor, i int, role string, allow64 bool) ([]int64, error) {
	label := ioLabel("input", i, role)
	if t.Type != ops.Int32 && (!allow64 || t.Type != ops.Int64) {
		if allow64 {
			return nil, fmt.Errorf("%s: type %s, need int32 or int64", label, t.Type)
		}
		return nil, fmt.Errorf("%s: type %s, need int32", label, t.Type)
	}
	n, err := numElementsChecked(t, label)
	if err != nil {
		return nil, err
	}
	if !t.IsConstant() {
		return nil, dynamicShapeError(i, role)
	}
	v := make([]int64, n)
	for j := range v {
		if t.Type == ops.Int32 {
			v[j] = int64(t.Int32s()[j])
		} else {
			v[j] = t.Int64s()[j]
		}
	}
	return v, nil
}
