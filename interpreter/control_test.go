package interpreter_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Control flow: WHILE and IF models built with optest.Builder's
// subgraphs, recorded against TensorFlow Lite under testdata/control.

func whileOp(b *optest.Builder, cond, body int32, ins, outs []int32) {
	b.Op(schema.BuiltinOperatorWHILE, 1, ins, outs, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsWhileOptions,
		Value: &schema.WhileOptionsT{CondSubgraphIndex: cond, BodySubgraphIndex: body}})
}

func addOp(b *optest.Builder, x, y, out int32) {
	b.Op(schema.BuiltinOperatorADD, 1, []int32{x, y}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
}

func mulOp(b *optest.Builder, x, y, out int32) {
	b.Op(schema.BuiltinOperatorMUL, 1, []int32{x, y}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}})
}

// lessCond adds a cond subgraph: its first input (int32 scalar) < limit;
// the others (float32 of shape xshape) are unused.
func lessCond(b *optest.Builder, limit int32, xshape []int32) int32 {
	c := b.AddSubgraph("cond")
	i := b.Tensor("i", schema.TensorTypeINT32, []int32{}, nil)
	x := b.Tensor("x", schema.TensorTypeFLOAT32, xshape, nil)
	lim := b.Const("limit", schema.TensorTypeINT32, []int32{}, nil, optest.I32(limit))
	out := b.Tensor("more", schema.TensorTypeBOOL, []int32{}, nil)
	b.Op(schema.BuiltinOperatorLESS, 1, []int32{i, lim}, []int32{out}, nil)
	b.Inputs(i, x)
	b.Outputs(out)
	return c
}

// counterWhile: while i < 5 { i++; x = x*0.5 + 1 }, i a model input.
// With passThrough the body leaves i unchanged (a loop that never ends).
func counterWhile(passThrough bool) *optest.Builder {
	b := optest.NewBuilder()
	i := b.Tensor("i", schema.TensorTypeINT32, []int32{}, nil)
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
	io := b.Tensor("i_out", schema.TensorTypeINT32, []int32{}, nil)
	xo := b.Tensor("x_out", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
	b.Inputs(i, x)
	b.Outputs(io, xo)
	cond := lessCond(b, 5, []int32{2, 3})
	body := b.AddSubgraph("body")
	bi := b.Tensor("i", schema.TensorTypeINT32, []int32{}, nil)
	bx := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
	one := b.Const("one", schema.TensorTypeINT32, []int32{}, nil, optest.I32(1))
	half := b.Const("half", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(0.5))
	fone := b.Const("fone", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(1))
	bi2 := b.Tensor("i2", schema.TensorTypeINT32, []int32{}, nil)
	m := b.Tensor("m", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
	bx2 := b.Tensor("x2", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
	addOp(b, bi, one, bi2)
	mulOp(b, bx, half, m)
	addOp(b, m, fone, bx2)
	b.Inputs(bi, bx)
	if passThrough {
		b.Outputs(bi, bx2)
	} else {
		b.Outputs(bi2, bx2)
	}
	b.UseSubgraph(0)
	whileOp(b, cond, body, []int32{i, x}, []int32{io, xo})
	return b
}

// growWhile doubles x along axis 0 three times: a loop-carried tensor
// whose shape changes every iteration ([1,2] → [8,2]).
func growWhile() *optest.Builder {
	b := optest.NewBuilder()
	i := b.Const("zero", schema.TensorTypeINT32, []int32{}, nil, optest.I32(0))
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	io := b.Tensor("i_out", schema.TensorTypeINT32, []int32{}, nil)
	xo := b.Tensor("x_out", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	b.SetSignature(xo, []int32{-1, 2})
	b.Inputs(x)
	b.Outputs(xo)
	cond := lessCond(b, 3, []int32{1, 2})
	b.SetSignature(1, []int32{-1, 2})
	body := b.AddSubgraph("body")
	bi := b.Tensor("i", schema.TensorTypeINT32, []int32{}, nil)
	bx := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	b.SetSignature(bx, []int32{-1, 2})
	one := b.Const("one", schema.TensorTypeINT32, []int32{}, nil, optest.I32(1))
	bi2 := b.Tensor("i2", schema.TensorTypeINT32, []int32{}, nil)
	bx2 := b.Tensor("x2", schema.TensorTypeFLOAT32, []int32{2, 2}, nil)
	b.SetSignature(bx2, []int32{-1, 2})
	addOp(b, bi, one, bi2)
	b.Op(schema.BuiltinOperatorCONCATENATION, 1, []int32{bx, bx}, []int32{bx2}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions, Value: &schema.ConcatenationOptionsT{Axis: 0}})
	b.Inputs(bi, bx)
	b.Outputs(bi2, bx2)
	b.UseSubgraph(0)
	whileOp(b, cond, body, []int32{i, x}, []int32{io, xo})
	return b
}

// fillWhile: a body holding a value-shaped operator: each iteration
// sets x = FILL([i+2, 2], 0.5) + 1 with i the counter, so x grows
// ([1,2] → [4,2]) through a FILL whose dims come from PACK of the
// counter.
func fillWhile() *optest.Builder {
	b := optest.NewBuilder()
	i := b.Const("zero", schema.TensorTypeINT32, []int32{}, nil, optest.I32(0))
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	io := b.Tensor("i_out", schema.TensorTypeINT32, []int32{}, nil)
	xo := b.Tensor("x_out", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	b.SetSignature(xo, []int32{-1, 2})
	b.Inputs(x)
	b.Outputs(xo)
	cond := lessCond(b, 3, []int32{1, 2})
	b.SetSignature(1, []int32{-1, 2})
	body := b.AddSubgraph("body")
	bi := b.Tensor("i", schema.TensorTypeINT32, []int32{}, nil)
	bx := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	b.SetSignature(bx, []int32{-1, 2})
	one := b.Const("one", schema.TensorTypeINT32, []int32{}, nil, optest.I32(1))
	two := b.Const("two", schema.TensorTypeINT32, []int32{}, nil, optest.I32(2))
	bi2 := b.Tensor("i2", schema.TensorTypeINT32, []int32{}, nil)
	rows := b.Tensor("rows", schema.TensorTypeINT32, []int32{}, nil)
	dims := b.Tensor("dims", schema.TensorTypeINT32, []int32{2}, nil)
	half := b.Const("half", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(0.5))
	f := b.Tensor("filled", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	b.SetSignature(f, []int32{-1, 2})
	fone := b.Const("fone", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(1))
	bx2 := b.Tensor("x2", schema.TensorTypeFLOAT32, []int32{1, 2}, nil)
	b.SetSignature(bx2, []int32{-1, 2})
	addOp(b, bi, one, bi2)
	addOp(b, bi2, one, rows)
	b.Op(schema.BuiltinOperatorPACK, 1, []int32{rows, two}, []int32{dims}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPackOptions, Value: &schema.PackOptionsT{ValuesCount: 2}})
	b.Op(schema.BuiltinOperatorFILL, 1, []int32{dims, half}, []int32{f}, nil)
	addOp(b, f, fone, bx2)
	b.Inputs(bi, bx)
	b.Outputs(bi2, bx2)
	b.UseSubgraph(0)
	whileOp(b, cond, body, []int32{i, x}, []int32{io, xo})
	return b
}

// ifModel: y = c ? x*2 : x+1.
func ifModel() *optest.Builder {
	b := optest.NewBuilder()
	c := b.Tensor("c", schema.TensorTypeBOOL, []int32{}, nil)
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{3}, nil)
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{3}, nil)
	b.Inputs(c, x)
	b.Outputs(y)
	branch := func(name string, mul bool) int32 {
		s := b.AddSubgraph(name)
		bx := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{3}, nil)
		by := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{3}, nil)
		if mul {
			mulOp(b, bx, b.Const("two", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(2)), by)
		} else {
			addOp(b, bx, b.Const("one", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(1)), by)
		}
		b.Inputs(bx)
		b.Outputs(by)
		return s
	}
	then, els := branch("then", true), branch("else", false)
	b.UseSubgraph(0)
	b.Op(schema.BuiltinOperatorIF, 1, []int32{c, x}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsIfOptions,
		Value: &schema.IfOptionsT{ThenSubgraphIndex: then, ElseSubgraphIndex: els}})
	return b
}

