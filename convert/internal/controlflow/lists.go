package controlflow

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// tlist is a TensorList (or one version of a TensorArray) known at
// conversion time: its element type, element shape as far as known, and
// one value per item (nil: never written).
type tlist struct {
	dtype ir.DType
	elem  ir.Shape
	items []*ir.Value
}

func (l *tlist) clone() *tlist {
	return &tlist{dtype: l.dtype, elem: l.elem, items: append([]*ir.Value(nil), l.items...)}
}

// lctx is the state of one resolution pass over a function.
type lctx struct {
	f *ir.Function
	n *ir.Node
	// lists maps TensorList handles (variant values) and TensorArray
	// flows to their contents.
	lists   map[*ir.Value]*tlist
	changed bool
}

type listHandler func(c *lctx) error

var listHandlers = map[string]listHandler{
	"TensorListReserve":      tlReserve,
	"TensorListFromTensor":   tlFromTensor,
	"TensorListGetItem":      tlGetItem,
	"TensorListSetItem":      tlSetItem,
	"TensorListStack":        tlStack,
	"TensorListLength":       tlLength,
	"TensorListElementShape": tlElementShape,
	"TensorListPushBack":     tlPushBack,
	"TensorListPopBack":      tlPopBack,
	"TensorListGather":       tlGather,
	"TensorArrayV3":          taNew,
	"TensorArrayScatterV3":   taScatter,
	"TensorArrayWriteV3":     taWrite,
	"TensorArrayReadV3":      taRead,
	"TensorArrayGatherV3":    taGather,
	"TensorArraySizeV3":      taSize,
}

// IsListOp reports whether op is a TensorList or TensorArray op this
// package resolves.
func IsListOp(op string) bool {
	_, ok := listHandlers[op]
	return ok
}

// resolveLists rewrites every list read of f into the item it reads.
// With strict false, ops on lists it cannot follow (yet: a loop not
// unrolled produces them) are skipped; with strict true they are errors.
func resolveLists(f *ir.Function, strict bool) (bool, error) {
	has := false
	f.Budget.AddWork(len(f.Nodes))
	for _, n := range f.Nodes {
		if n.TFL == nil && listHandlers[n.Op] != nil {
			has = true
			break
		}
	}
	if !has {
		return false, nil
	}
	if err := f.TopoSort(); err != nil {
		return false, err
	}
	defer f.TrackUses()()
	c := &lctx{f: f, lists: map[*ir.Value]*tlist{}}
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		h := listHandlers[n.Op]
		if n.TFL != nil || h == nil {
			continue
		}
		c.n = n
		if err := h(c); err != nil {
			if !strict {
				// Before every loop is unrolled, a list may still be
				// made or indexed by values a loop will fold; the final
				// strict pass reports what remains.
				continue
			}
			return false, n.Wrap(err)
		}
	}
	return c.changed, nil
}

// in returns input i, failing when it is missing.
func (c *lctx) in(i int) (*ir.Value, error) {
	if i >= len(c.n.Inputs) || c.n.Inputs[i] == nil {
		return nil, fmt.Errorf("input %d is missing", i)
	}
	return c.n.Inputs[i], nil
}

// out returns output i, failing when the node has fewer.
func (c *lctx) out(i int) (*ir.Value, error) {
	if i >= len(c.n.Outputs) {
		return nil, fmt.Errorf("has %d outputs, expected at least %d", len(c.n.Outputs), i+1)
	}
	return c.n.Outputs[i], nil
}

// list returns the list input i stands for.
func (c *lctx) list(i int) (*tlist, error) {
	v, err := c.in(i)
	if err != nil {
		return nil, err
	}
	l, ok := c.lists[v]
	if !ok {
		what := "a function input"
		if v.Producer != nil {
			what = v.Producer.String()
		}
		return nil, fmt.Errorf("list %q comes from %s, which tflrun cannot follow at conversion time (lists must be made by TensorListReserve/TensorListFromTensor/TensorArrayV3 with a static size)", v.Name, what)
	}
	return l, nil
}

