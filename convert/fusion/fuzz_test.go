package fusion_test

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/internal/hostile"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// FuzzFusionGraphs mutates the hand-written composite graphs of testdata
// — constant values and shapes, ops swapped inside function bodies,
// inputs dropped or rewired, attributes changed — and converts them with
// the built-in rules, which must never panic or hang: a rule either fuses,
// refuses, or the conversion fails with an error.
//
//	go test ./convert/fusion -run='^$' -fuzz=FuzzFusionGraphs -fuzztime=2m
func FuzzFusionGraphs(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.pbtxt")
	sort.Strings(names)
	var graphs []*tfpb.GraphDef
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		g := &tfpb.GraphDef{}
		if err := prototext.Unmarshal(data, g); err != nil {
			f.Fatalf("%s: %v", n, err)
		}
		graphs = append(graphs, g)
	}
	// The hostile classes: many and deeply nested calls of annotated
	// functions (each offered to the rules), huge splat constants, a
	// long chain.
	calls := hostile.CallChain(100)
	calls.Library.Function[0].Attr = map[string]*tfpb.AttrValue{"api_implements": {Value: &tfpb.AttrValue_S{S: []byte("lstm_hostile")}}}
	nested := hostile.NestedCalls(60)
	for i, fn := range nested.Library.Function {
		if i%7 == 3 {
			fn.Attr = map[string]*tfpb.AttrValue{"_implements": {Value: &tfpb.AttrValue_S{S: []byte("LSTMCellSimple")}}}
		}
	}
	graphs = append(graphs, calls, nested, hostile.BigConstants(8, 1<<28), hostile.Chain(500, "Relu", "Identity", "Sigmoid"))
	for i := range graphs {
		f.Add([]byte{byte(i)})
		f.Add([]byte{byte(i), 1, 7, 3, 9, 2, 200, 5})
		f.Add([]byte{byte(i), 3, 0, 1, 4, 4, 4, 100, 13})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		g := proto.Clone(graphs[int(data[0])%len(graphs)]).(*tfpb.GraphDef)
		r := &fuzzBytes{b: data[1:]}
		for k := r.next() % 6; k > 0; k-- {
			mutate(g, r)
		}
		b, err := proto.Marshal(g)
		if err != nil {
			return
		}
		m, err := tfmodel.ParseGraphDef("fuzz.pb", b, false)
		if err != nil || len(g.Node) == 0 {
			return
		}
		outs := []string{g.Node[len(g.Node)-1].Name}
		if r.next()%2 == 0 {
			outs = append(outs, "call:1")
		}
		convert.ConvertModel(m, convert.Options{OutputArrays: outs, MaxNodes: 20000, MaxTensorBytes: 1 << 20,
			MaxConstantBytes: 64 << 20, MaxFoldElements: 1 << 16, MaxLoopIterations: 256})
	})
}

type fuzzBytes struct {
	b []byte
	i int
}

func (r *fuzzBytes) next() int {
	if len(r.b) == 0 {
		return 0
	}
	v := int(r.b[r.i%len(r.b)])
	r.i++
	return v
}

var swapOps = []string{"Sigmoid", "Tanh", "Relu", "Identity", "MatMul", "AddV2", "Mul", "Sub", "Split", "BiasAdd", "Transpose",
	"ReverseV2", "TensorListGetItem", "TensorListSetItem", "TensorListStack", "StatelessWhile", "StridedSlice", "Const", "Frobnicate"}

// mutate applies one change chosen by r to a node of the main graph or of
// a library function.
func mutate(g *tfpb.GraphDef, r *fuzzBytes) {
	var nodes []*tfpb.NodeDef
	nodes = append(nodes, g.Node...)
	for _, fn := range g.GetLibrary().GetFunction() {
		nodes = append(nodes, fn.NodeDef...)
	}
	if len(nodes) == 0 {
		return
	}
	n := nodes[r.next()*7%len(nodes)]
	switch r.next() % 7 {
	case 0: // another op
		n.Op = swapOps[r.next()%len(swapOps)]
	case 1: // drop an input
		if len(n.Input) > 0 {
			i := r.next() % len(n.Input)
			n.Input = append(n.Input[:i:i], n.Input[i+1:]...)
		}
	case 2: // rewire an input to another node's output
		if len(n.Input) > 0 {
			o := nodes[r.next()%len(nodes)]
			n.Input[r.next()%len(n.Input)] = o.Name
		}
	case 3: // constant values
		if a := n.Attr["value"]; a != nil && a.GetTensor() != nil {
			tp := a.GetTensor()
			vals := []float32{0, 1, -1, 1e30, float32(math.NaN()), float32(math.Inf(1)), 0.5, -3}
			for i := range tp.FloatVal {
				if r.next()%3 == 0 {
					tp.FloatVal[i] = vals[r.next()%len(vals)]
				}
			}
			for i := range tp.IntVal {
				if r.next()%3 == 0 {
					tp.IntVal[i] = int32(r.next()%9) - 2
				}
			}
		}
	case 4: // constant shapes
		if a := n.Attr["value"]; a != nil && a.GetTensor().GetTensorShape() != nil {
			dims := a.GetTensor().GetTensorShape().Dim
			if len(dims) > 0 {
				dims[r.next()%len(dims)].Size = int64(r.next()%5) - 1
			}
			if r.next()%4 == 0 && len(dims) > 0 {
				a.GetTensor().TensorShape.Dim = dims[:len(dims)-1]
			}
		}
	case 5: // integer attributes (num_split, masks, counts)
		for k, a := range n.Attr {
			if _, ok := a.GetValue().(*tfpb.AttrValue_I); ok && r.next()%2 == 0 {
				n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: int64(r.next()%7) - 1}}
			}
		}
	case 6: // the annotation
		for _, fn := range g.GetLibrary().GetFunction() {
			for k := range fn.Attr {
				if k == "api_implements" || k == "_implements" {
					names := []string{"lstm_x", "gru_x", "indy_lstm_x", "LSTMCellSimple", "LSTMCellSimple,CoupleInputForgetGates,Bogus",
						"LayerNormalizedLstmCellSimple", "embedding_matmul"}
					fn.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(names[r.next()%len(names)])}}
				}
			}
		}
	}
}
