package convert

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/hostile"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// The fuzz targets feed arbitrary bytes to the readers and, when they
// accept them, to the whole conversion pipeline. Any input must give a
// model or an error: never a panic, a hang or an unbounded allocation.
//
//	go test ./convert -run='^$' -fuzz=FuzzSavedModel -fuzztime=5m
//	go test ./convert -run='^$' -fuzz=FuzzGraphDef -fuzztime=5m
//
// Minimisation sets the pace of a target whose input is the file's
// bytes: each candidate the minimiser tries costs a copy and a scan of
// the whole coverage map, and it tries about n²/2 of them on an n-byte
// input. FuzzGraphDef's seeds are small enough for that to take seconds;
// FuzzSavedModel's were not (a mutation of the 525-byte double-ReLU
// SavedModel held the worker for the whole default minute), so its input
// is a short script of edits instead (see there).

// fuzzLimits lowers the converter's limits for fuzzing, so that a
// mutated size does not spend the run allocating.
func fuzzLimits(o Options) Options {
	o.MaxNodes, o.MaxTensorBytes, o.MaxConstantBytes, o.MaxFoldElements, o.MaxLoopIterations = 4096, 1<<20, 64<<20, 1<<16, 256
	return o
}

// hostileSeeds are the hostile graphs of package hostile at sizes a fuzz
// run can afford: short chains of ops and of calls, nested calls, splat
// constants of gigabytes, shapes past every limit, loops past the
// iteration limit and past fuzzLimits' node budget. Each is a few hundred
// bytes, because the cost of a fuzz run is set by the minimiser: nearly
// every first mutation of a seed reaches some new error path and is
// minimised, and Go's minimiser tries some n²/2 candidates on an n-byte
// input, each a conversion of a millisecond or so. With chains of 300,
// calls nested 300 deep (33 KB) and a loop body of 100 nodes, both
// targets made 12 to 21 executions in 30 seconds; the full-size classes
// are TestHostileFullSize's.
func hostileSeeds() []*tfpb.GraphDef {
	return []*tfpb.GraphDef{
		hostile.Chain(4, "Relu", "Identity", "Neg"),
		hostile.FoldChain(6),
		hostile.CallChain(3),
		hostile.NestedCalls(3),
		diamondCalls(3),
		hostile.BigConstants(2, 1<<28),
		hostile.HugeFill(1<<31-1, 1<<31-1, 1<<31-1, 4),
		hostile.HugeFill(1<<26, 4),
		hostile.While(1_000_000_000, 1),
		hostile.While(250, 17), // 4250 nodes unrolled, past fuzzLimits' 4096
	}
}

// savedModelOf wraps g in a SavedModel tagged "serve" with a
// serving_default signature from the float32 input x:0 of the given
// shape to the tensor out.
func savedModelOf(g *tfpb.GraphDef, in ir.Shape, out string) *tfpb.SavedModel {
	return &tfpb.SavedModel{MetaGraphs: []*tfpb.MetaGraphDef{{
		MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    g,
		SignatureDef: map[string]*tfpb.SignatureDef{"serving_default": {
			Inputs:  map[string]*tfpb.TensorInfo{"x": {Encoding: &tfpb.TensorInfo_Name{Name: "x:0"}, Dtype: tfpb.DataType_DT_FLOAT, TensorShape: in.TF()}},
			Outputs: map[string]*tfpb.TensorInfo{"y": {Encoding: &tfpb.TensorInfo_Name{Name: out}, Dtype: tfpb.DataType_DT_FLOAT}},
		}},
	}}}
}

// savedModelSeeds are FuzzSavedModel's base models: testdata's
// double-ReLU graph with a dynamic batch, and the hostile graphs, each in
// a SavedModel with a serving signature.
func savedModelSeeds(f *testing.F) []*tfpb.SavedModel {
	text, err := os.ReadFile("testdata/double_relu.pbtxt")
	if err != nil {
		f.Fatal(err)
	}
	g := &tfpb.GraphDef{}
	if err := prototext.Unmarshal(text, g); err != nil {
		f.Fatal(err)
	}
	seeds := []*tfpb.SavedModel{savedModelOf(g, ir.Shape{-1, 3}, "out:0")}
	for _, g := range hostileSeeds() {
		seeds = append(seeds, savedModelOf(g, ir.Shape{1, 4}, hostile.Out+":0"))
	}
	return seeds
}

