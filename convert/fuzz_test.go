package convert

import (
	"os"
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
//	go test ./convert -run='^$' -fuzz=FuzzSavedModel -fuzztime=5m -fuzzminimizetime=5s
//	go test ./convert -run='^$' -fuzz=FuzzGraphDef -fuzztime=5m
//
// Minimisation sets the pace: each candidate the minimiser tries costs a
// copy and a scan of the whole coverage map (some 70% of the worker's
// time in perf, the conversion itself a small part), and it tries about
// n²/2 of them on an n-byte input. FuzzGraphDef's seeds are small enough
// for that to take seconds; FuzzSavedModel's first new input, a mutation
// of the 525-byte double-ReLU SavedModel, still takes longer than the
// default minute allows, so give it -fuzzminimizetime as above.

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

func savedModelOf(g *tfpb.GraphDef) []byte {
	sm := &tfpb.SavedModel{MetaGraphs: []*tfpb.MetaGraphDef{{
		MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    g,
		SignatureDef: map[string]*tfpb.SignatureDef{"serving_default": {
			Inputs:  map[string]*tfpb.TensorInfo{"x": {Encoding: &tfpb.TensorInfo_Name{Name: "x:0"}, Dtype: tfpb.DataType_DT_FLOAT, TensorShape: ir.Shape{1, 4}.TF()}},
			Outputs: map[string]*tfpb.TensorInfo{"y": {Encoding: &tfpb.TensorInfo_Name{Name: hostile.Out + ":0"}, Dtype: tfpb.DataType_DT_FLOAT}},
		}},
	}}}
	b, _ := proto.Marshal(sm)
	return b
}

// savedModelSeed wraps testdata/double_relu.pbtxt in a SavedModel with a
// serving_default signature.
func savedModelSeed(f *testing.F) []byte {
	text, err := os.ReadFile("testdata/double_relu.pbtxt")
	if err != nil {
		f.Fatal(err)
	}
	g := &tfpb.GraphDef{}
	if err := prototext.Unmarshal(text, g); err != nil {
		f.Fatal(err)
	}
	sm := &tfpb.SavedModel{MetaGraphs: []*tfpb.MetaGraphDef{{
		MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    g,
		SignatureDef: map[string]*tfpb.SignatureDef{"serving_default": {
			Inputs:  map[string]*tfpb.TensorInfo{"x": {Encoding: &tfpb.TensorInfo_Name{Name: "x:0"}, Dtype: tfpb.DataType_DT_FLOAT, TensorShape: ir.Shape{-1, 3}.TF()}},
			Outputs: map[string]*tfpb.TensorInfo{"y": {Encoding: &tfpb.TensorInfo_Name{Name: "out:0"}, Dtype: tfpb.DataType_DT_FLOAT}},
		}},
	}}}
	b, err := proto.Marshal(sm)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzSavedModel mutates small SavedModels (the double-ReLU graph and the
// hostile graphs, each with a serving signature) and converts every
// signature. The 800 KB KWS SavedModel of ../shared is not a seed: each
// of its mutations took a whole conversion, and every new input found
// from it was minimised for a minute, byte by byte (a 5-minute run made
// 102 executions); the KWS tests convert it.
func FuzzSavedModel(f *testing.F) {
	f.Add(savedModelSeed(f))
	for _, g := range hostileSeeds() {
		f.Add(savedModelOf(g))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := tfmodel.ParseSavedModel("fuzz/saved_model.pb", data)
		if err != nil {
			return
		}
		m.Functions()
		m.Composites()
		if _, err := m.Variables(); err != nil {
			return
		}
		for _, sig := range m.Signatures() {
			if _, err := ConvertModel(m, fuzzLimits(Options{Signature: sig})); err != nil {
				continue
			}
		}
	})
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