// constIndex returns input i as a constant integer scalar.
func (c *lctx) constIndex(i int, what string) (int, error) {
	v, err := c.in(i)
	if err != nil {
		return 0, err
	}
	if v.Const == nil || !v.Const.DType.IsInteger() || v.Const.NumElements() != 1 {
		return 0, fmt.Errorf("%s (input %d, %q) is not a constant integer scalar at conversion time; tflrun resolves lists only with static indices", what, i, v.Name)
	}
	return int(v.Const.Int64s()[0]), nil
}

// constIndices returns input i as a constant integer vector.
func (c *lctx) constIndices(i int, what string) ([]int, error) {
	v, err := c.in(i)
	if err != nil {
		return nil, err
	}
	if v.Const == nil || !v.Const.DType.IsInteger() || v.Const.Shape.Rank() > 1 {
		return nil, fmt.Errorf("%s (input %d, %q) is not a constant integer vector at conversion time", what, i, v.Name)
	}
	if v.Const.NumElements() > c.maxLength() {
		return nil, fmt.Errorf("%s has %d entries, more than %d (%s)", what, v.Const.NumElements(), c.maxLength(), c.f.Budget.Name("MaxListLength"))
	}
	return v.Const.Ints(), nil
}

// shapeInput reads an element_shape input: a constant integer vector with
// -1 for unknown dimensions, or a scalar -1 for an unknown rank. A
// missing or non-constant input means unknown.
func (c *lctx) shapeInput(i int) ir.Shape {
	if i >= len(c.n.Inputs) || c.n.Inputs[i] == nil || c.n.Inputs[i].Const == nil {
		return nil
	}
	t := c.n.Inputs[i].Const
	if !t.DType.IsInteger() || t.Shape.Rank() != 1 {
		return nil
	}
	s := make(ir.Shape, 0, t.NumElements())
	for _, d := range t.Int64s() {
		if d < -1 || d > 1<<31 {
			return nil
		}
		s = append(s, int(d))
	}
	return s
}

// dtypeAttr reads the element type attribute (Invalid when absent).
func (c *lctx) dtypeAttr(name string) (ir.DType, error) {
	return c.n.AttrTypeOr(name, ir.Invalid)
}

// replace makes the users of output i use v. It counts as a change only
// when output i had a user (or was a result) and v is another value: a
// list op whose value output nobody reads (a TensorListPopBack kept only
// for its list output, say) stays in the graph, and claiming a change
// for it each time would keep the inline loop going round for ever.
func (c *lctx) replace(i int, v *ir.Value) error {
	o, err := c.out(i)
	if err != nil {
		return err
	}
	if o == v || (!c.f.HasUses(o) && !c.f.IsResult(o)) {
		return nil
	}
	if v.Shape == nil && o.Shape != nil {
		v.Shape = o.Shape.Clone()
	}
	c.f.ReplaceAllUses(o, v)
	c.changed = true
	return nil
}

// item returns item i of l, or zeros when it was never written (which
// needs a static element shape).
func (c *lctx) item(l *tlist, i int, shapeHint ir.Shape) (*ir.Value, error) {
	if i < 0 || i >= len(l.items) {
		return nil, fmt.Errorf("index %d is out of range for a list of %d items", i, len(l.items))
	}
	if v := l.items[i]; v != nil {
		return v, nil
	}
	s, ok := ir.Merge(l.elem, shapeHint)
	if !ok {
		s = l.elem
	}
	if !s.Static() || l.dtype == ir.Invalid || l.dtype.Size() == 0 {
		return nil, fmt.Errorf("item %d is read before it is written and the element type/shape (%s%s) is not static, so its zero value is unknown", i, l.dtype, s)
	}
	t, err := c.zeros(l.dtype, s)
	if err != nil {
		return nil, err
	}
	return c.f.NewConst(fmt.Sprintf("%s/zeros_%d", c.n.Name, i), t), nil
}

