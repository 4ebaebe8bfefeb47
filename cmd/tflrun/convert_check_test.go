package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// TestCheckRuns: a converted model is loaded and prepared in tflrun's
// interpreter before it is written. A custom operator without a kernel
// fails naming it, or with --allow-custom-ops warns; a builtin whose
// Prepare refuses the node fails naming it; a model that runs passes.
func TestCheckRuns(t *testing.T) {
	custom := func(name string) []byte {
		b := optest.NewBuilder()
		x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 4}, nil)
		y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{1, 4}, nil)
		b.Custom(name, []int32{x}, []int32{y}, nil)
		b.Inputs(x)
		b.Outputs(y)
		return b.Bytes()
	}
	builtin := func(shape []int32) []byte {
		b := optest.NewBuilder()
		x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 4}, nil)
		y := b.Tensor("y", schema.TensorTypeFLOAT32, shape, nil)
		b.Op(schema.BuiltinOperatorRELU, 1, []int32{x}, []int32{y}, nil)
		b.Inputs(x)
		b.Outputs(y)
		return b.Bytes()
	}
	var w bytes.Buffer
	if err := checkRuns(builtin([]int32{1, 4}), false, &w); err != nil || w.Len() != 0 {
		t.Errorf("a model that runs: %v, %q", err, w.String())
	}
	err := checkRuns(custom("Frobnicate"), false, &w)
	if err == nil || !strings.Contains(err.Error(), "custom operator(s) Frobnicate, which tflrun has no kernel for") || !strings.Contains(err.Error(), "--allow-custom-ops") {
		t.Errorf("unknown custom operator: %v", err)
	}
	if err := checkRuns(custom("Frobnicate"), true, &w); err != nil || !strings.Contains(w.String(), "warning: custom operator(s) Frobnicate have no kernel in tflrun") {
		t.Errorf("unknown custom operator, allowed: %v, %q", err, w.String())
	}
	err = checkRuns(builtin([]int32{1, 4, 1}), false, &w)
	if err == nil || !strings.Contains(err.Error(), "the converted model does not run in tflrun (nothing written)") || !strings.Contains(err.Error(), "RELU") {
		t.Errorf("a node Prepare refuses: %v", err)
	}
}
