package convert

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/proto"
)

// graph builds small TensorFlow GraphDefs for the converter's tests.
type graph struct {
	g *tfpb.GraphDef
}

func newGraph() *graph { return &graph{g: &tfpb.GraphDef{}} }

type attrs map[string]*tfpb.AttrValue

func tAttr(d ir.DType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: d.TF()}}
}
func iAttr(v int64) *tfpb.AttrValue   { return &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: v}} }
func fAttr(v float32) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_F{F: v}} }
func bAttr(v bool) *tfpb.AttrValue    { return &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: v}} }
func sAttr(v string) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(v)}}
}
func lAttr(v ...int64) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{I: v}}}
}

func (g *graph) node(op, name string, inputs []string, a attrs) string {
	nd := &tfpb.NodeDef{Name: name, Op: op, Input: inputs, Attr: map[string]*tfpb.AttrValue{}}
	for k, v := range a {
		nd.Attr[k] = v
	}
	g.g.Node = append(g.g.Node, nd)
	return name
}

func (g *graph) placeholder(name string, shape ...int) string {
	return g.node("Placeholder", name, nil, attrs{"dtype": tAttr(ir.Float32), "shape": {Value: &tfpb.AttrValue_Shape{Shape: ir.Shape(shape).TF()}}})
}

func (g *graph) constT(name string, t *ir.Tensor) string {
	return g.node("Const", name, nil, attrs{"dtype": tAttr(t.DType), "value": {Value: &tfpb.AttrValue_Tensor{Tensor: t.Proto()}}})
}

func (g *graph) constF(name string, shape ir.Shape, v []float32) string {
	return g.constT(name, ir.FromFloat32s(shape, v))
}

func (g *graph) constI(name string, shape ir.Shape, v ...int) string {
	t, err := ir.FromInts(ir.Int32, shape, v)
	if err != nil {
		panic(err)
	}
	return g.constT(name, t)
}

// op adds a float op with T=float.
func (g *graph) op(op, name string, inputs []string, a attrs) string {
	if a == nil {
		a = attrs{}
	}
	if _, ok := a["T"]; !ok {
		a["T"] = tAttr(ir.Float32)
	}
	return g.node(op, name, inputs, a)
}

// convert converts the graph with the given outputs.
func (g *graph) convert(t *testing.T, outputs ...string) (*Result, error) {
	t.Helper()
	data, err := proto.Marshal(g.g)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tfmodel.ParseGraphDef("test.pb", data, false)
	if err != nil {
		t.Fatal(err)
	}
	return ConvertModel(m, Options{OutputArrays: outputs})
}

// mustConvert converts and checks the TFLite operator sequence.
func (g *graph) mustConvert(t *testing.T, wantOps string, outputs ...string) *Result {
	t.Helper()
	res, err := g.convert(t, outputs...)
	if err != nil {
		t.Fatal(err)
	}
	if got := opList(res); got != wantOps {
		t.Fatalf("operators %q, want %q", got, wantOps)
	}
	return res
}

func opList(res *Result) string {
	var ops []string
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL != nil {
			ops = append(ops, strings.TrimPrefix(n.OpName(), "tfl."))
		}
	}
	return strings.Join(ops, " ")
}

func seq(n int, scale, offset float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*1.7+float64(offset))) * scale
	}
	return v
}

func near(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Abs(float64(got[i])-want[i]) > tol {
			t.Fatalf("%s: element %d = %v, want %v (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
}

func (g *graph) convertWith(t *testing.T, opts Options) (*Result, error) {
	t.Helper()
	data, err := proto.Marshal(g.g)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tfmodel.ParseGraphDef("test.pb", data, false)
	if err != nil {
		t.Fatal(err)
	}
	return ConvertModel(m, opts)
}
