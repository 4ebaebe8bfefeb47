package flex_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/internal/tfnodedef"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Small models with Flex TensorList operators built with the schema
// writer, their NodeDefs built here: the loop TensorFlow's converter
// writes for a Keras RNN layer (Reserve, a WHILE whose body SetItems,
// Stack), the other list operators, and their errors.

type attrs = map[string]tfnodedef.AttrValue

func dtype(d tfnodedef.DataType) tfnodedef.AttrValue {
	return tfnodedef.AttrValue{Kind: tfnodedef.KindType, Type: d}
}

func intAttr(i int64) tfnodedef.AttrValue { return tfnodedef.AttrValue{Kind: tfnodedef.KindInt, I: i} }

// flexOp appends the Flex operator op with the NodeDef attributes a.
func flexOp(t testing.TB, b *optest.Builder, op string, a attrs, ins, outs []int32) {
	t.Helper()
	opts, err := tfnodedef.FlexOptions(&tfnodedef.NodeDef{Name: op, Op: op, Attr: a})
	if err != nil {
		t.Fatal(err)
	}
	b.Custom("Flex"+op, ins, outs, opts)
}

var float32List = attrs{"element_dtype": dtype(tfnodedef.DTFloat), "shape_type": dtype(tfnodedef.DTInt32)}

func f32(t testing.TB, b *optest.Builder, name string, shape ...int32) int32 {
	return b.Tensor(name, schema.TensorTypeFLOAT32, shape, nil)
}

func i32(b *optest.Builder, name string) int32 {
	return b.Tensor(name, schema.TensorTypeINT32, []int32{}, nil)
}

func variant(b *optest.Builder, name string) int32 {
	return b.Tensor(name, schema.TensorTypeVARIANT, []int32{}, nil)
}

func i32Const(b *optest.Builder, name string, v ...int32) int32 {
	shape := []int32{int32(len(v))}
	if len(v) == 1 {
		shape = []int32{}
	}
	return b.Const(name, schema.TensorTypeINT32, shape, nil, optest.I32(v...))
}

func addOp(b *optest.Builder, x, y, out int32) {
	b.Op(schema.BuiltinOperatorADD, 1, []int32{x, y}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
}

// loopModel is the recurrent loop: with inputs x and y [1,2] and a list
// of num items of element shape [-1,2] made once, two WHILE loops (the
// same cond and body) run limit steps each: i < limit { L = SetItem(L,
// i, x); x = x + x + GetItem(old L, i, [1,2]) }, the second starting from y, and
// both lists are stacked: outputs [limit,1,2] x·2^i and y·2^i. Both
// loops start from the one Reserve, as in TensorFlow's conversions of
// bidirectional layers, and the body reads the list it replaced: each
// must see its own value. setAttrs and stackAttrs replace the SetItem's
// and Stack's attributes when not nil.
func loopModel(t testing.TB, num, limit int32, setAttrs, stackAttrs attrs) []byte {
	b := optest.NewBuilder()
	x, y := f32(t, b, "x", 1, 2), f32(t, b, "y", 1, 2)
	outX, outY := f32(t, b, "stack_x", 3, 1, 2), f32(t, b, "stack_y", 3, 1, 2)
	b.Inputs(x, y)
	b.Outputs(outX, outY)
	es := i32Const(b, "element_shape", -1, 2)
	n := i32Const(b, "num_elements", num)
	zero := i32Const(b, "zero", 0)
	list := variant(b, "list")
	flexOp(t, b, "TensorListReserve", float32List, []int32{es, n}, []int32{list})

	cond := b.AddSubgraph("cond")
	ci, cl, cx := i32(b, "i"), variant(b, "l"), f32(t, b, "x", 1, 2)
	lim := i32Const(b, "limit", limit)
	more := b.Tensor("more", schema.TensorTypeBOOL, []int32{}, nil)
	b.Op(schema.BuiltinOperatorLESS, 1, []int32{ci, lim}, []int32{more}, nil)
	b.Inputs(ci, cl, cx)
	b.Outputs(more)

	body := b.AddSubgraph("body")
	bi, bl, bx := i32(b, "i"), variant(b, "l"), f32(t, b, "x", 1, 2)
	one := i32Const(b, "one", 1)
	bes := i32Const(b, "element_shape", 1, 2)
	set, old := variant(b, "set"), f32(t, b, "old", 1, 2)
	twice, next, inext := f32(t, b, "twice", 1, 2), f32(t, b, "next", 1, 2), i32(b, "i_next")
	if setAttrs == nil {
		setAttrs = attrs{"element_dtype": dtype(tfnodedef.DTFloat)}
	}
	flexOp(t, b, "TensorListSetItem", setAttrs, []int32{bl, bi, bx}, []int32{set})
	flexOp(t, b, "TensorListGetItem", attrs{"element_dtype": dtype(tfnodedef.DTFloat)}, []int32{bl, bi, bes}, []int32{old})
	addOp(b, bx, bx, twice)
	addOp(b, twice, old, next)
	addOp(b, bi, one, inext)
	b.Inputs(bi, bl, bx)
	b.Outputs(inext, set, next)

	b.UseSubgraph(0)
	if stackAttrs == nil {
		stackAttrs = attrs{"element_dtype": dtype(tfnodedef.DTFloat), "num_elements": intAttr(-1)}
	}
	for k, in := range []int32{x, y} {
		wi, wl, wx := i32(b, "wi"), variant(b, "wl"), f32(t, b, "wx", 1, 2)
		b.Op(schema.BuiltinOperatorWHILE, 1, []int32{zero, list, in}, []int32{wi, wl, wx}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsWhileOptions,
			Value: &schema.WhileOptionsT{CondSubgraphIndex: cond, BodySubgraphIndex: body}})
		flexOp(t, b, "TensorListStack", stackAttrs, []int32{wl, es}, []int32{[]int32{outX, outY}[k]})
	}
	return b.Bytes()
}