// zeros is an all-zero tensor, within the conversion's budget.
func (c *lctx) zeros(dt ir.DType, s ir.Shape) (*ir.Tensor, error) {
	b := c.f.Budget
	k, ok := s.NumElements()
	if !ok || int64(k) > b.Get().MaxTensorBytes/int64(dt.Size()) {
		return nil, fmt.Errorf("a zero tensor of shape %s is too large (%s)", s, b.Name("MaxTensorBytes"))
	}
	size := k * dt.Size()
	if err := b.Reserve(int64(size), func() string { return fmt.Sprintf("a zero item %s%s", dt, s) }); err != nil {
		return nil, err
	}
	return ir.NewTensor(dt, s, make([]byte, size))
}

// maxLength is the MaxListLength limit of the conversion.
func (c *lctx) maxLength() int { return c.f.Budget.Get().MaxListLength }

// unpack splits v along axis 0 into its items with an Unpack node.
func (c *lctx) unpack(v *ir.Value, dt ir.DType) ([]*ir.Value, error) {
	if v.Shape.Rank() < 1 || v.Shape[0] < 0 {
		return nil, fmt.Errorf("tensor %q has shape %s: its first dimension must be static to make a list of it", v.Name, v.Shape)
	}
	k := v.Shape[0]
	if k > c.maxLength() {
		return nil, fmt.Errorf("tensor %q would make a list of %d items, more than %d (%s)", v.Name, k, c.maxLength(), c.f.Budget.Name("MaxListLength"))
	}
	if dt == ir.Invalid {
		dt = v.DType
	}
	if k == 0 {
		return nil, nil
	}
	u := c.f.NewNode(c.n.Name+"/unstack", "Unpack", []*ir.Value{v}, k)
	u.InlinedFrom = c.n.InlinedFrom
	u.SetAttrInt("num", int64(k))
	u.SetAttrInt("axis", 0)
	u.SetAttrType("T", dt)
	for _, o := range u.Outputs {
		o.DType = dt
		if v.Shape != nil {
			o.Shape = v.Shape[1:].Clone()
		}
	}
	return u.Outputs, nil
}

// pack stacks items along a new axis 0 with a Pack node (zeros for
// items never written).
func (c *lctx) pack(l *tlist, idx []int, shapeHint ir.Shape) (*ir.Value, error) {
	if len(idx) == 0 {
		s := append(ir.Shape{0}, l.elem...)
		if !l.elem.Static() || l.dtype.Size() == 0 {
			return nil, fmt.Errorf("stacks an empty list whose element shape %s is not static", l.elem)
		}
		t, err := c.zeros(l.dtype, s)
		if err != nil {
			return nil, err
		}
		return c.f.NewConst(c.n.Name+"/empty", t), nil
	}
	var elemHint ir.Shape
	if shapeHint.Rank() > 0 {
		elemHint = shapeHint[1:]
	}
	items := make([]*ir.Value, len(idx))
	for j, i := range idx {
		v, err := c.item(l, i, elemHint)
		if err != nil {
			return nil, err
		}
		items[j] = v
	}
	p := c.f.NewNode(c.n.Name+"/stack", "Pack", items, 1)
	p.InlinedFrom = c.n.InlinedFrom
	p.SetAttrInt("N", int64(len(items)))
	p.SetAttrInt("axis", 0)
	dt := l.dtype
	if dt == ir.Invalid {
		dt = items[0].DType
	}
	p.SetAttrType("T", dt)
	o := p.Outputs[0]
	o.DType = dt
	if s := items[0].Shape; s != nil {
		o.Shape = append(ir.Shape{len(items)}, s...)
	}
	return o, nil
}

// newList records output i as a list with k unwritten items.
func (c *lctx) newList(out int, dt ir.DType, elem ir.Shape, k int) error {
	if k < 0 || k > c.maxLength() {
		return fmt.Errorf("list size %d is negative or more than %d (%s)", k, c.maxLength(), c.f.Budget.Name("MaxListLength"))
	}
	o, err := c.out(out)
	if err != nil {
		return err
	}
	c.lists[o] = &tlist{dtype: dt, elem: elem, items: make([]*ir.Value, k)}
	return nil
}

