package ir

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// The typed attribute getters below return a NodeError naming the node,
// its op, its function and the attribute when the attribute has the wrong
// kind (a string where an int is declared, ...) or a required one is
// missing. An attribute that is absent takes the given default: TensorFlow
// strips attributes equal to the op's default from saved graphs.

// AttrKind names the kind of value an AttrValue holds ("int",
// "list(int)", "placeholder", "empty").
func AttrKind(a *tfpb.AttrValue) string {
	switch v := a.GetValue().(type) {
	case *tfpb.AttrValue_S:
		return "string"
	case *tfpb.AttrValue_I:
		return "int"
	case *tfpb.AttrValue_F:
		return "float"
	case *tfpb.AttrValue_B:
		return "bool"
	case *tfpb.AttrValue_Type:
		return "type"
	case *tfpb.AttrValue_Shape:
		return "shape"
	case *tfpb.AttrValue_Tensor:
		return "tensor"
	case *tfpb.AttrValue_Func:
		return "func"
	case *tfpb.AttrValue_Placeholder:
		return "placeholder"
	case *tfpb.AttrValue_List:
		l := v.List
		switch {
		case len(l.S) > 0:
			return "list(string)"
		case len(l.I) > 0:
			return "list(int)"
		case len(l.F) > 0:
			return "list(float)"
		case len(l.B) > 0:
			return "list(bool)"
		case len(l.Type) > 0:
			return "list(type)"
		case len(l.Shape) > 0:
			return "list(shape)"
		case len(l.Tensor) > 0:
			return "list(tensor)"
		case len(l.Func) > 0:
			return "list(func)"
		}
		return "list()"
	}
	return "empty"
}

func (n *Node) wrongKind(name, want string, a *tfpb.AttrValue) error {
	return n.Errorf("attribute %q is a %s, want %s", name, AttrKind(a), want)
}

// HasAttr reports whether the attribute is present.
func (n *Node) HasAttr(name string) bool {
	_, ok := n.Attrs[name]
	return ok
}

// AttrInt returns an int attribute (def when absent).
func (n *Node) AttrInt(name string, def int64) (int64, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_I)
	if !ok {
		return 0, n.wrongKind(name, "int", a)
	}
	return v.I, nil
}

// AttrFloat returns a float attribute (def when absent).
func (n *Node) AttrFloat(name string, def float32) (float32, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_F)
	if !ok {
		return 0, n.wrongKind(name, "float", a)
	}
	return v.F, nil
}

// AttrBool returns a bool attribute (def when absent).
func (n *Node) AttrBool(name string, def bool) (bool, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_B)
	if !ok {
		return false, n.wrongKind(name, "bool", a)
	}
	return v.B, nil
}

// AttrString returns a string attribute (def when absent).
func (n *Node) AttrString(name, def string) (string, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_S)
	if !ok {
		return "", n.wrongKind(name, "string", a)
	}
	return string(v.S), nil
}

// AttrInts returns a list(int) attribute (def when absent). An empty list
// is a valid list(int).
func (n *Node) AttrInts(name string, def []int64) ([]int64, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_List)
	if !ok || (len(v.List.I) == 0 && AttrKind(a) != "list()") {
		return nil, n.wrongKind(name, "list(int)", a)
	}
	return v.List.I, nil
}

// AttrType returns a required type attribute.
func (n *Node) AttrType(name string) (DType, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return Invalid, n.Errorf("missing attribute %q", name)
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_Type)
	if !ok {
		return Invalid, n.wrongKind(name, "type", a)
	}
	dt, err := FromTF(v.Type)
	if err != nil {
		return Invalid, n.Errorf("attribute %q: %v", name, err)
	}
	return dt, nil
}

// AttrTypeOr returns a type attribute, or def when absent.
func (n *Node) AttrTypeOr(name string, def DType) (DType, error) {
	if !n.HasAttr(name) {
		return def, nil
	}
	return n.AttrType(name)
}

// AttrTypes returns a list(type) attribute (nil when absent).
func (n *Node) AttrTypes(name string) ([]DType, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return nil, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_List)
	if !ok || (len(v.List.Type) == 0 && AttrKind(a) != "list()") {
		return nil, n.wrongKind(name, "list(type)", a)
	}
	out := make([]DType, len(v.List.Type))
	for i, t := range v.List.Type {
		dt, err := FromTF(t)
		if err != nil {
			return nil, n.Errorf("attribute %q[%d]: %v", name, i, err)
		}
		out[i] = dt
	}
	return out, nil
}

// AttrShape returns a shape attribute; ok is false when absent.
func (n *Node) AttrShape(name string) (s Shape, ok bool, err error) {
	a, has := n.Attrs[name]
	if !has {
		return nil, false, nil
	}
	v, isShape := a.GetValue().(*tfpb.AttrValue_Shape)
	if !isShape {
		return nil, false, n.wrongKind(name, "shape", a)
	}
	s, err = ShapeFromTF(v.Shape)
	if err != nil {
		return nil, false, n.Wrap(fmt.Errorf("attribute %q: %w", name, err))
	}
	return s, true, nil
}

// AttrShapes returns a list(shape) attribute (nil when absent), such as
// the "_output_shapes" hint TensorFlow records on saved nodes.
func (n *Node) AttrShapes(name string) ([]Shape, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return nil, nil
	}
	v, isList := a.GetValue().(*tfpb.AttrValue_List)
	if !isList || (len(v.List.Shape) == 0 && AttrKind(a) != "list()") {
		return nil, n.wrongKind(name, "list(shape)", a)
	}
	out := make([]Shape, len(v.List.Shape))
	for i, p := range v.List.Shape {
		s, err := ShapeFromTF(p)
		if err != nil {
			return nil, n.Wrap(fmt.Errorf("attribute %q[%d]: %w", name, i, err))
		}
		out[i] = s
	}
	return out, nil
}

// AttrTensor returns a required tensor attribute, decoded within the
// Budget of n's function (DecodeTensor): a tensor above MaxTensorBytes, or
// one taking the conversion's constants past MaxConstantBytes, is an
// error naming the node and the limit.
func (n *Node) AttrTensor(name string) (*Tensor, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return nil, n.Errorf("missing attribute %q", name)
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_Tensor)
	if !ok {
		return nil, n.wrongKind(name, "tensor", a)
	}
	var b *Budget
	if n.Func != nil {
		b = n.Func.Budget
	}
	t, err := DecodeTensor(v.Tensor, b, nil)
	if err != nil {
		return nil, n.Wrap(fmt.Errorf("attribute %q: %w", name, err))
	}
	return t, nil
}

// AttrFunc returns the function name of a required func attribute.
func (n *Node) AttrFunc(name string) (string, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return "", n.Errorf("missing attribute %q", name)
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_Func)
	if !ok || v.Func == nil {
		return "", n.wrongKind(name, "func", a)
	}
	return v.Func.Name, nil
}

// SetAttrInt, SetAttrType, ... set attributes on nodes the converter
// builds.

// SetAttrInt sets an int attribute.
func (n *Node) SetAttrInt(name string, v int64) {
	n.Attrs[name] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: v}}
}

// SetAttrType sets a type attribute.
func (n *Node) SetAttrType(name string, dt DType) {
	n.Attrs[name] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: dt.TF()}}
}

// SetAttrInts sets a list(int) attribute.
func (n *Node) SetAttrInts(name string, v []int64) {
	n.Attrs[name] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{I: append([]int64(nil), v...)}}}
}

// SetAttrString sets a string attribute.
func (n *Node) SetAttrString(name, v string) {
	n.Attrs[name] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(v)}}
}
