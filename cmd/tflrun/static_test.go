package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStaticByDefault keeps a plain `go build ./cmd/tflrun` static: the
// command must not depend on runtime/cgo or on net (whose resolver makes
// the linker use the C library when cgo is on), the package pflag
// brought in.
func TestStaticByDefault(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "net", "runtime/cgo", "os/user", "plugin":
			t.Errorf("cmd/tflrun depends on %s, which links the C library into a plain go build", p)
		}
	}
}