// setOut records output i as list l.
func (c *lctx) setOut(i int, l *tlist) error {
	o, err := c.out(i)
	if err != nil {
		return err
	}
	c.lists[o] = l
	return nil
}

// write stores v as item i of a copy of l, growing it when allowed.
func (c *lctx) write(l *tlist, i int, v *ir.Value, grow bool) (*tlist, error) {
	if i < 0 || (i >= len(l.items) && !grow) {
		return nil, fmt.Errorf("writes item %d of a list of %d items", i, len(l.items))
	}
	if i >= c.maxLength() {
		return nil, fmt.Errorf("writes item %d, past the limit of %d items (%s)", i, c.maxLength(), c.f.Budget.Name("MaxListLength"))
	}
	nl := l.clone()
	for len(nl.items) <= i {
		nl.items = append(nl.items, nil)
	}
	nl.items[i] = v
	if nl.dtype == ir.Invalid {
		nl.dtype = v.DType
	}
	return nl, nil
}

func tlReserve(c *lctx) error {
	k, err := c.constIndex(1, "num_elements")
	if err != nil {
		return err
	}
	dt, err := c.dtypeAttr("element_dtype")
	if err != nil {
		return err
	}
	return c.newList(0, dt, c.shapeInput(0), k)
}

func tlFromTensor(c *lctx) error {
	v, err := c.in(0)
	if err != nil {
		return err
	}
	dt, err := c.dtypeAttr("element_dtype")
	if err != nil {
		return err
	}
	items, err := c.unpack(v, dt)
	if err != nil {
		return err
	}
	var elem ir.Shape
	if v.Shape.Rank() > 0 {
		elem = v.Shape[1:].Clone()
	}
	if dt == ir.Invalid {
		dt = v.DType
	}
	return c.setOut(0, &tlist{dtype: dt, elem: elem, items: items})
}

func tlGetItem(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	i, err := c.constIndex(1, "index")
	if err != nil {
		return err
	}
	o, err := c.out(0)
	if err != nil {
		return err
	}
	hint, _ := ir.Merge(c.shapeInput(2), o.Shape)
	v, err := c.item(l, i, hint)
	if err != nil {
		return err
	}
	return c.replace(0, v)
}

func tlSetItem(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	i, err := c.constIndex(1, "index")
	if err != nil {
		return err
	}
	v, err := c.in(2)
	if err != nil {
		return err
	}
	grow, err := c.n.AttrBool("resize_if_index_out_of_bounds", false)
	if err != nil {
		return err
	}
	nl, err := c.write(l, i, v, grow)
	if err != nil {
		return err
	}
	return c.setOut(0, nl)
}

func tlStack(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	if want, err := c.n.AttrInt("num_elements", -1); err != nil {
		return err
	} else if want >= 0 && int(want) != len(l.items) {
		return fmt.Errorf("stacks a list of %d items, the op expects %d", len(l.items), want)
	}
	idx := make([]int, len(l.items))
	for i := range idx {
		idx[i] = i
	}
	o, err := c.out(0)
	if err != nil {
		return err
	}
	el := c.shapeInput(1)
	if s, ok := ir.Merge(l.elem, el); ok {
		l = &tlist{dtype: l.dtype, elem: s, items: l.items}
	}
	v, err := c.pack(l, idx, o.Shape)
	if err != nil {
		return err
	}
	return c.replace(0, v)
}

func tlGather(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	idx, err := c.constIndices(1, "indices")
	if err != nil {
		return err
	}
	o, err := c.out(0)
	if err != nil {
		return err
	}
	v, err := c.pack(l, idx, o.Shape)
	if err != nil {
		return err
	}
	return c.replace(0, v)
}

func tlLength(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	return c.replace(0, c.f.NewConst(c.n.Name, ir.FromInt32s(ir.Scalar(), []int32{int32(len(l.items))})))
}

