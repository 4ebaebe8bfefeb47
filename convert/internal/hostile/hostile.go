// Package hostile builds the TensorFlow GraphDefs the converter's bound
// tests and measurements use: graphs that are small or simple to describe
// but large to convert (long chains of ops, long chains and deep nests of
// function calls, huge constants and shapes, loops unrolled past the node
// budget). The graphs are built in memory, so no large file is committed;
// gen.go (go run ./convert/internal/hostile/gen.go DIR) writes them as
// files for `tflrun convert`.
//
// Every graph has one float32 input "x" of shape [1, 4] (when it has an
// input) and its output is the node named by Out.
package hostile

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// Out names the output node of every graph the package builds.
const Out = "out"

// Graph is a GraphDef under construction.
type Graph struct {
	G *tfpb.GraphDef
}

// New returns an empty graph.
func New() *Graph { return &Graph{G: &tfpb.GraphDef{Library: &tfpb.FunctionDefLibrary{}}} }

func typeAttr(t tfpb.DataType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: t}}
}

func shapeProto(dims ...int64) *tfpb.TensorShapeProto {
	s := &tfpb.TensorShapeProto{}
	for _, d := range dims {
		s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	return s
}

func funcAttr(name string) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: name}}}
}

func typeList(ts ...tfpb.DataType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: ts}}}
}

// Node appends a node.
func (g *Graph) Node(op, name string, inputs []string, attrs map[string]*tfpb.AttrValue) string {
	g.G.Node = append(g.G.Node, &tfpb.NodeDef{Name: name, Op: op, Input: inputs, Attr: attrs})
	return name
}

// Input adds the float32 [1, 4] placeholder "x".
func (g *Graph) Input() string {
	return g.Node("Placeholder", "x", nil, map[string]*tfpb.AttrValue{
		"dtype": typeAttr(tfpb.DataType_DT_FLOAT),
		"shape": {Value: &tfpb.AttrValue_Shape{Shape: shapeProto(1, 4)}}})
}

// Unary adds a float32 op of one input (Relu, Neg, Identity, ...).
func (g *Graph) Unary(op, name, in string) string {
	return g.Node(op, name, []string{in}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)})
}

// Splat adds a float32 Const of the given shape whose every element is v,
// written as one float_val (a few bytes however large the shape).
func (g *Graph) Splat(name string, v float32, dims ...int64) string {
	t := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(dims...), FloatVal: []float32{v}}
	return g.Node("Const", name, nil, map[string]*tfpb.AttrValue{
		"dtype": typeAttr(tfpb.DataType_DT_FLOAT), "value": {Value: &tfpb.AttrValue_Tensor{Tensor: t}}})
}

// Int32s adds an int32 Const vector.
func (g *Graph) Int32s(name string, v ...int32) string {
	t := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(int64(len(v))), IntVal: v}
	return g.Node("Const", name, nil, map[string]*tfpb.AttrValue{
		"dtype": typeAttr(tfpb.DataType_DT_INT32), "value": {Value: &tfpb.AttrValue_Tensor{Tensor: t}}})
}

// Int32 adds an int32 scalar Const.
func (g *Graph) Int32(name string, v int32) string {
	t := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(), IntVal: []int32{v}}
	return g.Node("Const", name, nil, map[string]*tfpb.AttrValue{
		"dtype": typeAttr(tfpb.DataType_DT_INT32), "value": {Value: &tfpb.AttrValue_Tensor{Tensor: t}}})
}

// Call adds a PartitionedCall of fn on float32 inputs with one float32
// output.
func (g *Graph) Call(name, fn string, inputs ...string) string {
	tin := make([]tfpb.DataType, len(inputs))
	for i := range tin {
		tin[i] = tfpb.DataType_DT_FLOAT
	}
	return g.Node("PartitionedCall", name, inputs, map[string]*tfpb.AttrValue{
		"f": funcAttr(fn), "Tin": typeList(tin...), "Tout": typeList(tfpb.DataType_DT_FLOAT)})
}

// Function adds a function of one float32 argument "x" returning "y",
// whose body is the nodes (referring to "x" and to each other as
// "node:output:0") and whose result is ret.
func (g *Graph) Function(name string, ret string, nodes ...*tfpb.NodeDef) {
	g.G.Library.Function = append(g.G.Library.Function, &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: name,
			InputArg:  []*tfpb.OpDef_ArgDef{{Name: "x", Type: tfpb.DataType_DT_FLOAT}},
			OutputArg: []*tfpb.OpDef_ArgDef{{Name: "y", Type: tfpb.DataType_DT_FLOAT}}},
		NodeDef: nodes,
		Ret:     map[string]string{"y": ret},
	})
}

// FuncNode is a node of a function body.
func FuncNode(op, name string, inputs []string, attrs map[string]*tfpb.AttrValue) *tfpb.NodeDef {
	return &tfpb.NodeDef{Name: name, Op: op, Input: inputs, Attr: attrs}
}

// Chain is x followed by n float ops, each using the previous one: op
// cycles through ops (for instance Relu, Identity, Neg: legalised
// operators, identities simplification bypasses). The last is named Out.
func Chain(n int, ops ...string) *tfpb.GraphDef {
	if len(ops) == 0 {
		ops = []string{"Relu"}
	}
	g := New()
	prev := g.Input()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("n%d", i)
		if i == n-1 {
			name = Out
		}
		prev = g.Unary(ops[i%len(ops)], name, prev)
	}
	return g.G
}

