package ops

import (
	"strings"
	"testing"
)

func TestRegisterBuiltins(t *testing.T) {
	r := NewResolver()
	RegisterBuiltins(r)
	for _, tc := range []struct {
		op   BuiltinOperator
		v    int
		ok   bool
		kind Kernel
	}{
		{OpFullyConnected, 1, true, &FullyConnected{}},
		{OpFullyConnected, 2, false, nil},
		{OpFullyConnected, 4, true, &FullyConnected{}},
		{OpFullyConnected, 8, false, nil},
		{OpFullyConnected, 12, true, &FullyConnected{}},
		{OpFullyConnected, 13, false, nil},
		{OpSoftmax, 2, true, &Softmax{}},
		{OpSoftmax, 3, false, nil},
		{OpLogistic, 3, false, nil},
		{OpAdd, 4, true, &Add{}},
		{OpAdd, 5, false, nil},
		{OpSub, 5, true, &Sub{}},
		{OpMul, 5, true, &Mul{}},
		{OpMul, 6, false, nil},
		{OpReshape, 1, true, &Reshape{}},
		{OpReshape, 2, false, nil},
		{OpQuantize, 3, true, &Quantize{}},
		{OpQuantize, 4, false, nil},
		{OpDequantize, 5, true, &Dequantize{}},
		{OpDequantize, 4, false, nil},
		{OpRelu0To1, 1, true, &Relu{}},
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
	if _, err := r.FindBuiltin(OpLSTM, 1); err == nil {
		t.Fatal("LSTM resolved, but this package has no LSTM kernel")
	}
}
