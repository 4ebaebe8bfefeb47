package ir

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

var dtypeNames = map[string]tfpb.DataType{
	"float": tfpb.DataType_DT_FLOAT, "double": tfpb.DataType_DT_DOUBLE, "int32": tfpb.DataType_DT_INT32,
	"int64": tfpb.DataType_DT_INT64, "bool": tfpb.DataType_DT_BOOL, "string": tfpb.DataType_DT_STRING,
	"resource": tfpb.DataType_DT_RESOURCE, "variant": tfpb.DataType_DT_VARIANT, "complex64": tfpb.DataType_DT_COMPLEX64,
}

// builtinOpDef returns the OpDef of an op with a record (outputs and
// type attribute defaults only), or nil.
func builtinOpDef(op string) *tfpb.OpDef {
	r, ok := LookupOp(op)
	if !ok {
		return nil
	}
	return r.opDef
}

// ParseOutputs turns an OpRecord's Outputs spec into an OpDef holding
// the output arguments and the defaults of their type attributes. Errors
// name a malformed field or an unknown dtype; the OpDef returned with
// one keeps what could be read.
func ParseOutputs(op, spec string) (*tfpb.OpDef, error) {
	od := &tfpb.OpDef{Name: op}
	var err error
	fail := func(field, why string) {
		if err == nil {
			err = fmt.Errorf("op %s: output %q: %s", op, field, why)
		}
	}
	dtype := func(field, name string) tfpb.DataType {
		dt, ok := dtypeNames[name]
		if !ok {
			fail(field, fmt.Sprintf("unknown dtype %q", name))
		}
		return dt
	}
	for _, field := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(field, ":")
		if name == "" || typ == "" {
			fail(field, "is not name:TYPE")
		}
		arg := &tfpb.OpDef_ArgDef{Name: name}
		if t, num, ok := strings.Cut(typ, "*"); ok {
			arg.NumberAttr = num
			typ = t
		}
		switch {
		case strings.HasPrefix(typ, "["):
			if !strings.HasSuffix(typ, "]") || len(typ) < 3 {
				fail(field, "is not [listattr]")
			}
			arg.TypeListAttr = strings.Trim(typ, "[]")
		case strings.HasPrefix(typ, "="):
			arg.Type = dtype(field, typ[1:])
		default:
			attr, def, hasDef := strings.Cut(typ, "=")
			arg.TypeAttr = attr
			if hasDef {
				od.Attr = append(od.Attr, &tfpb.OpDef_AttrDef{Name: attr, Type: "type",
					DefaultValue: &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: dtype(field, def)}}})
			}
		}
		od.OutputArg = append(od.OutputArg, arg)
	}
	return od, err
}

// OpDef returns the definition of op: from the model's op list when it has
// one, else from the op's record (OpRecord.Outputs); nil when neither
// knows it.
func (m *Module) OpDef(op string) *tfpb.OpDef {
	if m != nil {
		if od, ok := m.OpDefs[op]; ok {
			return od
		}
	}
	return builtinOpDef(op)
}
