package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/hostile"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/proto"
)

// sameBothWays converts m with and without incremental simplification
// and fails unless the two give the same model bytes, fusion report and
// error.
func sameBothWays(t *testing.T, what string, m *tfmodel.Model, opts Options) {
	t.Helper()
	a, errA := ConvertModel(m, opts)
	opts.noIncremental = true
	b, errB := ConvertModel(m, opts)
	if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
		t.Fatalf("%s: incremental error %v, full error %v", what, errA, errB)
	}
	if errA != nil {
		return
	}
	if !bytes.Equal(a.Model, b.Model) {
		t.Fatalf("%s: incremental simplification wrote a different model (%d bytes, full %d)", what, len(a.Model), len(b.Model))
	}
	ja, _ := a.Report.JSON()
	jb, _ := b.Report.JSON()
	if !bytes.Equal(ja, jb) {
		t.Fatalf("%s: fusion reports differ:\n%s\n%s", what, ja, jb)
	}
}

func graphModel(t *testing.T, g *tfpb.GraphDef) *tfmodel.Model {
	t.Helper()
	data, err := proto.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tfmodel.ParseGraphDef("g.pb", data, false)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestIncrementalSameResult converts the test graphs, the hostile graphs
// (small) and a few shared models both ways.
func TestIncrementalSameResult(t *testing.T) {
	var files []string
	for _, pat := range []string{"testdata/*.pbtxt", "fusion/testdata/*.pbtxt", "internal/controlflow/testdata/*.pbtxt", "internal/tfops/testdata/*.pbtxt"} {
		fs, _ := filepath.Glob(pat)
		files = append(files, fs...)
	}
	sort.Strings(files)
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tfmodel.ParseGraphDef(name, data, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, nd := range m.Graph.Node {
			for _, nofuse := range []bool{false, true} {
				sameBothWays(t, name+" → "+nd.Name, m, Options{OutputArrays: []string{nd.Name}, NoFuse: nofuse})
			}
		}
	}
	for name, g := range map[string]*tfpb.GraphDef{
		"chain":   hostile.Chain(60, "Relu", "Identity", "Neg", "Identity", "Identity"),
		"fold":    hostile.FoldChain(30),
		"calls":   hostile.CallChain(40),
		"nested":  hostile.NestedCalls(12),
		"while":   hostile.While(5, 3),
		"fill":    hostile.HugeFill(3, 4),
		"consts":  hostile.BigConstants(3, 64),
		"diamond": diamondCalls(12),
	} {
		sameBothWays(t, name, graphModel(t, g), Options{OutputArrays: []string{hostile.Out}})
	}
	for _, c := range []struct{ dir, out string }{
		{"iteam1_lstm/lstm_model", ""}, {"iteam1_gru/gru_model", ""}, {"ditto_v2_bilstm/HeyDittoNet-v2", ""},
		{"dtln/dtln_saved_model", ""},
	} {
		path := sharedSavedModels + c.dir
		if _, err := os.Stat(path); err != nil {
			t.Logf("%s not present: %v", path, err)
			continue
		}
		if testing.Short() && c.dir != "iteam1_lstm/lstm_model" {
			continue
		}
		m := cachedModel(t, path)
		sameBothWays(t, c.dir, m, Options{})
		sameBothWays(t, c.dir+" --no-fuse", m, Options{NoFuse: true})
	}
}

// diamondCalls is x through n calls each used twice (by the next call and
// by an AddN at the end, with its inputs in reverse order), so that
// inlining one call moves the nodes it needs before users far from it.
func diamondCalls(n int) *tfpb.GraphDef {
	g := hostile.New()
	g.Function("cell", "r:activations:0", hostile.FuncNode("Relu", "r", []string{"x"}, nil))
	g.G.Library.Function[0].NodeDef[0].Attr = map[string]*tfpb.AttrValue{"T": {Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_FLOAT}}}
	prev := g.Input()
	var all []string
	for i := 0; i < n; i++ {
		prev = g.Call(fmtName("c", i), "cell", prev)
		all = append(all, prev)
	}
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	g.Node("AddN", hostile.Out, all, map[string]*tfpb.AttrValue{"T": {Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_FLOAT}},
		"N": {Value: &tfpb.AttrValue_I{I: int64(n)}}})
	return g.G
}

func fmtName(p string, i int) string { return p + string(rune('a'+i%26)) + string(rune('a'+i/26)) }
