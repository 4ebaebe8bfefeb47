package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// TestRunResizesBeforeAllocating: a model whose declared input shape
// cannot be allocated (a RESHAPE to [-1, 4] of a [1, 1] input) runs at
// the shape of the .npy given with --input.
func TestRunResizesBeforeAllocating(t *testing.T) {
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 1}, nil)
	b.SetSignature(x, []int32{-1, -1})
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{1, 4}, nil)
	b.SetSignature(y, []int32{-1, 4})
	b.Op(schema.BuiltinOperatorRESHAPE, 1, []int32{x}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReshapeOptions, Value: &schema.ReshapeOptionsT{NewShape: []int32{-1, 4}}})
	b.Inputs(x)
	b.Outputs(y)
	dir := t.TempDir()
	model := writeFile(t, dir, "reshape.tflite", b.Bytes())
	if code, _, _ := tflrun(t, "run", model); code != 1 {
		t.Fatalf("the model ran at its declared [1 1] input (exit %d); the test needs one that cannot", code)
	}
	in := filepath.Join(dir, "x.npy")
	if err := npy.WriteFile(in, ops.Float32, []int{2, 4}, optest.F32(1, 2, 3, 4, 5, 6, 7, 8)); err != nil {
		t.Fatal(err)
	}
	rep := runJSON(t, "run", model, "--input", "0="+in)
	if s := rep.Outputs[0].Shape; len(s) != 2 || s[0] != 2 || s[1] != 4 {
		t.Fatalf("output shape %v, want [2 4]", s)
	}
}

// TestInspectListsEveryBlocker: inspect reports each operator that
// cannot be prepared, not only the first.
func TestInspectListsEveryBlocker(t *testing.T) {
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
	model := writeFile(t, t.TempDir(), "blocked.tflite", b.Bytes())
	code, out, errs := tflrun(t, "inspect", model)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{"blockers (3", "NoSuchOperator", "RESHAPE v1 (operator 1", "AnotherMissingOperator"} {
		if !strings.Contains(out, f) {
			t.Errorf("inspect output does not name %q:\n%s", f, out)
		}
	}
}
