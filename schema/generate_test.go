package schema

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCodeUpToDate regenerates the Go from schema.fbs with the
// go:generate command line and compares it with the committed
// schema_generated.go. It needs flatc 2.0.8 (other versions generate
// different code) and is skipped without it.
func TestGeneratedCodeUpToDate(t *testing.T) {
	flatc, err := exec.LookPath("flatc")
	if err != nil {
		t.Skip("flatc not on PATH (apt-get install flatbuffers-compiler)")
	}
	out, err := exec.Command(flatc, "--version").Output()
	if err != nil || !strings.Contains(string(out), "2.0.8") {
		t.Skipf("flatc version %q is not 2.0.8, the one the committed code comes from", strings.TrimSpace(string(out)))
	}
	gofmt, err := exec.LookPath("gofmt")
	if err != nil {
		t.Skip("gofmt not on PATH")
	}
	dir := t.TempDir()
	cmd := exec.Command(flatc, "--go", "--go-namespace", "schema", "--gen-object-api", "--gen-onefile",
		"-o", dir, "schema.fbs")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("flatc: %v\n%s", err, msg)
	}
	gen := filepath.Join(dir, "schema_generated.go")
	if msg, err := exec.Command(gofmt, "-w", gen).CombinedOutput(); err != nil {
		t.Fatalf("gofmt: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("schema_generated.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("schema_generated.go is stale: run `go generate ./schema` and commit the result")
	}
}
