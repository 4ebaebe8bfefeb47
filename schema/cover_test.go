package schema

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// genField is what the generated code says about one field of a table.
type genField struct {
	slot  int
	kind  fieldKind
	size  int    // scalar size or vector element size
	ref   string // table type of a table / table-vector field; union type
	camel string // Go name of the accessor
}

// prependSizes maps the builder's PrependXSlot methods to scalar sizes.
var prependSizes = map[string]int{
	"PrependBoolSlot": 1, "PrependByteSlot": 1, "PrependUint8Slot": 1, "PrependInt8Slot": 1,
	"PrependInt16Slot": 2, "PrependUint16Slot": 2,
	"PrependInt32Slot": 4, "PrependUint32Slot": 4, "PrependFloat32Slot": 4,
	"PrependInt64Slot": 8, "PrependUint64Slot": 8, "PrependFloat64Slot": 8,
}

// parseGenerated reads schema_generated.go and returns, per table type, its
// fields keyed by accessor name, plus each table's slot count.
func parseGenerated(t *testing.T) (map[string]map[string]*genField, map[string]int) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "schema_generated.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]map[string]*genField{}
	slots := map[string]int{}
	type method struct {
		recv string
		fn   *ast.FuncDecl
	}
	var methods []method
	var addFuncs, vecFuncs []*ast.FuncDecl
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil {
			if st, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				methods = append(methods, method{st.X.(*ast.Ident).Name, fn})
			}
			continue
		}
		switch {
		case strings.HasSuffix(name, "Start") && len(fn.Type.Params.List) == 1:
			call := firstCall(fn)
			if call != nil && callName(call) == "StartObject" {
				slots[strings.TrimSuffix(name, "Start")] = intArg(t, call, 0)
			}
		case strings.Contains(name, "Add"):
			addFuncs = append(addFuncs, fn)
		case strings.Contains(name, "Start") && strings.HasSuffix(name, "Vector"):
			vecFuncs = append(vecFuncs, fn)
		}
	}
	for tbl := range slots {
		tables[tbl] = map[string]*genField{}
	}
	// XAddFoo(builder, v) { builder.PrependKindSlot(slot, v, default) }
	for _, fn := range addFuncs {
		tbl, field, ok := splitName(fn.Name.Name, "Add", slots)
		if !ok {
			continue
		}
		call := firstCall(fn)
		if call == nil {
			t.Fatalf("%s: no builder call", fn.Name.Name)
		}
		g := &genField{slot: intArg(t, call, 0), camel: field}
		if m := callName(call); m == "PrependUOffsetTSlot" {
			g.kind = tableField // refined below from the accessor
		} else if size, ok := prependSizes[m]; ok {
			g.kind, g.size = scalarField, size
		} else {
			t.Fatalf("%s: unknown builder call %s", fn.Name.Name, m)
		}
		tables[tbl][field] = g
	}
	// XStartFooVector(builder, n) { return builder.StartVector(elemSize, n, align) }
	vecSize := map[string]int{}
	for _, fn := range vecFuncs {
		tbl, field, ok := splitName(strings.TrimSuffix(fn.Name.Name, "Vector"), "Start", slots)
		if !ok {
			continue
		}
		vecSize[tbl+"."+field] = intArg(t, firstCall(fn), 0)
	}
	// Accessors tell what an offset field points to.
	for _, m := range methods {
		fields, ok := tables[m.recv]
		if !ok {
			continue
		}
		g, ok := fields[m.fn.Name.Name]
		if !ok || g.kind == scalarField {
			continue
		}
		params := m.fn.Type.Params.List
		var results []ast.Expr
		if m.fn.Type.Results != nil {
			for _, r := range m.fn.Type.Results.List {
				results = append(results, r.Type)
			}
		}
		switch {
		case len(params) == 0 && len(results) == 1 && exprString(results[0]) == "[]byte":
			g.kind = stringField
		case len(params) == 1 && exprString(params[0].Type) == "*flatbuffers.Table":
			g.kind = unionField
			typ := fields[m.fn.Name.Name+"Type"]
			if typ == nil || typ.slot != g.slot-1 || typ.size != 1 {
				t.Fatalf("%s.%s: union without a 1-byte type field in the slot before", m.recv, g.camel)
			}
			g.slot = typ.slot
			delete(fields, m.fn.Name.Name+"Type")
			for _, m2 := range methods {
				if m2.recv == m.recv && m2.fn.Name.Name == m.fn.Name.Name+"Type" {
					g.ref = exprString(m2.fn.Type.Results.List[0].Type)
				}
			}
		case len(params) == 1 && len(params[0].Names) == 1 && params[0].Names[0].Name == "obj":
			g.kind = tableField
			g.ref = strings.TrimPrefix(exprString(params[0].Type), "*")
		case len(params) == 2 && params[0].Names[0].Name == "obj":
			g.kind = tablesField
			g.ref = strings.TrimPrefix(exprString(params[0].Type), "*")
		case len(params) == 1 && params[0].Names[0].Name == "j":
			g.kind = vectorField
			size, ok := vecSize[m.recv+"."+g.camel]
			if !ok {
				t.Fatalf("%s.%s: vector without a Start...Vector function", m.recv, g.camel)
			}
			g.size = size
		}
	}
	return tables, slots
}

