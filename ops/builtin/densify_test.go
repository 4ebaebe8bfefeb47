package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the DENSIFY kernel on its own (the expansion of sparse
// constants is package internal/sparse's and the interpreter's; the
// golden cases run both): the copy, every accepted type, and the nodes
// TFLite refuses.

func TestDensifyCopies(t *testing.T) {
	for _, in := range []*ops.Tensor{
		tensorOf(ops.Float32, []int{2, 3}, []float32{1, 0, 2, 0, 0, 3}),
		tensorOf(ops.Float16, []int{3}, []uint16{0x3c00, 0, 0xc000}),
		tensorOf(ops.Int8, []int{1, 5}, []int8{0, -1, 0, 7, -128}),
	} {
		n := node(nil, []*ops.Tensor{constT(in)}, outTensor(in.Type))
		k := NewDensify()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, in.Shape)
		if string(n.Outputs[0].Data[:in.Bytes()]) != string(in.Data[:in.Bytes()]) {
			t.Errorf("%s: output % x, want % x", in.Type, n.Outputs[0].Data, in.Data)
		}
		noAllocs(t, k, n)
	}
}

func TestDensifyErrors(t *testing.T) {
	w := func() *ops.Tensor { return constT(tensorOf(ops.Float32, []int{4}, []float32{1, 0, 0, 2})) }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"activation input", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{4}, make([]float32, 4))}, outTensor(ops.Float32)), []string{"input 0", "not a constant"}},
		{"int32", node(nil, []*ops.Tensor{constT(tensorOf(ops.Int32, []int{2}, []int32{1, 2}))}, outTensor(ops.Int32)), []string{"input 0", "int32"}},
		{"uint8", node(nil, []*ops.Tensor{constT(tensorOf(ops.Uint8, []int{2}, []uint8{1, 2}))}, outTensor(ops.Uint8)), []string{"input 0", "uint8"}},
		{"output type", node(nil, []*ops.Tensor{w()}, outTensor(ops.Float16)), []string{"output 0", "float16"}},
		{"2 inputs", node(nil, []*ops.Tensor{w(), w()}, outTensor(ops.Float32)), []string{"2 inputs"}},
		{"no input", node(nil, []*ops.Tensor{nil}, outTensor(ops.Float32)), []string{"input 0"}},
		{"2 outputs", node(nil, []*ops.Tensor{w()}, outTensor(ops.Float32), outTensor(ops.Float32)), []string{"2 outputs"}},
		{"no output", node(nil, []*ops.Tensor{w()}, nil), []string{"output 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewDensify(), c.n, c.wants...) })
	}
	// Eval after a failed Prepare, or with the data gone, is an error.
	k := NewDensify()
	n := node(nil, []*ops.Tensor{w()}, outTensor(ops.Float32))
	run(t, k, n)
	n.Outputs[0].Data = nil
	if err := k.Eval(n); err == nil {
		t.Error("Eval into an output without data succeeded")
	}
	if err := k.Eval(node(nil, nil)); err == nil {
		t.Error("Eval without input succeeded")
	}
}