func newInterpreter(t *testing.T, model []byte, opts *interpreter.Options) *interpreter.Interpreter {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	it, err := interpreter.New(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { it.Close() })
	return it
}

func TestLoop(t *testing.T) {
	it := newInterpreter(t, loopModel(t, 3, 3, nil, nil), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for run := range 3 { // lists are made anew at every Invoke
		x, y := []float32{1, -2}, []float32{0.5, float32(run)}
		if err := it.Input(0).CopyFrom(x); err != nil {
			t.Fatal(err)
		}
		if err := it.Input(1).CopyFrom(y); err != nil {
			t.Fatal(err)
		}
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		for k, in := range [][]float32{x, y} {
			out := it.Output(k)
			if !equalInts(out.Shape, []int{3, 1, 2}) {
				t.Fatalf("run %d output %d: shape %v, want [3 1 2]", run, k, out.Shape)
			}
			got := out.Float32s()
			for i := range 3 {
				for j := range 2 {
					if want := in[j] * float32(int(1)<<i); got[i*2+j] != want {
						t.Errorf("run %d output %d [%d,0,%d] = %g, want %g", run, k, i, j, got[i*2+j], want)
					}
				}
			}
		}
	}
	// A shorter loop leaves items unset: they stack as zeros.
	it = newInterpreter(t, loopModel(t, 3, 2, nil, nil), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	it.Input(0).CopyFrom([]float32{1, 2})
	it.Input(1).CopyFrom([]float32{3, 4})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got := it.Output(0).Float32s(); !equalFloats(got, []float32{1, 2, 2, 4, 0, 0}) {
		t.Errorf("two steps of three: %v", got)
	}
}

func TestLoopErrors(t *testing.T) {
	for _, c := range []struct {
		name       string
		num, limit int32
		set, stack attrs
		opts       *interpreter.Options
		want       string // in the error of AllocateTensors or else Invoke
	}{
		{name: "index past the end", num: 3, limit: 4, want: "trying to modify element 3 in a list with 3 elements"},
		{name: "resize past the end", num: 3, limit: 4, set: attrs{"element_dtype": dtype(tfnodedef.DTFloat), "resize_if_index_out_of_bounds": {Kind: tfnodedef.KindBool, B: true}},
			// The SetItem grows its list; the old one, read by GetItem, keeps 3 items.
			want: "trying to access element 3 in a list with 3 elements"},
		{name: "negative num_elements", num: -1, limit: 0, want: "non negative number, but got -1"},
		{name: "item dtype", num: 3, limit: 3, set: attrs{"element_dtype": dtype(tfnodedef.DTInt32)}, want: "input 2 (item): type float32, the op's element_dtype is int32"},
		{name: "stack dtype", num: 3, limit: 3, stack: attrs{"element_dtype": dtype(tfnodedef.DTInt32)}, want: "need type int32"},
		{name: "unsupported dtype", num: 3, limit: 3, set: attrs{"element_dtype": dtype(tfnodedef.DTString)}, want: "do not hold that type"},
		{name: "no dtype", num: 3, limit: 3, set: attrs{}, want: `attribute "element_dtype" is missing`},
		{name: "stack num_elements", num: 3, limit: 3, stack: attrs{"element_dtype": dtype(tfnodedef.DTFloat), "num_elements": intAttr(2)},
			want: "expected a list with 2 elements but got a list with 3"},
		{name: "hostile num_elements", num: 1<<31 - 1, limit: 0, opts: &interpreter.Options{MaxArenaBytes: 1 << 20}, want: "memory bound"},
	} {
		t.Run(c.name, func(t *testing.T) {
			it := newInterpreter(t, loopModel(t, c.num, c.limit, c.set, c.stack), c.opts)
			err := it.AllocateTensors()
			if err == nil {
				err = it.Invoke()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			t.Log(err)
		})
	}
}

// listOpsModel: L = FromTensor(t [3,2]); L2 = SetItem(L, idx, v [2]);
// outputs GetItem(L, idx) (the old item: lists are values), GetItem(L2,
// idx), Length(L2), ElementShape(L2) and Stack(Reserve(es, 2)) of a list
// with no item set and the element shape esStack.
func listOpsModel(t testing.TB, esStack []int32) []byte {
	b := optest.NewBuilder()
	src, idx, v := f32(t, b, "t", 3, 2), i32(b, "idx"), f32(t, b, "v", 2)
	oldItem, newItem := f32(t, b, "old", 2), f32(t, b, "new", 2)
	length := i32(b, "length")
	shape := b.Tensor("shape", schema.TensorTypeINT32, []int32{1}, nil)
	empty := f32(t, b, "empty", 2, 2)
	b.Inputs(src, idx, v)
	b.Outputs(oldItem, newItem, length, shape, empty)
	es := b.Const("element_shape", schema.TensorTypeINT32, []int32{1}, nil, optest.I32(2))
	l, l2, r := variant(b, "l"), variant(b, "l2"), variant(b, "r")
	flexOp(t, b, "TensorListFromTensor", float32List, []int32{src, es}, []int32{l})
	flexOp(t, b, "TensorListSetItem", attrs{"element_dtype": dtype(tfnodedef.DTFloat)}, []int32{l, idx, v}, []int32{l2})
	get := attrs{"element_dtype": dtype(tfnodedef.DTFloat)}
	flexOp(t, b, "TensorListGetItem", get, []int32{l, idx, es}, []int32{oldItem})
	flexOp(t, b, "TensorListGetItem", get, []int32{l2, idx, es}, []int32{newItem})
	flexOp(t, b, "TensorListLength", nil, []int32{l2}, []int32{length})
	flexOp(t, b, "TensorListElementShape", attrs{"shape_type": dtype(tfnodedef.DTInt32)}, []int32{l2}, []int32{shape})
	two := i32Const(b, "two", 2)
	ses := b.Const("stack_shape", schema.TensorTypeINT32, []int32{int32(len(esStack))}, nil, optest.I32(esStack...))
	flexOp(t, b, "TensorListReserve", float32List, []int32{ses, two}, []int32{r})
	flexOp(t, b, "TensorListStack", attrs{"element_dtype": dtype(tfnodedef.DTFloat), "num_elements": intAttr(-1)}, []int32{r, ses}, []int32{empty})
	return b.Bytes()
}

func TestListOps(t *testing.T) {
	it := newInterpreter(t, listOpsModel(t, []int32{2}), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	run := func(idx int32) error {
		it.Input(0).CopyFrom([]float32{1, 2, 3, 4, 5, 6})
		it.Input(1).CopyFrom([]int32{idx})
		it.Input(2).CopyFrom([]float32{-1, -2})
		return it.Invoke()
	}
	if err := run(1); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]float32{{3, 4}, {-1, -2}} {
		if got := it.Output(i).Float32s(); !equalFloats(got, want) {
			t.Errorf("output %d: %v, want %v", i, got, want)
		}
	}
	if got := it.Output(2).Int32s(); len(got) != 1 || got[0] != 3 {
		t.Errorf("length: %v, want [3]", got)
	}
	if got := it.Output(3).Int32s(); len(got) != 1 || got[0] != 2 {
		t.Errorf("element shape: %v, want [2]", got)
	}
	if got := it.Output(4); !equalInts(got.Shape, []int{2, 2}) || !equalFloats(got.Float32s(), []float32{0, 0, 0, 0}) {
		t.Errorf("stack of unset items: %v %v, want zeros [2 2]", got.Shape, got.Float32s())
	}
	for _, idx := range []int32{3, -1} {
		if err := run(idx); err == nil || !strings.Contains(err.Error(), "in a list with 3 elements") {
			t.Errorf("index %d: %v", idx, err)
		}
	}
	// Unset items of an element shape not fully defined cannot be stacked.
	it = newInterpreter(t, listOpsModel(t, []int32{-1}), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := run(0); err == nil || !strings.Contains(err.Error(), "only contains uninitialized tensors") {
		t.Errorf("stack of unset items, shape [?]: %v", err)
	}
}

// TestNotAList checks that a variant tensor no list operator wrote (a
// model input, whatever its bytes) is refused.
func TestNotAList(t *testing.T) {
	b := optest.NewBuilder()
	in := variant(b, "handle")
	out := i32(b, "length")
	b.Inputs(in)
	b.Outputs(out)
	flexOp(t, b, "TensorListLength", nil, []int32{in}, []int32{out})
	it := newInterpreter(t, b.Bytes(), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for _, h := range []int32{0, 1, 1<<24 | 1, -1} {
		copy(it.Input(0).Data, optest.I32(h))
		if err := it.Invoke(); err == nil || !strings.Contains(err.Error(), "TensorList") {
			t.Errorf("handle %#x: %v", h, err)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
