package ir

import (
	"os"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/encoding/prototext"
)

func loadGraph(t *testing.T, name string) *tfpb.GraphDef {
	t.Helper()
	b, err := os.ReadFile("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	g := &tfpb.GraphDef{}
	if err := prototext.Unmarshal(b, g); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestImportFunctionResolvesArgNames(t *testing.T) {
	g := loadGraph(t, "double_relu.pbtxt")
	m := NewModule(g.Library, nil)
	f, err := m.Function("double_relu")
	if err != nil {
		t.Fatal(err)
	}
	r, s, id := f.Node("r"), f.Node("s"), f.Node("id")
	if r == nil || s == nil || id == nil {
		t.Fatal("nodes missing")
	}
	if s.Inputs[0] != r.Outputs[0] || s.Inputs[1] != r.Outputs[0] || r.Inputs[0] != f.Params[0] {
		t.Error("\"r:activations:0\" did not resolve to r's output")
	}
	if len(id.Inputs) != 1 {
		t.Errorf("control input kept: %v", id.Inputs)
	}
	if f.Results[0] != id.Outputs[0] || f.ResultNames[0] != "y" {
		t.Error("ret not resolved")
	}
	if attr, v, ok := f.Implements(); !ok || attr != "_implements" || v != "test.double_relu" {
		t.Errorf("Implements = %q %q %v", attr, v, ok)
	}
	if r.Outputs[0].DType != Float32 {
		t.Errorf("Relu output type %s, want float32 (from T)", r.Outputs[0].DType)
	}
}

func TestImportGraphCutInline(t *testing.T) {
	g := loadGraph(t, "double_relu.pbtxt")
	m := NewModule(g.Library, nil)
	f, err := ImportGraph(m, g, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Cut([]InputSpec{{Name: "x:0", Tensor: TensorRef{Node: "x"}, DType: Invalid}}, []OutputSpec{{Name: "out:0", Tensor: TensorRef{Node: "out"}}}); err != nil {
		t.Fatal(err)
	}
	if f.Node("x") != nil {
		t.Error("the cut input's Placeholder is still there")
	}
	if p := f.Params[0]; p.DType != Float32 || !p.Shape.Equal(Shape{-1, 3}) {
		t.Errorf("param %v: want float32[? 3] from the Placeholder", p)
	}
	call := f.Node("call")
	callee, _ := m.Function("double_relu")
	if err := f.Inline(call, callee.Clone()); err != nil {
		t.Fatal(err)
	}
	if f.Node("call") != nil || f.Node("call/r") == nil || f.Node("call/s") == nil {
		t.Fatalf("inlining: nodes %v", names(f))
	}
	if got := f.Node("call/r").InlinedFrom; len(got) != 1 || got[0] != "double_relu" {
		t.Errorf("InlinedFrom = %v", got)
	}
	out := f.Node("out")
	if out.Inputs[0] != f.Node("call/id").Outputs[0] {
		t.Error("call output not rewired to the inlined result")
	}
	if f.Node("call/r").Inputs[0] != f.Params[0] {
		t.Error("callee parameter not bound to the call input")
	}
	// The shared imported callee is untouched by inlining a clone.
	if callee.Node("r").Func != callee || callee.Node("r").Name != "r" {
		t.Error("inlining a clone changed the cached function")
	}
	if err := f.TopoSort(); err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, n := range f.Nodes {
		pos[n.Name] = i
	}
	if !(pos["call/r"] < pos["call/s"] && pos["call/s"] < pos["call/id"] && pos["call/id"] < pos["out"]) {
		t.Errorf("topological order wrong: %v", names(f))
	}
}

func names(f *Function) []string {
	var out []string
	for _, n := range f.Nodes {
		out = append(out, n.Name)
	}
	return out
}

func TestImportErrors(t *testing.T) {
	base := func() *tfpb.FunctionDef {
		g := loadGraph(t, "double_relu.pbtxt")
		return g.Library.Function[0]
	}
	cases := []struct {
		edit func(fd *tfpb.FunctionDef)
		want string
	}{
		{func(fd *tfpb.FunctionDef) { fd.NodeDef[1].Input[0] = "r:nope:0" }, `function double_relu: node "s" (op AddV2): reference "r:nope:0": op Relu has no output named "nope"`},
		{func(fd *tfpb.FunctionDef) { fd.NodeDef[1].Input[0] = "r:activations:3" }, `output "activations" of Relu has 1 tensors`},
		{func(fd *tfpb.FunctionDef) { fd.NodeDef[1].Input[0] = "ghost:z:0" }, `names no node`},
		{func(fd *tfpb.FunctionDef) { fd.NodeDef[1].Name = "r" }, `node name "r" is used twice`},
		{func(fd *tfpb.FunctionDef) { fd.NodeDef[0].Op = "FrobnicateV9" }, `unknown op "FrobnicateV9"`},
		{func(fd *tfpb.FunctionDef) { fd.Signature.InputArg[0].TypeAttr = "T" }, `polymorphic`},
		{func(fd *tfpb.FunctionDef) { delete(fd.Ret, "y") }, `output "y" has no entry in ret`},
		{func(fd *tfpb.FunctionDef) {
			fd.NodeDef[0].Attr["T"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("float")}}
		}, `node "r" (op Relu): attribute "T" is a string, want type`},
	}
	for _, c := range cases {
		fd := base()
		c.edit(fd)
		_, err := ImportFunction(NewModule(nil, nil), fd)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

func TestTopoSortCycle(t *testing.T) {
	f := NewFunction("loop", nil)
	a := f.NewNode("a", "AddV2", nil, 1)
	b := f.NewNode("b", "Relu", []*Value{a.Outputs[0]}, 1)
	a.Inputs = []*Value{b.Outputs[0], b.Outputs[0]}
	err := f.TopoSort()
	if err == nil || !strings.Contains(err.Error(), "function loop: the graph has a cycle") {
		t.Fatalf("got %v", err)
	}
}

// TestNodeErrorWhere: a node error names a function "function NAME" and
// the main graph of a GraphDef (Function.Graph set) "graph PATH", also
// for a node inlined into it and for errors about the whole function.
func TestNodeErrorWhere(t *testing.T) {
	f := NewFunction("serving_default", nil)
	n := f.NewNode("y", "FrobnicateV7", nil, 1)
	if got, want := n.Errorf("no TFLite legalisation for op FrobnicateV7").Error(), `function serving_default: node "y" (op FrobnicateV7): no TFLite legalisation for op FrobnicateV7`; got != want {
		t.Errorf("function: got %q, want %q", got, want)
	}
	f.Graph = "model.pbtxt"
	if got, want := n.Errorf("no TFLite legalisation for op FrobnicateV7").Error(), `graph model.pbtxt: node "y" (op FrobnicateV7): no TFLite legalisation for op FrobnicateV7`; got != want {
		t.Errorf("graph: got %q, want %q", got, want)
	}
	n.InlinedFrom = []string{"outer", "inner"}
	if got, want := n.Errorf("bad").Error(), `graph model.pbtxt (inlined from inner): node "y" (op FrobnicateV7): bad`; got != want {
		t.Errorf("inlined: got %q, want %q", got, want)
	}
	g := f.Clone()
	if g.Where() != "graph model.pbtxt" {
		t.Errorf("clone: Where() = %q", g.Where())
	}
	a := g.Node("y")
	a.Inputs = []*Value{a.Outputs[0]}
	if err := g.TopoSort(); err == nil || !strings.HasPrefix(err.Error(), "graph model.pbtxt: the graph has a cycle") {
		t.Errorf("cycle: %v", err)
	}
}

func TestAttrErrors(t *testing.T) {
	f := NewFunction("fn", nil)
	n := f.NewNode("conv", "Conv2D", nil, 1)
	n.Attrs["strides"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("1,1")}}
	_, err := n.AttrInts("strides", nil)
	if err == nil || err.Error() != `function fn: node "conv" (op Conv2D): attribute "strides" is a string, want list(int)` {
		t.Errorf("got %v", err)
	}
	if _, err := n.AttrType("T"); err == nil || !strings.Contains(err.Error(), `missing attribute "T"`) {
		t.Errorf("got %v", err)
	}
	if v, err := n.AttrInt("group", 7); err != nil || v != 7 {
		t.Errorf("default: %v %v", v, err)
	}
}
