package convert

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestPassList: the pipeline's names are unique, in the order the
// conversion needs, and CheckPassNames knows them (and "all") and refuses
// others, listing the passes.
func TestPassList(t *testing.T) {
	names := PassNames()
	want := "functionalize-tf1-loops mark-state inline simplify inline-call fuse-loops lower-control-flow check-deep-cut " +
		"lower-state check-state-writes legalize optimize pair-bidirectional share-constants quantize"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("passes\n%s\nwant\n%s", got, want)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("pass %q appears twice", n)
		}
		seen[n] = true
	}
	for _, p := range Passes() {
		if p.Doc == "" || strings.Contains(p.Doc, "\n") {
			t.Errorf("pass %s: Doc %q is not one line", p.Name, p.Doc)
		}
		if (p.Loop == nil) == (p.run == nil) {
			t.Errorf("pass %s needs exactly one of Loop and run", p.Name)
		}
	}
	if err := CheckPassNames([]string{"legalize", "all", "inline-call"}); err != nil {
		t.Error(err)
	}
	err := CheckPassNames([]string{"legalize", "legalise"})
	if err == nil || !strings.Contains(err.Error(), `unknown pass "legalise"`) || !strings.Contains(err.Error(), strings.Join(names, ", ")) {
		t.Errorf("unknown pass: %v", err)
	}
	if _, err := Convert("testdata/double_relu.pbtxt", Options{OutputArrays: []string{"out"}, PrintIRAfter: []string{"nope"}}); err == nil ||
		!strings.Contains(err.Error(), `Options.PrintIRAfter: unknown pass "nope"`) {
		t.Errorf("Convert with an unknown pass: %v", err)
	}
}

// TestPrintIRAfter: the IR after the named passes, exactly; every pass
// with "all", in order, a pass with nothing to do as a header line; and
// the model written is the same as without printing.
func TestPrintIRAfter(t *testing.T) {
	opts := Options{OutputArrays: []string{"out"}}
	plain, err := Convert("testdata/double_relu.pbtxt", opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	opts.PrintIRAfter, opts.PrintIRTo = []string{"inline-call", "legalize"}, &b
	res, err := Convert("testdata/double_relu.pbtxt", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Model, plain.Model) {
		t.Error("printing the IR changed the model")
	}
	want := `// -----// IR after inline-call (inline round 1) //----- //
func serving_default(%x: float32[1 3]) -> (out:0) {
  %b = Const : float32[3] {0.5, -1, 2}
  %out = AddV2(%call/s, %b) {T: float32} : float32[*]
  %call/r = Relu(%x) {T: float32} : float32[1 3]
  %call/s = AddV2(%call/r, %call/r) {T: float32} : float32[1 3]
  return %out
}
// -----// IR after legalize //----- //
func serving_default(%x: float32[1 3]) -> (out:0) {
  %b = Const : float32[3] {0.5, -1, 2}
  %call/r = tfl.RELU(%x) {v1} : float32[1 3]
  %call/s = tfl.ADD(%call/r, %call/r) {v1} : float32[1 3]
  %out = tfl.ADD(%call/s, %b) {v1} : float32[1 3]
  return %out
}
`
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}

	b.Reset()
	opts.PrintIRAfter = []string{"all"}
	if _, err := Convert("testdata/double_relu.pbtxt", opts); err != nil {
		t.Fatal(err)
	}
	first := b.String()
	var headers []string
	for _, m := range regexp.MustCompile(`(?m)^// -----// IR after (.*) //----- //$`).FindAllStringSubmatch(first, -1) {
		headers = append(headers, m[1])
	}
	wantHeaders := []string{"functionalize-tf1-loops: nothing to do, unchanged", "mark-state: nothing to do, unchanged",
		"simplify (inline round 1)", "inline-call (inline round 1)", "simplify (inline round 2)", "inline",
		"check-deep-cut: nothing to do, unchanged", "lower-state: nothing to do, unchanged",
		"check-state-writes: nothing to do, unchanged", "legalize", "optimize", "pair-bidirectional: nothing to do, unchanged",
		"share-constants: nothing to do, unchanged", "quantize: nothing to do, unchanged"}
	if strings.Join(headers, "\n") != strings.Join(wantHeaders, "\n") {
		t.Errorf("headers\n%s\nwant\n%s", strings.Join(headers, "\n"), strings.Join(wantHeaders, "\n"))
	}
	b.Reset()
	if _, err := Convert("testdata/double_relu.pbtxt", opts); err != nil {
		t.Fatal(err)
	}
	if b.String() != first {
		t.Error("the printed IR differs between two conversions")
	}
}
