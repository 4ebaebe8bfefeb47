package ops_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// TestOpCodesMatchSchema checks every Op* constant of ops/registry.go
// against the schema's BuiltinOperator enum: the number must be the code
// of the operator the constant names (OpDepthToSpace = DEPTH_TO_SPACE), so
// a mistyped code cannot register a kernel under another operator. Names
// are compared with case and underscores ignored.
func TestOpCodesMatchSchema(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "registry.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	seen := map[int64]string{}
	n := 0
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Op") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.INT {
					t.Errorf("%s: value is not an integer literal", name.Name)
					continue
				}
				code, err := strconv.ParseInt(lit.Value, 0, 32)
				if err != nil {
					t.Fatal(err)
				}
				want, ok := schema.EnumNamesBuiltinOperator[schema.BuiltinOperator(code)]
				if !ok {
					t.Errorf("%s = %d: no such BuiltinOperator in the schema", name.Name, code)
					continue
				}
				if norm(strings.TrimPrefix(name.Name, "Op")) != norm(want) {
					t.Errorf("%s = %d, but code %d is %s", name.Name, code, code, want)
				}
				if prev, dup := seen[code]; dup {
					t.Errorf("%s and %s share code %d", prev, name.Name, code)
				}
				seen[code] = name.Name
				n++
			}
		}
	}
	if n < 50 {
		t.Fatalf("found only %d Op constants: is registry.go still where they live?", n)
	}
}
