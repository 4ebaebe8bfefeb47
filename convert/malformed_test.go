package convert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/proto"
)

// editedKWS writes a copy of the kws SavedModel whose saved_model.pb has
// been changed by edit, and returns its directory.
func editedKWS(t *testing.T, edit func(sm *tfpb.SavedModel)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(kwsModel(t), "saved_model.pb"))
	if err != nil {
		t.Fatal(err)
	}
	sm := &tfpb.SavedModel{}
	if err := proto.Unmarshal(data, sm); err != nil {
		t.Fatal(err)
	}
	edit(sm)
	out, err := proto.Marshal(sm)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "variables"), 0o755)
	os.WriteFile(filepath.Join(dir, "saved_model.pb"), out, 0o644)
	for _, f := range []string{"variables.index", "variables.data-00000-of-00001"} {
		b, err := os.ReadFile(filepath.Join(kwsDir, "variables", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "variables", f), b, 0o644)
	}
	return dir
}

// kwsNode finds a node of the wrapped-model function by name.
func kwsNode(sm *tfpb.SavedModel, fn, node string) *tfpb.NodeDef {
	for _, f := range sm.MetaGraphs[0].GraphDef.Library.Function {
		if f.Signature.Name == fn {
			for _, n := range f.NodeDef {
				if n.Name == node {
					return n
				}
			}
		}
	}
	return nil
}

const kwsBody = "__inference__wrapped_model_74986"

func TestMalformedKWS(t *testing.T) {
	cases := []struct {
		name string
		edit func(sm *tfpb.SavedModel)
		want string
	}{
		{"attribute of the wrong type", func(sm *tfpb.SavedModel) {
			kwsNode(sm, kwsBody, "functional_1/conv2d/Conv2D").Attr["strides"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("2,2")}}
		}, `function ` + kwsBody + `: node "functional_1/conv2d/Conv2D" (op Conv2D): attribute "strides" is a string, want list(int)`},
		{"unknown op in a function", func(sm *tfpb.SavedModel) {
			kwsNode(sm, kwsBody, "functional_1/activation/Relu").Op = "Relu9000"
		}, `function ` + kwsBody + `: node "functional_1/activation/Relu" (op Relu9000): unknown op "Relu9000"`},
		{"unknown op in the main graph", func(sm *tfpb.SavedModel) {
			// A SavedModel's main graph is its signature's function: the
			// error says "function serving_default" (a GraphDef's says
			// "graph PATH", see TestLegalizeErrors).
			for _, n := range sm.MetaGraphs[0].GraphDef.Node {
				if n.Name == "StatefulPartitionedCall" {
					n.Op = "Frobnicate"
				}
			}
		}, `function serving_default: node "conv2d/kernel" (op VarHandleOp): variable "conv2d/kernel" is used by "StatefulPartitionedCall" (Frobnicate)`},
		{"missing function", func(sm *tfpb.SavedModel) {
			lib := sm.MetaGraphs[0].GraphDef.Library
			for i, f := range lib.Function {
				if f.Signature.Name == kwsBody {
					lib.Function = append(lib.Function[:i], lib.Function[i+1:]...)
					break
				}
			}
		}, `function "` + kwsBody + `" is not in the graph's function library`},
		{"inconsistent shapes", func(sm *tfpb.SavedModel) {
			kwsNode(sm, kwsBody, "functional_1/flatten/Const").Attr["value"].GetTensor().TensorContent = []byte{255, 255, 255, 255, 7, 0, 0, 0}
		}, `node "functional_1/flatten/Reshape" (op Reshape): cannot reshape [1 1 1 64] (64 elements) to [-1 7]`},
		{"dangling reference", func(sm *tfpb.SavedModel) {
			n := kwsNode(sm, kwsBody, "functional_1/dense/Softmax")
			n.Input[0] = "functional_1/dense/BiasAdd:nope:0"
		}, `reference "functional_1/dense/BiasAdd:nope:0": op BiasAdd has no output named "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Convert(editedKWS(t, c.edit), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}
