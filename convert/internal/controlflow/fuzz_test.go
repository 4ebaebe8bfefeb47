package controlflow_test

import (
	"os"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/internal/hostile"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// FuzzControlFlow mutates TF2 While/TensorList and TF1 frame/TensorArray
// graphs (testdata, and loops of package hostile that run long or unroll
// past the node budget) and converts them: every input must give a model
// or an error, never a panic or a hang. Loops are bounded by
// MaxLoopIterations and the node budget, and tensor sizes are bounded
// low, as the converter's other fuzz targets do, so that a mutated
// dimension does not spend the run allocating.
//
// The fuzzer's bytes are not the graph but a script of mutations of a
// seed graph (which seed, then which node and what change: another op,
// an input dropped or rewired, a constant's values or shape, an integer
// or type attribute, the loop's functions swapped). An earlier version
// fuzzed the pbtxt text itself: almost no mutation of it parses, and
// every new input found was kilobytes of text, whose minimisation held
// the fuzzer for a minute each time, so that it ran a handful of
// executions in minutes. Scripts are a few bytes and always give a
// graph.
//
//	go test ./convert/internal/controlflow -run='^$' -fuzz=FuzzControlFlow -fuzztime=5m
func FuzzControlFlow(f *testing.F) {
	var seeds []*tfpb.GraphDef
	for _, name := range []string{"testdata/while_rnn.pbtxt", "testdata/tf1_rnn.pbtxt"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		g := &tfpb.GraphDef{}
		if err := prototext.Unmarshal(b, g); err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		seeds = append(seeds, g)
	}
	// A loop running past MaxLoopIterations, one unrolled past the node
	// budget, and a small one.
	seeds = append(seeds, hostile.While(1_000_000_000, 1), hostile.While(60, 100), hostile.While(3, 2))
	for i := range seeds {
		f.Add([]byte{byte(i)})
		f.Add([]byte{byte(i), 2, 5, 3, 0, 9, 1, 4})
		f.Add([]byte{byte(i), 4, 200, 7, 3, 13, 2, 99, 6, 1, 8})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		g := proto.Clone(seeds[int(data[0])%len(seeds)]).(*tfpb.GraphDef)
		r := &script{b: data[1:]}
		for k := r.next() % 6; k > 0; k-- {
			mutateLoop(g, r)
		}
		b, err := proto.Marshal(g)
		if err != nil {
			return
		}
		m, err := tfmodel.ParseGraphDef("fuzz.pb", b, false)
		if err != nil || len(g.Node) == 0 {
			return
		}
		outs := []string{"stack", "last", "gather", "loop:2", hostile.Out, g.Node[r.next()%len(g.Node)].Name}
		for _, out := range outs {
			convert.ConvertModel(m, convert.Options{OutputArrays: []string{out}, MaxNodes: 5000, MaxTensorBytes: 1 << 20,
				MaxConstantBytes: 64 << 20, MaxFoldElements: 1 << 16, MaxLoopIterations: 64, MaxListLength: 1024})
		}
	})
}

// script reads the fuzzer's bytes as small numbers (zeros past the end).
type script struct {
	b []byte
	i int
}

func (r *script) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	v := int(r.b[r.i])
	r.i++
	return v
}

// loopOps are what a node's op may become: the control-flow and list ops
// the package lowers, and a few plain ones.
var loopOps = []string{"StatelessWhile", "While", "StatelessIf", "If", "Enter", "Exit", "Merge", "Switch", "NextIteration",
	"LoopCond", "TensorListReserve", "TensorListFromTensor", "TensorListGetItem", "TensorListSetItem", "TensorListStack",
	"TensorListLength", "TensorListElementShape", "TensorListPushBack", "TensorListPopBack", "TensorListGather",
	"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayGatherV3",
	"TensorArraySizeV3", "Identity", "AddV2", "Less", "Const", "PartitionedCall"}