// FuzzSavedModel edits small SavedModels (savedModelSeeds), then reads
// them back from their bytes and converts every signature: any edit must
// give a model or an error, never a panic, a hang or an unbounded
// allocation.
//
// The fuzzer's bytes are not the file but a script (as FuzzControlFlow's
// are): the first byte picks the seed, the next the number of edits, and
// each edit is chosen by the bytes that follow (zeros past the end). An
// edit changes a node of the graph or of a library function (its op, an
// input dropped or rewired, a node removed, a constant's shape or
// values, a type, integer or function attribute), a signature (an input
// or output renamed to another tensor or to no tensor, its dtype,
// shape or encoding, signatures added, removed or renamed to the init
// op's key), the meta graphs (tags, a second meta graph, the graph
// removed, a stripped op list) or, last, the encoded bytes (one byte
// changed, or the file truncated), which keeps the protobuf reader in
// the run. An earlier version fuzzed the file's bytes: almost no
// mutation of them reached the converter, and every new input was
// minimised byte by byte for the default minute, so a 40-second run made
// about ten executions of its own.
func FuzzSavedModel(f *testing.F) {
	seeds := savedModelSeeds(f)
	for i := range seeds {
		f.Add([]byte{byte(i)})
		f.Add([]byte{byte(i), 3, 0, 5, 0, 3, 4, 1, 0, 7, 2})
		f.Add([]byte{byte(i), 5, 4, 2, 9, 1, 5, 3, 6, 0, 1, 8, 2, 3, 11, 7, 200})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		sm := proto.Clone(seeds[int(data[0])%len(seeds)]).(*tfpb.SavedModel)
		r := &script{b: data[1:]}
		raw := -1
		for k := r.next() % 8; k > 0; k-- {
			if e := r.next() % 12; e == 11 {
				raw = r.next()
			} else {
				editSavedModel(sm, e, r)
			}
		}
		b, err := proto.Marshal(sm)
		if err != nil {
			return
		}
		if raw >= 0 && len(b) > 0 {
			if i := raw * 131 % len(b); raw%2 == 0 {
				b = b[:i]
			} else {
				b[i] ^= byte(r.next() | 1)
			}
		}
		m, err := tfmodel.ParseSavedModel("fuzz/saved_model.pb", b)
		if err != nil {
			return
		}
		m.Functions()
		m.Composites()
		if _, err := m.Variables(); err != nil {
			return
		}
		for _, sig := range m.Signatures() {
			ConvertModel(m, fuzzLimits(Options{Signature: sig}))
		}
		// The default signature choice, and outputs overriding the
		// signature's.
		ConvertModel(m, fuzzLimits(Options{}))
		if n := m.Graph.GetNode(); len(n) > 0 {
			ConvertModel(m, fuzzLimits(Options{OutputArrays: []string{n[r.next()%len(n)].Name}}))
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

// savedModelOps are what a node's op may become.
var savedModelOps = []string{"Placeholder", "Const", "Identity", "IdentityN", "Relu", "Neg", "AddV2", "MatMul", "Reshape",
	"Fill", "StatefulPartitionedCall", "PartitionedCall", "While", "StatelessWhile", "VarHandleOp", "ReadVariableOp",
	"AssignVariableOp", "NoOp", "Frobnicate"}

// fuzzDTypes are the element types an edit may set.
var fuzzDTypes = []tfpb.DataType{tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT64,
	tfpb.DataType_DT_BOOL, tfpb.DataType_DT_STRING, tfpb.DataType_DT_RESOURCE, tfpb.DataType_DT_VARIANT,
	tfpb.DataType_DT_HALF, tfpb.DataType_DT_INVALID, tfpb.DataType(1000)}

// sortedNames returns a map's keys sorted, so that edits are
// reproducible.
func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// editSavedModel applies edit e (0 to 10), its details chosen by r, to
// the first meta graph of sm (or to the list of meta graphs).
func editSavedModel(sm *tfpb.SavedModel, e int, r *script) {
	if len(sm.MetaGraphs) == 0 {
		sm.MetaGraphs = append(sm.MetaGraphs, &tfpb.MetaGraphDef{})
	}
	mg := sm.MetaGraphs[0]
	g := mg.GetGraphDef()
	// The nodes an edit may change: the graph's and its functions'.
	type site struct {
		n     *tfpb.NodeDef
		peers []*tfpb.NodeDef
	}
	var sites []site
	var tensors []string // tensor names of the main graph
	for _, n := range g.GetNode() {
		sites = append(sites, site{n, g.Node})
		tensors = append(tensors, n.Name+":0", n.Name+":1")
	}
	for _, fn := range g.GetLibrary().GetFunction() {
		for _, n := range fn.NodeDef {
			sites = append(sites, site{n, fn.NodeDef})
		}
	}
	tensors = append(tensors, "", "missing:0", "x:-1", "x:99999999999", "^x", "x:0:0")
	var s site
	if len(sites) > 0 {
		s = sites[r.next()*7%len(sites)]
	}
	sigs := mg.GetSignatureDef()
	var sig *tfpb.SignatureDef
	if keys := sortedNames(sigs); len(keys) > 0 {
		sig = sigs[keys[r.next()%len(keys)]]
	}
	info := func(m map[string]*tfpb.TensorInfo) *tfpb.TensorInfo {
		if keys := sortedNames(m); len(keys) > 0 {
			return m[keys[r.next()%len(keys)]]
		}
		return nil
	}
	switch e {
	case 0: // a node's op
		if s.n != nil {
			s.n.Op = savedModelOps[r.next()%len(savedModelOps)]
		}
	case 1: // an input dropped, rewired, or made a control input
		if s.n != nil && len(s.n.Input) > 0 {
			i := r.next() % len(s.n.Input)
			switch k := r.next(); k % 4 {
			case 0:
				s.n.Input = append(s.n.Input[:i:i], s.n.Input[i+1:]...)
			case 1:
				s.n.Input[i] = "^" + s.n.Input[i]
			default:
				o := s.peers[k%len(s.peers)].Name
				if k%3 == 0 {
					o += ":1"
				}
				s.n.Input[i] = o
			}
		}
	case 2: // a node removed from its graph
		if g != nil && len(g.Node) > 0 {
			i := r.next() % len(g.Node)
			g.Node = append(g.Node[:i:i], g.Node[i+1:]...)
		}
	case 3: // a constant's shape or values
		if t := s.n.GetAttr()["value"].GetTensor(); t != nil {
			ts := t.TensorShape
			if ts == nil {
				ts = &tfpb.TensorShapeProto{}
				t.TensorShape = ts
			}
			switch k := r.next(); k % 4 {
			case 0:
				if len(ts.Dim) > 0 {
					ts.Dim[r.next()%len(ts.Dim)].Size = []int64{-1, 0, 1, 2, 3, 1 << 20, 1 << 40, -1 << 62}[r.next()%8]
				}
			case 1:
				ts.Dim = append(ts.Dim, &tfpb.TensorShapeProto_Dim{Size: int64(r.next() % 4)})
			case 2:
				t.FloatVal = append(t.FloatVal, float32(r.next()%7)-3)
				t.IntVal = append(t.IntVal, int32(r.next())-128)
			case 3:
				if len(t.TensorContent) > 0 {
					t.TensorContent = t.TensorContent[:r.next()%len(t.TensorContent)]
				}
				t.Dtype = fuzzDTypes[r.next()%len(fuzzDTypes)]
			}
		}
	case 4: // a type, integer or function attribute
		for _, k := range sortedNames(s.n.GetAttr()) {
			if r.next()%2 != 0 {
				continue
			}
			switch a := s.n.Attr[k]; a.GetValue().(type) {
			case *tfpb.AttrValue_Type:
				s.n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: fuzzDTypes[r.next()%len(fuzzDTypes)]}}
			case *tfpb.AttrValue_I:
				s.n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: int64(r.next()%70) - 2}}
			case *tfpb.AttrValue_Func:
				name := "missing"
				if fns := g.GetLibrary().GetFunction(); len(fns) > 0 && r.next()%4 != 0 {
					name = fns[r.next()%len(fns)].GetSignature().GetName()
				}
				s.n.Attr[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: name}}}
			default:
				delete(s.n.Attr, k)
			}
		}
	case 5: // a signature input's tensor, dtype, shape or encoding
		if ti := info(sig.GetInputs()); ti != nil {
			switch k := r.next(); k % 5 {
			case 0:
				ti.Encoding = &tfpb.TensorInfo_Name{Name: tensors[r.next()%len(tensors)]}
			case 1:
				ti.Dtype = fuzzDTypes[r.next()%len(fuzzDTypes)]
			case 2:
				if ti.TensorShape == nil {
					ti.TensorShape = &tfpb.TensorShapeProto{}
				}
				if d := ti.TensorShape.Dim; len(d) > 0 && k%2 == 0 {
					d[r.next()%len(d)].Size = []int64{-1, 0, 1, 7, -5, 1 << 31, 1 << 50}[r.next()%7]
				} else {
					ti.TensorShape.Dim = append(ti.TensorShape.Dim, &tfpb.TensorShapeProto_Dim{Size: int64(r.next()%3) - 1})
				}
			case 3:
				ti.TensorShape = &tfpb.TensorShapeProto{UnknownRank: true}
			case 4:
				ti.Encoding = nil
			}
		}
	case 6: // a signature output's tensor, or an output added or removed
		if sig != nil {
			if sig.Outputs == nil {
				sig.Outputs = map[string]*tfpb.TensorInfo{}
			}
			switch k := r.next(); k % 3 {
			case 0:
				if ti := info(sig.Outputs); ti != nil {
					ti.Encoding = &tfpb.TensorInfo_Name{Name: tensors[r.next()%len(tensors)]}
				}
			case 1:
				sig.Outputs[fmt.Sprintf("y%d", k%4)] = &tfpb.TensorInfo{Encoding: &tfpb.TensorInfo_Name{Name: tensors[r.next()%len(tensors)]}}
			case 2:
				for _, key := range sortedNames(sig.Outputs) {
					if r.next()%2 == 0 {
						delete(sig.Outputs, key)
					}
				}
			}
		}
	case 7: // signatures added, removed or renamed
		switch k := r.next(); k % 4 {
		case 0:
			if sig != nil {
				key := []string{"second", "__saved_model_init_op", "serving_default", ""}[r.next()%4]
				if mg.SignatureDef == nil {
					mg.SignatureDef = map[string]*tfpb.SignatureDef{}
				}
				mg.SignatureDef[key] = proto.Clone(sig).(*tfpb.SignatureDef)
			}
		case 1:
			for _, key := range sortedNames(sigs) {
				if r.next()%2 == 0 {
					delete(sigs, key)
				}
			}
		case 2:
			if sig != nil {
				sig.Inputs = nil
			}
		case 3:
			if sig != nil {
				if sig.Inputs == nil {
					sig.Inputs = map[string]*tfpb.TensorInfo{}
				}
				sig.Inputs["x2"] = &tfpb.TensorInfo{Encoding: &tfpb.TensorInfo_Name{Name: tensors[r.next()%len(tensors)]},
					Dtype: fuzzDTypes[r.next()%len(fuzzDTypes)]}
			}
		}
	case 8: // tags and meta graphs
		switch k := r.next(); k % 4 {
		case 0:
			if mg.MetaInfoDef == nil {
				mg.MetaInfoDef = &tfpb.MetaGraphDef_MetaInfoDef{}
			}
			mg.MetaInfoDef.Tags = [][]string{nil, {"train"}, {"serve", "gpu"}, {"serve", "serve"}}[r.next()%4]
		case 1:
			other := proto.Clone(mg).(*tfpb.MetaGraphDef)
			other.MetaInfoDef = &tfpb.MetaGraphDef_MetaInfoDef{Tags: [][]string{{"serve"}, {"train"}}[r.next()%2]}
			if r.next()%2 == 0 {
				sm.MetaGraphs = append([]*tfpb.MetaGraphDef{other}, sm.MetaGraphs...)
			} else {
				sm.MetaGraphs = append(sm.MetaGraphs, other)
			}
		case 2:
			mg.GraphDef = nil
		case 3:
			sm.MetaGraphs = sm.MetaGraphs[:1]
			mg.SignatureDef = nil
		}
	case 9: // a stripped op list giving an op wrong defaults or arguments
		if mg.MetaInfoDef == nil {
			mg.MetaInfoDef = &tfpb.MetaGraphDef_MetaInfoDef{}
		}
		op := &tfpb.OpDef{Name: savedModelOps[r.next()%len(savedModelOps)]}
		if r.next()%2 == 0 {
			op.Attr = append(op.Attr, &tfpb.OpDef_AttrDef{Name: "T", Type: "type",
				DefaultValue: &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: fuzzDTypes[r.next()%len(fuzzDTypes)]}}})
		} else {
			op.Attr = append(op.Attr, &tfpb.OpDef_AttrDef{Name: "N", Type: "int",
				DefaultValue: &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: int64(r.next()) - 100}}})
		}
		op.InputArg = append(op.InputArg, &tfpb.OpDef_ArgDef{Name: "a", NumberAttr: "N"})
		if mg.MetaInfoDef.StrippedOpList == nil {
			mg.MetaInfoDef.StrippedOpList = &tfpb.OpList{}
		}
		mg.MetaInfoDef.StrippedOpList.Op = append(mg.MetaInfoDef.StrippedOpList.Op, op)
	case 10: // a library function removed, renamed or given fewer arguments
		if fns := g.GetLibrary().GetFunction(); len(fns) > 0 {
			i := r.next() % len(fns)
			switch k := r.next(); k % 3 {
			case 0:
				g.Library.Function = append(fns[:i:i], fns[i+1:]...)
			case 1:
				if sg := fns[i].Signature; sg != nil {
					sg.Name = fns[r.next()%len(fns)].GetSignature().GetName()
				}
			case 2:
				if sg := fns[i].Signature; sg != nil && len(sg.InputArg) > 0 {
					sg.InputArg = sg.InputArg[:len(sg.InputArg)-1]
				}
			}
		}
	}
}

func FuzzGraphDef(f *testing.F) {
	// The loop graphs of internal/controlflow (5 to 7 KB of text) are
	// FuzzControlFlow's seeds, mutated there by a short script.
	for _, name := range []string{"testdata/double_relu.pbtxt", "testdata/cycle.pbtxt"} {
		text, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(text, true)
		g := &tfpb.GraphDef{}
		if err := prototext.Unmarshal(text, g); err != nil {
			f.Fatal(err)
		}
		b, _ := proto.Marshal(g)
		f.Add(b, false)
	}
	for _, g := range hostileSeeds() {
		b, _ := proto.Marshal(g)
		f.Add(b, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, text bool) {
		m, err := tfmodel.ParseGraphDef("fuzz.pb", data, text)
		if err != nil {
			return
		}
		m.Functions()
		// Convert towards the first nodes and the last (the output of
		// the hostile graphs), simplifying incrementally and not: both
		// must give the same.
		nodes := m.Graph.Node
		if len(nodes) > 8 {
			nodes = append(nodes[:7:7], nodes[len(nodes)-1])
		}
		for _, n := range nodes {
			sameBothWays(t, n.Name, m, fuzzLimits(Options{OutputArrays: []string{n.Name}}))
		}
	})
}
