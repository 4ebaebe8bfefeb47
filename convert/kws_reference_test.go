package convert

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/convert/tfmodel"
	"github.com/tflrun/tflrun/schema"
)

// referenceHoldsCheckpoint reports whether TensorFlow's reference .tflite
// carries this SavedModel's dense-layer bias (the one layer it keeps in
// float32 and unfused); why explains a mismatch.
func referenceHoldsCheckpoint(t *testing.T, refModel string) (bool, string) {
	t.Helper()
	data, err := os.ReadFile(refModel)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", refModel, err)
	}
	if err := schema.VerifyModel(data); err != nil {
		return false, err.Error()
	}
	m := schema.GetRootAsModel(data, 0).UnPack()
	b, err := tfmodel.OpenBundle(kwsDir + "/variables/variables")
	if err != nil {
		t.Fatal(err)
	}
	bias, err := b.Read("layer_with_weights-18/bias/.ATTRIBUTES/VARIABLE_VALUE")
	if err != nil {
		t.Fatal(err)
	}
	want := bias.Float32s()
	sg := m.Subgraphs[0]
	for _, op := range sg.Operators {
		if schema.EffectiveBuiltinCodeT(m.OperatorCodes[op.OpcodeIndex]) != schema.BuiltinOperatorFULLY_CONNECTED || len(op.Inputs) < 3 {
			continue
		}
		bt := sg.Tensors[op.Inputs[2]]
		got := (&ir.Tensor{DType: ir.Float32, Shape: ir.Shape{len(want)}, Data: m.Buffers[bt.Buffer].Data}).Float32s()
		worst := 0.0
		for i := range want {
			worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
		}
		if worst > 1e-6 {
			return false, fmt.Sprintf("%s was converted from another checkpoint: its dense bias starts %v, this SavedModel's starts %v (max difference %.3g)",
				refModel, got[:3], want[:3], worst)
		}
		return true, ""
	}
	return false, refModel + " has no FULLY_CONNECTED with a bias"
}