// mutateLoop applies one change chosen by r to a node of the main graph
// or of a library function.
func mutateLoop(g *tfpb.GraphDef, r *script) {
	type site struct {
		n     *tfpb.NodeDef
		peers []*tfpb.NodeDef // the nodes of the same graph or function
		args  []string        // a function's argument names
	}
	var sites []site
	for _, n := range g.Node {
		sites = append(sites, site{n, g.Node, nil})
	}
	var funcs []string
	for _, fn := range g.GetLibrary().GetFunction() {
		funcs = append(funcs, fn.GetSignature().GetName())
		var args []string
		for _, a := range fn.GetSignature().GetInputArg() {
			args = append(args, a.Name)
		}
		for _, n := range fn.NodeDef {
			sites = append(sites, site{n, fn.NodeDef, args})
		}
	}
	if len(sites) == 0 {
		return
	}
	s := sites[r.next()*7%len(sites)]
	n := s.n
	switch r.next() % 9 {
	case 0: // another op
		n.Op = loopOps[r.next()%len(loopOps)]
	case 1: // drop an input
		if len(n.Input) > 0 {
			i := r.next() % len(n.Input)
			n.Input = append(n.Input[:i:i], n.Input[i+1:]...)
		}
	case 2: // rewire an input to another node's output or an argument
		if len(n.Input) > 0 {
			i := r.next() % len(n.Input)
			if k := r.next(); k%3 == 0 && len(s.args) > 0 {
				n.Input[i] = s.args[k%len(s.args)]
			} else {
				o := s.peers[k%len(s.peers)]
				n.Input[i] = o.Name
				if s.args != nil {
					n.Input[i] = o.Name + ":output:0"
				} else if k%2 == 1 {
					n.Input[i] = o.Name + ":1"
				}
			}
		}
	case 3: // constant values: trip counts, indices, element shapes
		if t := n.Attr["value"].GetTensor(); t != nil {
			vals := []int32{0, 1, 2, 3, -1, -2, 63, 64, 65, 1 << 20, 1<<31 - 1}
			for i := range t.IntVal {
				if r.next()%2 == 0 {
					t.IntVal[i] = vals[r.next()%len(vals)]
				}
			}
			for i := range t.FloatVal {
				if r.next()%3 == 0 {
					t.FloatVal[i] = float32(r.next()%5) - 2
				}
			}
		}
	case 4: // constant shapes
		if ts := n.Attr["value"].GetTensor().GetTensorShape(); ts != nil {
			if len(ts.Dim) > 0 {
				ts.Dim[r.next()%len(ts.Dim)].Size = []int64{-1, 0, 1, 2, 3, 1 << 20, 1 << 40}[r.next()%7]
			}
			if r.next()%4 == 0 {
				ts.Dim = append(ts.Dim, &tfpb.TensorShapeProto_Dim{Size: int64(r.next() % 4)})
			}
		}
	case 5: // integer attributes (num_elements, parallel_iterations, N)
		for k, a := range n.Attr {
			if _, ok := a.GetValue().(*tfpb.AttrValue_I); ok && r.next()%2 == 0 {
				n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: int64(r.next()%70) - 2}}
			}
		}
	case 6: // the loop's functions swapped or renamed
		for k, a := range n.Attr {
			if a.GetFunc() != nil && len(funcs) > 0 && r.next()%2 == 0 {
				name := funcs[r.next()%len(funcs)]
				if r.next()%5 == 0 {
					name = "missing"
				}
				n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: name}}}
			}
		}
	case 7: // types: a loop's type list shortened, an element type changed
		for k, a := range n.Attr {
			switch v := a.GetValue().(type) {
			case *tfpb.AttrValue_List:
				if ts := v.List.GetType(); len(ts) > 0 && r.next()%2 == 0 {
					n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: ts[:len(ts)-1]}}}
				}
			case *tfpb.AttrValue_Type:
				if r.next()%3 == 0 {
					types := []tfpb.DataType{tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_INT32, tfpb.DataType_DT_VARIANT, tfpb.DataType_DT_BOOL, tfpb.DataType_DT_STRING}
					n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: types[r.next()%len(types)]}}
				}
			}
		}
	case 8: // a TF1 frame name
		if a := n.Attr["frame_name"]; a != nil {
			n.Attr["frame_name"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte{'f', byte('0' + r.next()%3)}}}
		}
	}
}
