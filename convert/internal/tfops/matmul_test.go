package tfops_test

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// TestBatchMatMulV2Runs: BatchMatMulV2 of two run-time operands (adj_y,
// the right one's batch broadcast) is one BATCH_MATMUL with adj_y, which
// tflrun's runtime runs, matching the float64 product within 1e-5.
func TestBatchMatMulV2Runs(t *testing.T) {
	res, err := convert.Convert("testdata/batch_matmul.pbtxt", convert.Options{InputArrays: []string{"a", "b"}, OutputArrays: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	m := schema.GetRootAsModel(res.Model, 0).UnPack()
	ops := m.Subgraphs[0].Operators
	if len(ops) != 1 || m.OperatorCodes[ops[0].OpcodeIndex].BuiltinCode != schema.BuiltinOperatorBATCH_MATMUL {
		t.Fatalf("%d operators, want one BATCH_MATMUL", len(ops))
	}
	if o, ok := ops[0].BuiltinOptions.Value.(*schema.BatchMatMulOptionsT); !ok || o.AdjX || !o.AdjY {
		t.Errorf("options %+v, want adj_y only", ops[0].BuiltinOptions.Value)
	}
	model, err := interpreter.LoadBytes(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	a, b := it.Input(0).Float32s(), it.Input(1).Float32s()
	for i := range a {
		a[i] = float32((i*7)%11-5) / 4
	}
	for i := range b {
		b[i] = float32((i*5)%13-6) / 8
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	y := it.Output(0).Float32s()
	if len(y) != 2*3*5 {
		t.Fatalf("%d outputs, want 30", len(y))
	}
	for n := 0; n < 2; n++ {
		for i := 0; i < 3; i++ {
			for j := 0; j < 5; j++ {
				s := 0.0
				for k := 0; k < 4; k++ {
					s += float64(a[(n*3+i)*4+k]) * float64(b[j*4+k]) // b[0][j][k]: adj_y
				}
				if got := y[(n*3+i)*5+j]; math.Abs(float64(got)-s) > 1e-5*(1+math.Abs(s)) {
					t.Errorf("y[%d][%d][%d] = %v, want %v", n, i, j, got, s)
				}
			}
		}
	}
}
