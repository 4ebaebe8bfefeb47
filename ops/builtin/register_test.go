package builtin

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestRegisterBuiltins(t *testing.T) {
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, tc := range []struct {
		op   ops.BuiltinOperator
		v    int
		ok   bool
		kind ops.Kernel
	}{
		{ops.OpFullyConnected, 1, true, &FullyConnected{}},
		{ops.OpFullyConnected, 2, false, nil},
		{ops.OpFullyConnected, 4, true, &FullyConnected{}},
		{ops.OpFullyConnected, 8, false, nil},
		{ops.OpFullyConnected, 12, true, &FullyConnected{}},
		{ops.OpFullyConnected, 13, false, nil},
		{ops.OpSoftmax, 2, true, &Softmax{}},
		{ops.OpSoftmax, 3, false, nil},
		{ops.OpLogistic, 3, false, nil},
		{ops.OpAdd, 4, true, &Add{}},
		{ops.OpAdd, 5, false, nil},
		{ops.OpSub, 5, true, &Sub{}},
		{ops.OpMul, 5, true, &Mul{}},
		{ops.OpMul, 6, false, nil},
		{ops.OpReshape, 1, true, &Reshape{}},
		{ops.OpReshape, 2, false, nil},
		{ops.OpQuantize, 3, true, &Quantize{}},
		{ops.OpQuantize, 4, false, nil},
		{ops.OpDequantize, 5, true, &Dequantize{}},
		{ops.OpDequantize, 4, false, nil},
		{ops.OpRelu0To1, 1, true, &Relu{}},
	} {
		reg, err := r.FindBuiltin(tc.op, tc.v)
		if (err == nil) != tc.ok {
			t.Fatalf("op %d v%d: err %v, want ok=%v", tc.op, tc.v, err, tc.ok)
		}
		if !tc.ok {
			if !strings.Contains(err.Error(), "version") {
				t.Fatalf("op %d v%d: error %q does not name the version", tc.op, tc.v, err)
			}
			continue
		}
		k := reg.New()
		if k == nil {
			t.Fatalf("op %d v%d: nil kernel", tc.op, tc.v)
		}
	}
	if _, err := r.FindBuiltin(ops.OpLSTM, 1); err == nil {
		t.Fatal("LSTM resolved, but this package has no LSTM kernel")
	}
}