func tlElementShape(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	if !l.elem.Static() {
		return nil // left for legalisation to report
	}
	dt, err := c.n.AttrTypeOr("shape_type", ir.Int32)
	if err != nil {
		return err
	}
	t, err := ir.FromInts(dt, ir.Shape{len(l.elem)}, l.elem)
	if err != nil {
		return err
	}
	return c.replace(0, c.f.NewConst(c.n.Name, t))
}

func tlPushBack(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	v, err := c.in(1)
	if err != nil {
		return err
	}
	nl, err := c.write(l, len(l.items), v, true)
	if err != nil {
		return err
	}
	return c.setOut(0, nl)
}

func tlPopBack(c *lctx) error {
	l, err := c.list(0)
	if err != nil {
		return err
	}
	if len(l.items) == 0 {
		return fmt.Errorf("pops from an empty list")
	}
	o, err := c.out(1)
	if err != nil {
		return err
	}
	v, err := c.item(l, len(l.items)-1, o.Shape)
	if err != nil {
		return err
	}
	nl := l.clone()
	nl.items = nl.items[:len(nl.items)-1]
	if err := c.setOut(0, nl); err != nil {
		return err
	}
	return c.replace(1, v)
}

// TensorArrayV3 ops thread a "flow" scalar through every write; the
// flow value identifies the array's contents at that point, so the
// arrays are tracked by flow rather than by handle.

func taNew(c *lctx) error {
	k, err := c.constIndex(0, "size")
	if err != nil {
		return err
	}
	dt, err := c.dtypeAttr("dtype")
	if err != nil {
		return err
	}
	elem, _, err := c.n.AttrShape("element_shape")
	if err != nil {
		return err
	}
	return c.newList(1, dt, elem, k)
}

func taScatter(c *lctx) error {
	l, err := c.list(3)
	if err != nil {
		return err
	}
	idx, err := c.constIndices(1, "indices")
	if err != nil {
		return err
	}
	v, err := c.in(2)
	if err != nil {
		return err
	}
	if v.Shape.Rank() < 1 || v.Shape[0] != len(idx) {
		return fmt.Errorf("scatters %q of shape %s with %d indices", v.Name, v.Shape, len(idx))
	}
	items, err := c.unpack(v, l.dtype)
	if err != nil {
		return err
	}
	for j, i := range idx {
		if l, err = c.write(l, i, items[j], false); err != nil {
			return err
		}
	}
	return c.setOut(0, l)
}

func taWrite(c *lctx) error {
	l, err := c.list(3)
	if err != nil {
		return err
	}
	i, err := c.constIndex(1, "index")
	if err != nil {
		return err
	}
	v, err := c.in(2)
	if err != nil {
		return err
	}
	nl, err := c.write(l, i, v, false)
	if err != nil {
		return err
	}
	return c.setOut(0, nl)
}

func taRead(c *lctx) error {
	l, err := c.list(2)
	if err != nil {
		return err
	}
	i, err := c.constIndex(1, "index")
	if err != nil {
		return err
	}
	o, err := c.out(0)
	if err != nil {
		return err
	}
	v, err := c.item(l, i, o.Shape)
	if err != nil {
		return err
	}
	return c.replace(0, v)
}

func taGather(c *lctx) error {
	l, err := c.list(2)
	if err != nil {
		return err
	}
	idx, err := c.constIndices(1, "indices")
	if err != nil {
		return err
	}
	o, err := c.out(0)
	if err != nil {
		return err
	}
	v, err := c.pack(l, idx, o.Shape)
	if err != nil {
		return err
	}
	return c.replace(0, v)
}

func taSize(c *lctx) error {
	l, err := c.list(1)
	if err != nil {
		return err
	}
	return c.replace(0, c.f.NewConst(c.n.Name, ir.FromInt32s(ir.Scalar(), []int32{int32(len(l.items))})))
}

// attrFunc builds a func attribute naming fn.
func attrFunc(fn string) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: fn}}}
}
