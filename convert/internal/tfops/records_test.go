package tfops

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// TestRecordsComplete: every op the importer accepts without a model op
// list is one with a record (ir.Module.OpDef falls back to the records),
// and every record is complete: its outputs parse and give the importer
// that many arguments, it needs a non-negative number of inputs, it says
// what becomes of its nodes at legalisation (a Legalize, or why not), and
// an op that folds or legalises infers its shapes first.
func TestRecordsComplete(t *testing.T) {
	names := ir.OpNames()
	if len(names) < 150 {
		t.Fatalf("only %d op records are registered", len(names))
	}
	m := ir.NewModule(nil, nil)
	for _, name := range names {
		r, _ := ir.LookupOp(name)
		od, err := ir.ParseOutputs(name, r.Outputs)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if imp := m.OpDef(name); imp == nil || len(imp.OutputArg) != len(od.OutputArg) || len(od.OutputArg) != len(strings.Fields(r.Outputs)) {
			t.Errorf("%s: the importer does not read the record's %d outputs", name, len(od.OutputArg))
		}
		if r.MinInputs < 0 {
			t.Errorf("%s: MinInputs %d", name, r.MinInputs)
		}
		if (r.Legalize == nil) == (r.NoLegalize == "") {
			t.Errorf("%s: needs exactly one of Legalize and NoLegalize", name)
		}
		if r.Fold != nil && r.Infer == nil {
			t.Errorf("%s: folds without inferring its shapes", name)
		}
		if r.Legalize != nil && r.Infer == nil {
			t.Errorf("%s: legalises without inferring its shapes (legalisations need static shapes)", name)
		}
	}
	if m.OpDef("Frobnicate") != nil {
		t.Error("the importer knows an op without a record")
	}
}

// TestRecordsAreDeclaredOnce: no op name appears in the records of two
// files (ir.RegisterOp would panic at initialisation; this names the
// files).
func TestRecordsAreDeclaredOnce(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	quoted := regexp.MustCompile(`(?:Name: |^\t\{(?:name: )?)"([A-Za-z0-9]+)"`)
	where := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, m := range quoted.FindAllStringSubmatch(line, -1) {
				if _, ok := ir.LookupOp(m[1]); !ok {
					continue // a string, not a record's name
				}
				if prev, dup := where[m[1]]; dup && prev != f {
					t.Errorf("op %s has records in %s and %s", m[1], prev, f)
				}
				where[m[1]] = f
			}
		}
	}
	if len(where) < 100 {
		t.Errorf("found only %d record names in the sources; the scan is broken", len(where))
	}
}

// TestOptionsUnion: options() tags every options table the records'
// legalisations build (the "&schema.XOptionsT{" literals of the package
// sources) with its BuiltinOptions union member, and refuses a type
// outside the union.
func TestOptionsUnion(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	lit := regexp.MustCompile(`&schema\.([A-Za-z0-9]+)OptionsT\{`)
	used := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			used[m[1]] = true
		}
	}
	delete(used, "Builtin") // the union itself
	if len(used) < 20 {
		t.Errorf("found only %d options types; the scan is broken", len(used))
	}
	for name := range used {
		if _, ok := schema.EnumValuesBuiltinOptions[name+"Options"]; !ok {
			t.Errorf("options table %sOptionsT is not a member of BuiltinOptions", name)
		}
	}
	if o := options(&schema.Conv2DOptionsT{StrideW: 2}); o.Type != schema.BuiltinOptionsConv2DOptions || o.Value.(*schema.Conv2DOptionsT).StrideW != 2 {
		t.Errorf("options(Conv2DOptionsT) = %+v", o)
	}
	if options(nil) != nil {
		t.Error("options(nil) is not nil")
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "StableHLOCompositeOptionsT has no union tag") {
			t.Errorf("options of a BuiltinOptions2 table: panic %v", p)
		}
	}()
	options(&schema.StableHLOCompositeOptionsT{})
}
