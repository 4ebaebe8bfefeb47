package ir

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// Print writes f as text, for reading and for comparing the IR between
// passes (tflrun convert --print-ir-after). The form is compact and
// deterministic, in the spirit of MLIR's generic printer:
//
//	func serving_default(%x: float32[1 5]) -> (output_0) {
//	  %w = Const : float32[64 5] {0.1031, -0.2217, 0.05078, 0.1466, …}
//	  %mm = MatMul(%x, %w) {T: float32, transpose_b: true} : float32[1 64]
//	  %fc = tfl.FULLY_CONNECTED(%x, %w, -) {v1, KeepNumDims: true} : float32[1 64]
//	  return %fc
//	}
//
// Nodes appear in f.Nodes order (Print does not sort or change f). Each
// line gives the outputs, the op (a TensorFlow op, or tfl.NAME for a
// TFLite operator), the inputs ("-" for an omitted optional input), the
// attributes and the output types. TensorFlow attributes are sorted by
// name; internal ones (a leading underscore, such as _output_shapes),
// empty strings and empty lists are left out and long values shortened.
// A TFLite operator shows its version and the options fields that are not
// zero. A known constant value is summarised by its first elements, a
// resolved variable by its name, a quantised tensor by its parameters.
// Errors are w's.
func (f *Function) Print(w io.Writer) error {
	b := bufio.NewWriter(w)
	params := make([]string, len(f.Params))
	for i, p := range f.Params {
		params[i] = valueRef(p) + ": " + valueType(p)
	}
	fmt.Fprintf(b, "func %s(%s) -> (%s) {\n", f.Name, strings.Join(params, ", "), strings.Join(f.ResultNames, ", "))
	for _, n := range f.Nodes {
		b.WriteString("  ")
		if len(n.Outputs) > 0 {
			outs := make([]string, len(n.Outputs))
			for i, o := range n.Outputs {
				outs[i] = valueRef(o)
			}
			b.WriteString(strings.Join(outs, ", "))
			b.WriteString(" = ")
		}
		b.WriteString(n.OpName())
		if len(n.Inputs) > 0 {
			ins := make([]string, len(n.Inputs))
			for i, in := range n.Inputs {
				ins[i] = valueRef(in)
			}
			b.WriteString("(" + strings.Join(ins, ", ") + ")")
		}
		if a := nodeAttrs(n); a != "" {
			b.WriteString(" {" + a + "}")
		}
		if len(n.Outputs) > 0 {
			types := make([]string, len(n.Outputs))
			for i, o := range n.Outputs {
				types[i] = valueType(o)
			}
			b.WriteString(" : " + strings.Join(types, ", "))
		}
		b.WriteByte('\n')
	}
	res := make([]string, len(f.Results))
	for i, r := range f.Results {
		res[i] = valueRef(r)
	}
	fmt.Fprintf(b, "  return %s\n}\n", strings.Join(res, ", "))
	return b.Flush()
}

// plainName matches value names printed without quotes.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_./:-]+$`)

// valueRef is "%name" ("%"+quoted name when it holds other characters),
// "-" for an omitted input.
func valueRef(v *Value) string {
	if v == nil {
		return "-"
	}
	if plainName.MatchString(v.Name) {
		return "%" + v.Name
	}
	return "%" + strconv.Quote(v.Name)
}

// valueType is "dtype[shape]" followed by what else is known of the
// value: its constant value, variable, quantisation.
func valueType(v *Value) string {
	s := v.DType.String() + v.Shape.String()
	if v.Const != nil {
		s += " " + tensorSummary(v.Const, false)
	}
	if v.Variable != nil {
		s += fmt.Sprintf(" var %q", v.Variable.Name)
		if v.Variable.State {
			s += " (state)"
		}
	}
	if v.IsVariableTensor {
		s += " variable-tensor"
	}
	if q := v.Quant; q != nil {
		if len(q.Scale) == 1 && len(q.ZeroPoint) <= 1 {
			zp := int64(0)
			if len(q.ZeroPoint) == 1 {
				zp = q.ZeroPoint[0]
			}
			s += fmt.Sprintf(" q(scale %s, zero point %d)", shortFloat(float64(q.Scale[0])), zp)
		} else {
			s += fmt.Sprintf(" q(%d scales along dimension %d)", len(q.Scale), q.Dim)
		}
	}
	return s
}

// summaryElements is how many elements a tensor summary shows.
const summaryElements = 4

