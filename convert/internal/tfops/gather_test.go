package tfops_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
)

// embeddingGraph builds what a Keras Embedding leaves in a TF2 SavedModel
// once its variables are resolved: ids (int32 [2, 4], run-time) →
// ResourceGather(VarHandleOp "embedding/embeddings") → the result, whose
// table is [vocab, dim]. use adds a second user of the handle.
func embeddingGraph(table *ir.Tensor, state bool, use func(f *ir.Function, h *ir.Value) *ir.Value) (*ir.Function, *ir.Module) {
	m := ir.NewModule(nil, nil)
	f := ir.NewFunction("main", m)
	ids := f.AddParam("ids", ir.Int32, ir.Shape{2, 4})
	h := f.NewNode("embedding/embeddings", "VarHandleOp", nil, 1)
	h.Outputs[0].DType, h.Outputs[0].Shape = ir.Resource, ir.Scalar()
	h.Outputs[0].Variable = &ir.Variable{Name: "embedding/embeddings", Key: "layer-0/embeddings/.ATTRIBUTES/VARIABLE_VALUE", Value: table, State: state}
	g := f.NewNode("embedding/embedding_lookup", "ResourceGather", []*ir.Value{h.Outputs[0], ids}, 1)
	g.SetAttrType("dtype", ir.Float32)
	g.SetAttrType("Tindices", ir.Int32)
	f.Results = []*ir.Value{g.Outputs[0]}
	f.ResultNames = []string{"y"}
	if use != nil {
		f.Results = append(f.Results, use(f, h.Outputs[0]))
		f.ResultNames = append(f.ResultNames, "z")
	}
	return f, m
}

// TestResourceGatherEmbedding: a gather from a variable with run-time ids
// (a Keras Embedding) becomes one GATHER on the constant table, and its
// output equals the table's rows picked by the ids, computed in float64
// from the checkpoint value.
func TestResourceGatherEmbedding(t *testing.T) {
	const vocab, dim = 7, 3
	vals := make([]float32, vocab*dim)
	seed := uint32(12)
	for i := range vals {
		seed = seed*1664525 + 1013904223
		vals[i] = float32(int32(seed>>8)%2000-1000) / 997
	}
	table := ir.FromFloat32s(ir.Shape{vocab, dim}, vals)
	f, m := embeddingGraph(table, false, nil)
	if err := convert.Lower(f, m, convert.Options{}, &fusion.Report{}); err != nil {
		t.Fatal(err)
	}
	data, err := tflite.Write(f, tflite.Signature{Key: "serving_default", InputNames: []string{"ids"}, OutputNames: []string{"y"}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	model, err := interpreter.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	ops0 := model.Subgraphs[0].Operators
	if len(ops0) != 1 || ops0[0].Op != ops.OpGather {
		t.Fatalf("operators %v, want one GATHER", ops0)
	}
	it, err := interpreter.New(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	ids := []int32{0, 6, 3, 3, 1, 0, 5, 2}
	copy(ops.View[int32](it.Input(0).Data), ids)
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	got := it.Output(0).Float32s()
	if len(got) != len(ids)*dim {
		t.Fatalf("%d outputs, want %d", len(got), len(ids)*dim)
	}
	want := table.Float64s()
	for i, id := range ids {
		for j := 0; j < dim; j++ {
			if w := want[int(id)*dim+j]; float64(got[i*dim+j]) != w {
				t.Errorf("ids[%d]=%d, column %d: got %v, want %v", i, id, j, got[i*dim+j], w)
			}
		}
	}
}

// TestVariableRefusals: a handle used by anything but a gather, a handle
// returned as a result, and a gather from a variable the model updates
// are refused, each naming the variable and what it is used by.
func TestVariableRefusals(t *testing.T) {
	table := ir.FromFloat32s(ir.Shape{2, 2}, []float32{1, 2, 3, 4})
	cases := []struct {
		name  string
		state bool
		use   func(f *ir.Function, h *ir.Value) *ir.Value
		want  string
	}{
		{"other user", false, func(f *ir.Function, h *ir.Value) *ir.Value {
			n := f.NewNode("shape", "VariableShape", []*ir.Value{h}, 1)
			n.SetAttrType("out_type", ir.Int32)
			return n.Outputs[0]
		}, `variable "embedding/embeddings" is used by "shape" (VariableShape), which tflrun cannot turn into a TFLite tensor`},
		{"result", false, func(f *ir.Function, h *ir.Value) *ir.Value { return h },
			`variable "embedding/embeddings" is a function result; a resource handle has no TFLite tensor`},
		{"updated variable", true, nil,
			`gathers from variable "embedding/embeddings", which the model updates`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, m := embeddingGraph(table, c.state, c.use)
			err := convert.Lower(f, m, convert.Options{}, &fusion.Report{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}
