package readmetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/metadata"
)

// classifyMarker precedes, in README.md, the program TestREADMEClassify
// runs.
const classifyMarker = "<!-- classify.go: tested by internal/readmetest -->"

// readmeProgram returns the Go code block that follows marker in the
// repository's README.md.
func readmeProgram(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("README.md lacks the marker %q", marker)
	}
	_, rest, ok = strings.Cut(rest, "```go\n")
	if !ok {
		t.Fatalf("README.md: no ```go block after %q", marker)
	}
	code, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("README.md: the block after %q is not closed", marker)
	}
	return code
}

// TestREADMEClassify builds the README's classify program as a module of
// its own outside the repository (go.mod: a require of tflrun and a
// replace to this checkout) and runs it on the MNIST LSTM with a label
// file added to its metadata: it must name the digit of the sample image
// through the model's serving_default signature.
func TestREADMEClassify(t *testing.T) {
	const modelPath = "../../../shared/models/mnist_lstm/trained_lstm.tflite"
	const imagePath = "../../../shared/models/mnist_lstm/samples/sample7.png"
	for _, p := range []string{modelPath, imagePath} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("shared file %s absent: %v", p, err)
		}
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	code := readmeProgram(t, classifyMarker)
	if n := strings.Count(code, "\n"); n >= 45 {
		t.Errorf("the README's program has %d lines; keep it short", n)
	}
	checkout, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", []byte(code))
	write("go.mod", fmt.Appendf(nil, "module example.com/classify\n\ngo 1.26\n\nrequire github.com/tflrun/tflrun v0.0.0\n\nreplace github.com/tflrun/tflrun => %s\n", checkout))
	// go.sum records the checksums of tflrun's own requirements, as
	// `go mod tidy` would write them; the build then needs no network.
	sum, err := os.ReadFile("../../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", sum)

	// The model: the MNIST LSTM with a label file in its metadata, as
	// TensorFlow Lite's metadata writers attach one.
	model, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	names := "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	md := &metadata.ModelMetadata{Name: "MNIST LSTM", Subgraphs: []metadata.SubgraphMetadata{{
		Inputs:  []metadata.TensorMetadata{{Name: "image"}},
		Outputs: []metadata.TensorMetadata{{Name: "probabilities", AssociatedFiles: []metadata.AssociatedFile{{Name: "labels.txt", Type: metadata.FileTensorAxisLabels}}}},
	}}}
	labelled, err := metadata.Populate(model, md, []metadata.File{{Name: "labels.txt", Data: []byte(names)}})
	if err != nil {
		t.Fatal(err)
	}
	write("mnist_lstm_labels.tflite", labelled)
	img, err := filepath.Abs(imagePath)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(goTool, "run", ".", "mnist_lstm_labels.tflite", img)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); !strings.HasPrefix(got, "seven (") {
		t.Errorf("the program printed %q, want the label seven and its score", got)
	}
}
