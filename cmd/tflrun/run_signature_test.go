package main

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// twoEntryModel has two signatures: "add" (subgraph 0: sum = x + y) and
// "mul" (subgraph 1: product = x · y), over float32 [3] vectors.
func twoEntryModel() []byte {
	b := optest.NewBuilder()
	for sg, op := range []schema.BuiltinOperator{schema.BuiltinOperatorADD, schema.BuiltinOperatorMUL} {
		if sg > 0 {
			b.NewSubgraph("mul")
		}
		x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{3}, nil)
		y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{3}, nil)
		z := b.Tensor("z", schema.TensorTypeFLOAT32, []int32{3}, nil)
		opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}}
		if op == schema.BuiltinOperatorMUL {
			opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}
		}
		b.Op(op, 1, []int32{x, y}, []int32{z}, opts)
		b.Inputs(x, y)
		b.Outputs(z)
		key, out := "add", "sum"
		if sg > 0 {
			key, out = "mul", "product"
		}
		b.Signature(key, sg, []optest.SigTensor{{Name: "lhs", Tensor: x}, {Name: "rhs", Tensor: y}}, []optest.SigTensor{{Name: out, Tensor: z}})
	}
	return b.Bytes()
}

func f32raw(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// TestRunSignature: --signature runs the subgraph the signature names,
// with --input taking the signature's input names.
func TestRunSignature(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "two.tflite", twoEntryModel())
	lhs := writeFile(t, dir, "lhs.bin", f32raw(1, 2, 3))
	rhs := writeFile(t, dir, "rhs.bin", f32raw(4, 5, 6))
	for _, c := range []struct {
		sig  string
		want []float64
	}{{"add", []float64{5, 7, 9}}, {"mul", []float64{4, 10, 18}}, {"", []float64{5, 7, 9}}} {
		args := []string{"run", p, "--input", "lhs=" + lhs, "--input", "rhs=" + rhs}
		if c.sig != "" {
			args = append(args, "--signature", c.sig)
		}
		rep := runJSON(t, args...)
		vals := rep.Outputs[0].Values
		if len(vals) != 3 {
			t.Fatalf("--signature %q: values %v", c.sig, vals)
		}
		for i, v := range vals {
			if f, _ := v.(float64); f != c.want[i] {
				t.Errorf("--signature %q: value %d = %v, want %v", c.sig, i, v, c.want[i])
			}
		}
	}
	code, _, errs := tflrun(t, "run", p, "--signature", "div")
	if code != 1 || !strings.Contains(errs, `no signature "div"`) || !strings.Contains(errs, `"add" "mul"`) {
		t.Errorf("unknown signature: exit %d, %s", code, errs)
	}
}
