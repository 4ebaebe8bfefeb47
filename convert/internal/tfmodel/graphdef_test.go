package tfmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// TestFrozenGraphs reads the TF1 frozen keyword-spotting graphs: node
// counts, the wav_data placeholder, their v1 while loops, and a cut from
// the Mfcc tensor to labels_softmax.
func TestFrozenGraphs(t *testing.T) {
	cases := []struct {
		file          string
		nodes, enters int
		cut           int
	}{
		{"LSTM/LSTM_S.pb", 117, 12, 113},
		{"GRU/GRU_S.pb", 94, 9, 90},
		{"CRNN/CRNN_S.pb", 151, 14, 147},
		{"Basic_LSTM/Basic_LSTM_S.pb", 98, 8, 94},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			m, err := Load(sharedModel(t, filepath.Join("armkws_tf1_frozen", c.file)))
			if err != nil {
				t.Fatal(err)
			}
			if m.IsSavedModel() {
				t.Error("a .pb file read as a SavedModel")
			}
			enters := 0
			var placeholders []string
			for _, n := range m.Graph.Node {
				switch n.Op {
				case "Enter":
					enters++
				case "Placeholder":
					placeholders = append(placeholders, n.Name)
				}
			}
			if len(m.Graph.Node) != c.nodes || enters != c.enters || len(placeholders) != 1 || placeholders[0] != "wav_data" {
				t.Errorf("%d nodes, %d Enter, placeholders %v; want %d, %d, [wav_data]", len(m.Graph.Node), enters, placeholders, c.nodes, c.enters)
			}
			e, err := m.Entry(EntryOptions{InputArrays: []string{"Mfcc"}, OutputArrays: []string{"labels_softmax"}, InputShapes: []ir.Shape{{1, 49, 10}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(e.Func.Nodes) != c.cut || e.Func.Params[0].DType != ir.Float32 || !e.Func.Params[0].Shape.Equal(ir.Shape{1, 49, 10}) {
				t.Errorf("cut: %d nodes, input %v", len(e.Func.Nodes), e.Func.Params[0])
			}
			if e.InputNames[0] != "Mfcc" || e.OutputNames[0] != "labels_softmax" || e.Func.ResultNames[0] != "labels_softmax:0" {
				t.Errorf("names %v %v %v", e.InputNames, e.OutputNames, e.Func.ResultNames)
			}
		})
	}
}

func TestTextGraphDef(t *testing.T) {
	m, err := Load("../../testdata/double_relu.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Functions()) != 1 || m.Composites()[0].Implements != "test.double_relu" {
		t.Errorf("functions %v", m.Functions())
	}
	// Without input arrays, the Placeholders the outputs need are the
	// inputs.
	e, err := m.Entry(EntryOptions{OutputArrays: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Func.Params) != 1 || e.InputNames[0] != "x" || !e.Func.Params[0].Shape.Equal(ir.Shape{-1, 3}) {
		t.Errorf("inputs %v %v", e.InputNames, e.Func.Params)
	}
	// Without output arrays, the sink node is the output, and a note
	// says so.
	if e, err := m.Entry(EntryOptions{}); err != nil || len(e.OutputNames) != 1 || e.OutputNames[0] != "out" || len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "outputs inferred as the graph's sink nodes") {
		t.Errorf("no output arrays: %v", err)
	}
	if _, err := m.Entry(EntryOptions{OutputArrays: []string{"nothere:0"}}); err == nil || !strings.Contains(err.Error(), `output "nothere:0": graph has no node "nothere"`) || !strings.Contains(err.Error(), "candidate inputs (Placeholders): x; candidate outputs (sink nodes): out") {
		t.Errorf("bad output: %v", err)
	}
	if _, err := m.Entry(EntryOptions{OutputArrays: []string{"out:7"}}); err == nil || !strings.Contains(err.Error(), `node "out" (AddV2) has 1 outputs, not 8`) {
		t.Errorf("bad output index: %v", err)
	}
}

func TestGraphDefErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content, want string
	}{
		{"bad.pbtxt", "node { name: \"x\" op: ", "not a valid text GraphDef"},
		{"empty.pbtxt", "", "has no nodes"},
		{"bad.pb", "\x0a\xff\xff\xff\xff\x0f", "not a valid binary GraphDef"},
		{"dup.pbtxt", `node { name: "a" op: "NoOp" } node { name: "a" op: "NoOp" }`, `graph node name "a" is used twice`},
		{"dangling.pbtxt", `node { name: "a" op: "Identity" input: "b:0" }`, `node "a" (op Identity): input "b:0" names no node`},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.content), 0o644)
		m, err := Load(p)
		if err == nil {
			_, err = m.Entry(EntryOptions{OutputArrays: []string{"a"}})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}
