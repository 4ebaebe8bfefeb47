package interpreter_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// TestDiagnose: every blocker is reported, each naming its operator, and
// the interpreter still allocates and runs a model it accepts.
func TestDiagnose(t *testing.T) {
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{4}, nil)
	a := b.Tensor("a", schema.TensorTypeFLOAT32, []int32{4}, nil)
	r := b.Tensor("r", schema.TensorTypeFLOAT32, []int32{5}, nil)
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{5}, nil)
	b.Custom("NoSuchOperator", []int32{x}, []int32{a}, nil)
	b.Op(schema.BuiltinOperatorRESHAPE, 1, []int32{a}, []int32{r}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReshapeOptions, Value: &schema.ReshapeOptionsT{NewShape: []int32{5}}})
	b.Custom("AnotherMissingOperator", []int32{r}, []int32{y}, nil)
	b.Inputs(x)
	b.Outputs(y)
	it := loadBytes(t, b.Bytes(), nil)
	errs := it.Diagnose()
	want := [][]string{{"NoSuchOperator", "operator 0"}, {"RESHAPE", "operator 1", "5"}, {"AnotherMissingOperator", "operator 2"}}
	if len(errs) != len(want) {
		t.Fatalf("Diagnose: %d errors %v, want %d", len(errs), errs, len(want))
	}
	for i, frags := range want {
		for _, f := range frags {
			if !strings.Contains(errs[i].Error(), f) {
				t.Errorf("error %d %q does not name %q", i, errs[i], f)
			}
		}
	}
	if err := it.Invoke(); err == nil {
		t.Fatal("Invoke after Diagnose succeeded without AllocateTensors")
	}

	it = loadBytes(t, flattenModel(2), nil)
	if errs := it.Diagnose(); errs != nil {
		t.Fatalf("Diagnose of a valid model: %v", errs)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
}