// ifShapesModel: y = c ? x*2 : concat(x, x): the branches' outputs
// differ in shape, so the IF's output is dynamic.
func ifShapesModel() *optest.Builder {
	b := optest.NewBuilder()
	c := b.Tensor("c", schema.TensorTypeBOOL, []int32{}, nil)
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{3}, nil)
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{3}, nil)
	b.SetSignature(y, []int32{-1})
	b.Inputs(c, x)
	b.Outputs(y)
	then := b.AddSubgraph("then")
	tx := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{3}, nil)
	ty := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{3}, nil)
	mulOp(b, tx, b.Const("two", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(2)), ty)
	b.Inputs(tx)
	b.Outputs(ty)
	els := b.AddSubgraph("else")
	ex := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{3}, nil)
	ey := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{6}, nil)
	b.Op(schema.BuiltinOperatorCONCATENATION, 1, []int32{ex, ex}, []int32{ey}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions, Value: &schema.ConcatenationOptionsT{Axis: 0}})
	b.Inputs(ex)
	b.Outputs(ey)
	b.UseSubgraph(0)
	b.Op(schema.BuiltinOperatorIF, 1, []int32{c, x}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsIfOptions,
		Value: &schema.IfOptionsT{ThenSubgraphIndex: then, ElseSubgraphIndex: els}})
	return b
}

var controlModels = []struct {
	name  string
	model func() []byte
	runs  int
}{
	{"while_counter", func() []byte { return counterWhile(false).Bytes() }, 4},
	{"while_grow", func() []byte { return growWhile().Bytes() }, 2},
	{"while_fill", func() []byte { return fillWhile().Bytes() }, 1},
	{"if", func() []byte { return ifModel().Bytes() }, 4},
	{"if_shapes", func() []byte { return ifShapesModel().Bytes() }, 4},
}