// FoldChain is a chain of n AddV2 nodes over constants only: c0 + c,
// (c0 + c) + c, ..., which constant folding reduces to one constant,
// followed by an AddV2 with x so that the graph has an operator.
func FoldChain(n int) *tfpb.GraphDef {
	g := New()
	x := g.Input()
	c := g.Splat("c", 1, 1, 4)
	prev := g.Splat("c0", 0, 1, 4)
	for i := 0; i < n; i++ {
		prev = g.Node("AddV2", fmt.Sprintf("a%d", i), []string{prev, c}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)})
	}
	g.Node("AddV2", Out, []string{prev, x}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)})
	return g.G
}

// CallChain is x followed by n calls of one function (y = Relu(x)), each
// on the previous call's output.
func CallChain(n int) *tfpb.GraphDef {
	g := New()
	g.Function("cell", "r:activations:0", FuncNode("Relu", "r", []string{"x"}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)}))
	prev := g.Input()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("call%d", i)
		if i == n-1 {
			name = Out
		}
		prev = g.Call(name, "cell", prev)
	}
	return g.G
}

// NestedCalls is x through depth functions each calling the next
// (f0 calls f1 calls ... calls f{depth-1}, which applies Relu).
func NestedCalls(depth int) *tfpb.GraphDef {
	g := New()
	for i := 0; i < depth; i++ {
		name := fmt.Sprintf("f%d", i)
		if i == depth-1 {
			g.Function(name, "r:activations:0", FuncNode("Relu", "r", []string{"x"}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)}))
			continue
		}
		g.Function(name, "c:output:0", FuncNode("PartitionedCall", "c", []string{"x"}, map[string]*tfpb.AttrValue{
			"f": funcAttr(fmt.Sprintf("f%d", i+1)), "Tin": typeList(tfpb.DataType_DT_FLOAT), "Tout": typeList(tfpb.DataType_DT_FLOAT)}))
	}
	g.Call(Out, "f0", g.Input())
	return g.G
}

// BigConstants is k float32 constants of shape [elems/4, 4], every one a
// single float_val, summed (AddN) and added to x: a graph of a few
// hundred bytes that asks for k × 4 × elems bytes of constants.
func BigConstants(k int, elems int64) *tfpb.GraphDef {
	g := New()
	var ins []string
	for i := 0; i < k; i++ {
		ins = append(ins, g.Splat(fmt.Sprintf("c%d", i), float32(i+1), elems/4, 4))
	}
	sum := g.Node("AddN", "sum", ins, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT),
		"N": {Value: &tfpb.AttrValue_I{I: int64(k)}}})
	g.Node("AddV2", Out, []string{sum, g.Input()}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)})
	return g.G
}

// HugeFill is Fill(dims, 1) with the given dims, added to x: the shape
// asks for more elements than any budget allows.
func HugeFill(dims ...int32) *tfpb.GraphDef {
	g := New()
	d := g.Int32s("dims", dims...)
	one := g.Splat("one", 1)
	fill := g.Node("Fill", "fill", []string{d, one}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT),
		"index_type": typeAttr(tfpb.DataType_DT_INT32)})
	g.Node("AddV2", Out, []string{fill, g.Input()}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)})
	return g.G
}

// While is a StatelessWhile loop over (i, h) running trips iterations,
// whose body applies bodyOps Relu nodes to h and adds one to i; the
// output is h after the loop. Unrolled, it has about trips × (bodyOps +
// 2) nodes.
func While(trips, bodyOps int) *tfpb.GraphDef {
	g := New()
	x := g.Input()
	i0 := g.Int32("i0", 0)
	n := g.Int32("n", int32(trips))
	loopT := typeList(tfpb.DataType_DT_INT32, tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_INT32)
	g.Node("StatelessWhile", "loop", []string{i0, x, n}, map[string]*tfpb.AttrValue{
		"T": loopT, "cond": funcAttr("cond"), "body": funcAttr("body")})
	g.Unary("Identity", Out, "loop:1")
	args := []*tfpb.OpDef_ArgDef{{Name: "i", Type: tfpb.DataType_DT_INT32}, {Name: "h", Type: tfpb.DataType_DT_FLOAT}, {Name: "n", Type: tfpb.DataType_DT_INT32}}
	g.G.Library.Function = append(g.G.Library.Function, &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "cond", InputArg: args, OutputArg: []*tfpb.OpDef_ArgDef{{Name: "more", Type: tfpb.DataType_DT_BOOL}}},
		NodeDef:   []*tfpb.NodeDef{FuncNode("Less", "less", []string{"i", "n"}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_INT32)})},
		Ret:       map[string]string{"more": "less:z:0"},
	})
	var body []*tfpb.NodeDef
	one := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(), IntVal: []int32{1}}
	body = append(body, FuncNode("Const", "one", nil, map[string]*tfpb.AttrValue{"dtype": typeAttr(tfpb.DataType_DT_INT32),
		"value": {Value: &tfpb.AttrValue_Tensor{Tensor: one}}}))
	body = append(body, FuncNode("AddV2", "inc", []string{"i", "one:output:0"}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_INT32)}))
	prev := "h"
	for j := 0; j < bodyOps; j++ {
		name := fmt.Sprintf("r%d", j)
		body = append(body, FuncNode("Relu", name, []string{prev}, map[string]*tfpb.AttrValue{"T": typeAttr(tfpb.DataType_DT_FLOAT)}))
		prev = name + ":activations:0"
	}
	outs := []*tfpb.OpDef_ArgDef{{Name: "i_out", Type: tfpb.DataType_DT_INT32}, {Name: "h_out", Type: tfpb.DataType_DT_FLOAT}, {Name: "n_out", Type: tfpb.DataType_DT_INT32}}
	g.G.Library.Function = append(g.G.Library.Function, &tfpb.FunctionDef{
		Signature: &tfpb.OpDef{Name: "body", InputArg: args, OutputArg: outs},
		NodeDef:   body,
		Ret:       map[string]string{"i_out": "inc:z:0", "h_out": prev, "n_out": "n"},
	})
	return g.G
}
