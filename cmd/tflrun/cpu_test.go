package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/arch"
)

func TestCPUCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := execute([]string{"cpu"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{"cpu:", "features:", "caches:", "levels:", "in use:     " + arch.Summary(), "MatVecMulAccInt8", "Sigmoid"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}

	out.Reset()
	if code := execute([]string{"cpu", "--levels"}, &out, &errb); code != 0 {
		t.Fatalf("--levels exit %d", code)
	}
	lines := strings.Fields(out.String())
	if len(lines) != len(arch.Levels()) || lines[0] != "generic" {
		t.Fatalf("--levels printed %q, want %v", lines, arch.Levels())
	}

	out.Reset()
	if code := execute([]string{"cpu", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("--json exit %d", code)
	}
	var doc struct {
		Level      string `json:"level"`
		Primitives []struct {
			Name, Impl string
		} `json:"primitives"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Level != arch.Current().String() || len(doc.Primitives) < 10 {
		t.Fatalf("--json: %v %+v", err, doc)
	}

	// --isa switches the process level: restore it afterwards.
	saved := arch.Current()
	defer func() { _ = arch.Use(saved) }()
	out.Reset()
	errb.Reset()
	if code := execute([]string{"cpu", "--isa", "generic"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "in use:     generic") {
		t.Fatalf("--isa generic: exit %d\n%s%s", code, out.String(), errb.String())
	}
	errb.Reset()
	if code := execute([]string{"cpu", "--isa", "sse9"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown ISA level") {
		t.Fatalf("--isa sse9: exit %d, stderr %q", code, errb.String())
	}
}

func TestBenchPrintsISA(t *testing.T) {
	var out, errb bytes.Buffer
	if code := execute([]string{"bench", "--num_runs", "1", "--warmup_runs", "1", "--min_secs", "0", "--warmup_min_secs", "0"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "\nINFO: tflrun ISA: "+arch.Summary()+"\n") {
		t.Fatalf("no ISA line in:\n%s", out.String())
	}
}