func firstCall(fn *ast.FuncDecl) *ast.CallExpr {
	var call *ast.CallExpr
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && call == nil {
			if _, ok := c.Fun.(*ast.SelectorExpr); ok {
				call = c
				return false
			}
		}
		return call == nil
	})
	return call
}

func callName(c *ast.CallExpr) string { return c.Fun.(*ast.SelectorExpr).Sel.Name }

func intArg(t *testing.T, c *ast.CallExpr, i int) int {
	lit, ok := c.Args[i].(*ast.BasicLit)
	if !ok {
		t.Fatalf("call %s: argument %d is not a literal", callName(c), i)
	}
	n, err := strconv.Atoi(lit.Value)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// splitName splits "TensorAddShape" into ("Tensor", "Shape") using the
// known table names (longest match, since table names can prefix others).
func splitName(name, verb string, tables map[string]int) (string, string, bool) {
	best := ""
	for tbl := range tables {
		if strings.HasPrefix(name, tbl+verb) && len(tbl) > len(best) {
			best = tbl
		}
	}
	if best == "" {
		return "", "", false
	}
	return best, strings.TrimPrefix(name, best+verb), true
}

func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.ArrayType:
		return "[]" + exprString(x.Elt)
	}
	return fmt.Sprintf("%T", e)
}

// camel converts a schema field name to flatc's Go accessor name.
func camel(snake string) string {
	var sb strings.Builder
	for _, part := range strings.Split(snake, "_") {
		if part != "" {
			sb.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return sb.String()
}

// allDescs collects every table descriptor reachable from modelDesc.
func allDescs() map[string]*tableDesc {
	out := map[string]*tableDesc{}
	var visit func(*tableDesc)
	visit = func(t *tableDesc) {
		if _, seen := out[t.name]; seen {
			return
		}
		out[t.name] = t
		for _, f := range t.fields {
			if f.table != nil {
				visit(f.table)
			}
			if f.union != nil {
				for _, m := range f.union.members {
					visit(m)
				}
			}
		}
	}
	visit(modelDesc)
	return out
}

// TestVerifierCoversSchema checks the verifier's descriptors against the
// generated code: every table of schema.fbs has a descriptor reachable from
// Model, and every field the generated code can read is described with the
// same slot, kind, size and target type. A field missing here would be read
// unverified, so this is what backs VerifyModel's no-panic promise.
func TestVerifierCoversSchema(t *testing.T) {
	gen, _ := parseGenerated(t)
	descs := allDescs()
	var names []string
	for n := range gen {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(gen) < 150 {
		t.Fatalf("parsed only %d tables from schema_generated.go", len(gen))
	}
	for _, tbl := range names {
		d, ok := descs[tbl]
		if !ok {
			t.Errorf("table %s has no verifier descriptor reachable from Model", tbl)
			continue
		}
		described := map[string]bool{}
		for _, f := range d.fields {
			c := camel(f.name)
			described[c] = true
			g, ok := gen[tbl][c]
			if !ok {
				t.Errorf("%s.%s: described but not in the generated code", tbl, f.name)
				continue
			}
			want := genField{slot: f.slot, kind: f.kind, camel: c}
			switch f.kind {
			case scalarField, vectorField:
				want.size = f.size
			case tableField, tablesField:
				want.ref = f.table.name
			case unionField:
				want.ref = f.union.name
			}
			if *g != want {
				t.Errorf("%s.%s: descriptor %+v, generated code %+v", tbl, f.name, want, *g)
			}
		}
		for c := range gen[tbl] {
			if !described[c] {
				t.Errorf("%s.%s: readable through the generated code but not verified", tbl, c)
			}
		}
	}
	for n := range descs {
		if _, ok := gen[n]; !ok {
			t.Errorf("descriptor %s has no generated table", n)
		}
	}
}

// TestUnionDescriptorsMatchGenerated checks union member order (= type
// numbers) of the descriptors against the generated enums.
func TestUnionDescriptorsMatchGenerated(t *testing.T) {
	check := func(u *unionDesc, names map[int]string) {
		if len(u.members) != len(names)-1 {
			t.Errorf("%s: %d members described, generated enum has %d", u.name, len(u.members), len(names)-1)
		}
		for i, m := range u.members {
			if names[i+1] != m.name {
				t.Errorf("%s type %d: described as %s, generated as %s", u.name, i+1, m.name, names[i+1])
			}
		}
	}
	toMap := func(n int, name func(int) string) map[int]string {
		m := map[int]string{}
		for i := 0; i < n; i++ {
			m[i] = name(i)
		}
		return m
	}
	check(builtinOptionsDesc, toMap(len(EnumNamesBuiltinOptions), func(i int) string {
		return EnumNamesBuiltinOptions[BuiltinOptions(i)]
	}))
	check(builtinOptions2Desc, toMap(len(EnumNamesBuiltinOptions2), func(i int) string {
		return EnumNamesBuiltinOptions2[BuiltinOptions2(i)]
	}))
	check(quantizationDetailsDesc, toMap(len(EnumNamesQuantizationDetails), func(i int) string {
		return EnumNamesQuantizationDetails[QuantizationDetails(i)]
	}))
	check(sparseIndexVectorDesc, toMap(len(EnumNamesSparseIndexVector), func(i int) string {
		return EnumNamesSparseIndexVector[SparseIndexVector(i)]
	}))
}