// tensorSummary shows the first elements of t ("{1, 2, 3, …}"), with
// its type and shape when withType is set.
func tensorSummary(t *Tensor, withType bool) string {
	prefix := ""
	if withType {
		prefix = t.DType.String() + t.Shape.String() + " "
	}
	n := t.NumElements()
	k := min(n, summaryElements)
	vals := make([]string, 0, k+1)
	switch {
	case t.DType == String:
		for i := 0; i < k && i < len(t.Strings); i++ {
			vals = append(vals, shortString(string(t.Strings[i])))
		}
	case t.DType.IsFloat() || t.DType == Float64:
		f := t.Float64s()
		for i := 0; i < k && i < len(f); i++ {
			vals = append(vals, shortFloat(f[i]))
		}
	case t.DType.IsInteger() || t.DType == Bool:
		v := t.Int64s()
		for i := 0; i < k && i < len(v); i++ {
			if t.DType == Bool {
				vals = append(vals, strconv.FormatBool(v[i] != 0))
			} else {
				vals = append(vals, strconv.FormatInt(v[i], 10))
			}
		}
	default:
		return prefix + fmt.Sprintf("{%d bytes}", len(t.Data))
	}
	if n > k {
		vals = append(vals, "…")
	}
	return prefix + "{" + strings.Join(vals, ", ") + "}"
}

// shortFloat prints a float with four significant digits.
func shortFloat(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// shortString quotes s, cut after 32 bytes.
func shortString(s string) string {
	const limit = 32
	if len(s) > limit {
		return strconv.Quote(s[:limit]) + "…"
	}
	return strconv.Quote(s)
}

// nodeAttrs formats a node's attributes: a TensorFlow node's (sorted,
// internal ones left out) or a TFLite operator's version and options.
func nodeAttrs(n *Node) string {
	if n.TFL != nil {
		parts := []string{fmt.Sprintf("v%d", n.TFL.Version)}
		if n.TFL.Options != nil {
			parts = append(parts, optionFields(n.TFL.Options.Value)...)
		}
		if n.TFL.Options2 != nil {
			parts = append(parts, optionFields(n.TFL.Options2.Value)...)
		}
		if len(n.TFL.CustomOptions) > 0 {
			parts = append(parts, fmt.Sprintf("custom options: %d bytes", len(n.TFL.CustomOptions)))
		}
		if len(n.TFL.Intermediates) > 0 {
			parts = append(parts, fmt.Sprintf("intermediates: %d", len(n.TFL.Intermediates)))
		}
		return strings.Join(parts, ", ")
	}
	if n.Op == "Const" && len(n.Outputs) == 1 && n.Outputs[0].Const != nil {
		return "" // the value and type follow with the output
	}
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		if !strings.HasPrefix(k, "_") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if t := attrText(n.Attrs[k]); t != `""` && t != "[]" {
			parts = append(parts, k+": "+t)
		}
	}
	return strings.Join(parts, ", ")
}

// optionFields lists the non-zero fields of an options table
// ("KeepNumDims: true").
func optionFields(opts any) []string {
	v := reflect.ValueOf(opts)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return []string{fmt.Sprint(opts)}
	}
	var parts []string
	for i := 0; i < v.NumField(); i++ {
		fv, ft := v.Field(i), v.Type().Field(i)
		if !ft.IsExported() || fv.IsZero() {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %v", ft.Name, fv.Interface()))
	}
	return parts
}

// listElements is how many elements of a list attribute are shown.
const listElements = 6

// attrText formats an attribute value briefly.
func attrText(a *tfpb.AttrValue) string {
	switch v := a.GetValue().(type) {
	case *tfpb.AttrValue_S:
		return shortString(string(v.S))
	case *tfpb.AttrValue_I:
		return strconv.FormatInt(v.I, 10)
	case *tfpb.AttrValue_F:
		return shortFloat(float64(v.F))
	case *tfpb.AttrValue_B:
		return strconv.FormatBool(v.B)
	case *tfpb.AttrValue_Type:
		return typeText(v.Type)
	case *tfpb.AttrValue_Shape:
		return shapeText(v.Shape)
	case *tfpb.AttrValue_Tensor:
		t, err := FromProto(v.Tensor)
		if err != nil {
			return "tensor(malformed)"
		}
		return tensorSummary(t, true)
	case *tfpb.AttrValue_Func:
		return "@" + v.Func.GetName()
	case *tfpb.AttrValue_Placeholder:
		return "$" + v.Placeholder
	case *tfpb.AttrValue_List:
		l := v.List
		var items []string
		for _, s := range l.S {
			items = append(items, shortString(string(s)))
		}
		for _, i := range l.I {
			items = append(items, strconv.FormatInt(i, 10))
		}
		for _, f := range l.F {
			items = append(items, shortFloat(float64(f)))
		}
		for _, b := range l.B {
			items = append(items, strconv.FormatBool(b))
		}
		for _, t := range l.Type {
			items = append(items, typeText(t))
		}
		for _, s := range l.Shape {
			items = append(items, shapeText(s))
		}
		for range l.Tensor {
			items = append(items, "tensor")
		}
		for _, f := range l.Func {
			items = append(items, "@"+f.GetName())
		}
		if len(items) > listElements {
			items = append(items[:listElements], fmt.Sprintf("… (%d)", len(items)))
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return "none"
}

func typeText(t tfpb.DataType) string {
	if dt, err := FromTF(t); err == nil {
		return dt.String()
	}
	return strings.ToLower(strings.TrimPrefix(t.String(), "DT_"))
}

func shapeText(p *tfpb.TensorShapeProto) string {
	s, err := ShapeFromTF(p)
	if err != nil {
		return "shape(malformed)"
	}
	return s.String()
}
