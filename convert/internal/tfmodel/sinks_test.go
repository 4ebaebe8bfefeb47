package tfmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// TestSinkOutputs: a GraphDef without output arrays takes its sink
// nodes as outputs, leaving out the saver, the gradients, the optimiser,
// the initialiser and the train NoOp; the inputs are the Placeholders the
// sinks need; a note names the outputs.
func TestSinkOutputs(t *testing.T) {
	m, err := Load("testdata/train_graph.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	if got := SinkNodes(m.Graph); len(got) != 1 || got[0] != "loss" {
		t.Fatalf("sinks %v, want [loss]", got)
	}
	e, err := m.Entry(EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(e.OutputNames, ",") != "loss" || strings.Join(e.InputNames, ",") != "x,y_" {
		t.Errorf("inputs %v outputs %v, want [x y_] [loss]", e.InputNames, e.OutputNames)
	}
	if len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "sink nodes (the nodes whose outputs nothing reads): loss; name others with --output_arrays") {
		t.Errorf("notes %q", e.Notes)
	}
}

// TestSinkFallbacks: an unread PlaceholderWithDefault is an output only
// when nothing else is; a _Retval's input stands for it; a graph with no candidate at all is refused with
// the candidates listed.
func TestSinkFallbacks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) *Model {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	const def = `node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "d" op: "PlaceholderWithDefault" input: "c" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } experimental_debug_info { } }
`
	if got := SinkNodes(write("default.pbtxt", def).Graph); strings.Join(got, ",") != "d" {
		t.Errorf("defaults only: sinks %v, want [d]", got)
	}
	m := write("default_and_relu.pbtxt", def+`node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
`)
	if got := SinkNodes(m.Graph); strings.Join(got, ",") != "r" {
		t.Errorf("sinks %v, want [r]", got)
	}
	m = write("retval.pbtxt", `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "main" op: "_Retval" input: "r" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 0 } } }
`)
	if got := SinkNodes(m.Graph); strings.Join(got, ",") != "r" {
		t.Errorf("_Retval: sinks %v, want [r]", got)
	}
	m = write("none.pbtxt", `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "init" op: "NoOp" input: "^x" }
`)
	_, err := m.Entry(EntryOptions{})
	if err == nil || !strings.Contains(err.Error(), "no sink node to take as output; candidate inputs (Placeholders): x; candidate outputs (sink nodes): none") {
		t.Errorf("no sinks: %v", err)
	}
}

// TestWavInput: a WAV string Placeholder read by DecodeWav is replaced by
// DecodeWav's audio [desired_samples, desired_channels] and its sample
// rate (read by Mfcc), and a note says what to feed.
func TestWavInput(t *testing.T) {
	m, err := Load("testdata/wav_front_end.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Entry(EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(e.InputNames, ",") != "decoded_sample_data:0,decoded_sample_data:1" || strings.Join(e.OutputNames, ",") != "out" {
		t.Fatalf("inputs %v outputs %v", e.InputNames, e.OutputNames)
	}
	p := e.Func.Params
	if p[0].DType != ir.Float32 || !p[0].Shape.Equal(ir.Shape{16000, 1}) || p[1].DType != ir.Int32 || !p[1].Shape.Equal(ir.Shape{}) {
		t.Errorf("params %v %v, %v %v", p[0].DType, p[0].Shape, p[1].DType, p[1].Shape)
	}
	if len(e.Notes) != 2 || !strings.Contains(e.Notes[1], `input "wav_data" is a WAV file (string) decoded by "decoded_sample_data" (DecodeWav), which TensorFlow Lite cannot run`) ||
		!strings.Contains(e.Notes[1], `"decoded_sample_data:1" (sample rate in Hz, int32 scalar)`) {
		t.Errorf("notes %q", e.Notes)
	}
	// Input arrays given by the user win: no DecodeWav rewriting.
	e, err = m.Entry(EntryOptions{InputArrays: []string{"AudioSpectrogram", "decoded_sample_data:1"}, OutputArrays: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Notes) != 0 || e.InputNames[0] != "AudioSpectrogram" {
		t.Errorf("with input arrays: inputs %v notes %q", e.InputNames, e.Notes)
	}
}