func TestRecordControl(t *testing.T) {
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording golden cases: run with %s=1 and %s=/path/to/tflite_ref", optest.RecordEnv, optest.RefEnv)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", "control")
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for i, m := range controlModels {
		if err := optest.RecordCases(ref, filepath.Join(root, m.name), m.model(), m.runs, uint64(10*i+3), nil, optest.Case{Atol: 1e-5, Rtol: 1e-5}); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
}

func TestControlGolden(t *testing.T) {
	root := filepath.Join("testdata", "control")
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("no recorded cases under %s: %v", root, err)
	}
	optest.Check(t, root, nil)
}

// TestWhileAllocs: a loop whose shapes do not change allocates nothing
// per Invoke.
func TestWhileAllocs(t *testing.T) {
	it := loadBytes(t, counterWhile(false).Bytes(), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	it.Input(0).Int32s()[0] = 0
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got := it.Output(0).Int32s()[0]; got != 5 {
		t.Fatalf("i_out = %d, want 5", got)
	}
	if a := testing.AllocsPerRun(20, func() {
		it.Input(0).Int32s()[0] = 0
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("Invoke of a static WHILE allocates %v times", a)
	}
	it = loadBytes(t, growWhile().Bytes(), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 3; run++ {
		copy(it.Input(0).Float32s(), []float32{1, 2})
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		out := it.Output(0)
		if len(out.Shape) != 2 || out.Shape[0] != 8 || out.Shape[1] != 2 {
			t.Fatalf("run %d: output shape %v, want [8 2]", run, out.Shape)
		}
	}
}

// TestControlHostile: an endless loop is bounded; recursion and subgraph
// indices out of range are refused.
func TestControlHostile(t *testing.T) {
	it := loadBytes(t, counterWhile(true).Bytes(), &interpreter.Options{MaxLoopIterations: 100})
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	err := it.Invoke()
	if err == nil || !strings.Contains(err.Error(), "WHILE") || !strings.Contains(err.Error(), "100 iterations") {
		t.Fatalf("endless loop: %v, want an error naming WHILE and the bound", err)
	}

	load := func(b *optest.Builder) error {
		m, err := interpreter.LoadBytes(b.Bytes())
		if err != nil {
			return err
		}
		defer m.Close()
		it, err := interpreter.New(m, nil)
		if err != nil {
			return err
		}
		defer it.Close()
		return it.AllocateTensors()
	}
	for _, tc := range []struct {
		name  string
		edit  func(b *optest.Builder)
		frags []string
	}{
		{"body out of range", func(b *optest.Builder) {
			b.Model().Subgraphs[0].Operators[0].BuiltinOptions.Value.(*schema.WhileOptionsT).BodySubgraphIndex = 9
		}, []string{"WHILE", "subgraph 9", "out of range"}},
		{"negative cond", func(b *optest.Builder) {
			b.Model().Subgraphs[0].Operators[0].BuiltinOptions.Value.(*schema.WhileOptionsT).CondSubgraphIndex = -1
		}, []string{"WHILE", "subgraph -1", "out of range"}},
		{"cond is body", func(b *optest.Builder) {
			b.Model().Subgraphs[0].Operators[0].BuiltinOptions.Value.(*schema.WhileOptionsT).CondSubgraphIndex = 2
		}, []string{"WHILE", "same subgraph 2"}},
		{"body calls itself", func(b *optest.Builder) {
			// The body runs a WHILE whose body is the body.
			b.UseSubgraph(2)
			i := b.Tensor("ri", schema.TensorTypeINT32, []int32{}, nil)
			x := b.Tensor("rx", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
			whileOp(b, 1, 2, []int32{0, 1}, []int32{i, x})
		}, []string{"WHILE", "own subgraph 2"}},
		{"body calls the entry", func(b *optest.Builder) {
			b.UseSubgraph(2)
			i := b.Tensor("ri", schema.TensorTypeINT32, []int32{}, nil)
			x := b.Tensor("rx", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
			whileOp(b, 1, 0, []int32{0, 1}, []int32{i, x})
		}, []string{"WHILE", "subgraph 0 calls itself"}},
		{"body arity", func(b *optest.Builder) {
			b.Model().Subgraphs[2].Outputs = b.Model().Subgraphs[2].Outputs[:1]
		}, []string{"WHILE", "body subgraph 2 has 2 inputs and 1 outputs"}},
		{"type mismatch", func(b *optest.Builder) {
			b.Model().Subgraphs[2].Tensors[1].Type = schema.TensorTypeINT32
		}, []string{"WHILE", "body subgraph 2 input 1", "int32"}},
	} {
		b := counterWhile(false)
		tc.edit(b)
		err := load(b)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, f := range tc.frags {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%s: error %q does not name %q", tc.name, err, f)
			}
		}
	}
	_ = fmt.Sprint
}
