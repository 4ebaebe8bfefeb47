package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

func init() {
	register(opDef{infer: inferPack, fold: foldPack}, "Pack")
	register(opDef{infer: inferUnpack, fold: foldUnpack}, "Unpack")
	register(opDef{infer: inferConcat, fold: foldConcat}, "ConcatV2", "Concat")
	register(opDef{infer: inferSplit, fold: foldSplit}, "Split", "SplitV")
	register(opDef{infer: inferTranspose, fold: foldTranspose}, "Transpose")
	register(opDef{infer: inferSlice, fold: foldSlice}, "Slice")
	register(opDef{infer: inferTile, fold: foldTile}, "Tile")
	register(opDef{infer: inferPad, fold: foldPad}, "Pad", "PadV2", "MirrorPad")
	register(opDef{infer: func(n *ir.Node) error {
		if err := needInputs(n, 1); err != nil {
			return err
		}
		setOut(n, 0, n.Inputs[0].DType, n.Inputs[0].Shape.Clone())
		return nil
	}, fold: foldReverse}, "ReverseV2")
	register(opDef{infer: inferGather, fold: foldGather}, "GatherV2", "Gather", "ResourceGather")
}

func inferPack(n *ir.Node) error {
	if len(n.Inputs) == 0 {
		return fmt.Errorf("Pack has no inputs")
	}
	var s ir.Shape
	for i, in := range n.Inputs {
		if in == nil {
			return fmt.Errorf("input %d is missing", i)
		}
		if i == 0 {
			s = in.Shape.Clone()
			continue
		}
		m, ok := ir.Merge(s, in.Shape)
		if !ok {
			return fmt.Errorf("Pack inputs have shapes %s and %s", s, in.Shape)
		}
		s = m
	}
	if s == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	axis, err := n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	a, err := normAxis(int(axis), len(s)+1)
	if err != nil {
		return err
	}
	out := append(append(append(ir.Shape{}, s[:a]...), len(n.Inputs)), s[a:]...)
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

// concatTensors joins tensors along axis (all of one type, shapes equal
// except on axis).
func concatTensors(ts []*ir.Tensor, axis int, out ir.Shape) *ir.Tensor {
	count, _ := out.NumElements()
	outer := 1
	for _, d := range out[:axis] {
		outer *= d
	}
	inner := 1
	for _, d := range out[axis+1:] {
		inner *= d
	}
	type piece struct{ t, rows int }
	var pieces []piece
	for i, t := range ts {
		pieces = append(pieces, piece{i, t.Shape[axis]})
	}
	// element i of out: (o, a, r) -> which tensor and where
	rowOwner := make([]int, out[axis])
	rowLocal := make([]int, out[axis])
	k := 0
	for _, p := range pieces {
		for r := 0; r < p.rows; r++ {
			rowOwner[k], rowLocal[k] = p.t, r
			k++
		}
	}
	res := &ir.Tensor{DType: ts[0].DType, Shape: out.Clone()}
	sz := ts[0].DType.Size()
	if res.DType == ir.String {
		res.Strings = make([][]byte, count)
	} else {
		res.Data = make([]byte, count*sz)
	}
	i := 0
	for o := 0; o < outer; o++ {
		for a := 0; a < out[axis]; a++ {
			t := ts[rowOwner[a]]
			base := (o*t.Shape[axis] + rowLocal[a]) * inner
			if res.DType == ir.String {
				copy(res.Strings[i:i+inner], t.Strings[base:base+inner])
			} else {
				copy(res.Data[i*sz:(i+inner)*sz], t.Data[base*sz:(base+inner)*sz])
			}
			i += inner
		}
	}
	return res
}

func foldPack(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	if !out.Static() {
		return nil, nil
	}
	axis, _ := n.AttrInt("axis", 0)
	a, err := normAxis(int(axis), len(out))
	if err != nil {
		return nil, err
	}
	ts := make([]*ir.Tensor, len(in))
	for i, t := range in {
		s := append(append(append(ir.Shape{}, t.Shape[:a]...), 1), t.Shape[a:]...)
		if ts[i], err = t.Reshaped(s); err != nil {
			return nil, err
		}
		if t.DType != in[0].DType {
			return nil, fmt.Errorf("Pack inputs have types %s and %s", in[0].DType, t.DType)
		}
	}
	return []*ir.Tensor{concatTensors(ts, a, out)}, nil
}

func inferUnpack(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	axis, err := n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	if s == nil {
		return nil
	}
	a, err := normAxis(int(axis), len(s))
	if err != nil {
		return err
	}
	if s[a] >= 0 && s[a] != len(n.Outputs) {
		return fmt.Errorf("Unpack of %d outputs along axis %d of %s", len(n.Outputs), axis, s)
	}
	out := append(append(ir.Shape{}, s[:a]...), s[a+1:]...)
	for i := range n.Outputs {
		setOut(n, i, n.Inputs[0].DType, out.Clone())
	}
	return nil
}

func foldUnpack(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	axis, _ := n.AttrInt("axis", 0)
	t := in[0]
	a, err := normAxis(int(axis), len(t.Shape))
	if err != nil {
		return nil, err
	}
	var outs []*ir.Tensor
	for i := range n.Outputs {
		begin := make([]int, len(t.Shape))
		size := t.Shape.Clone()
		begin[a], size[a] = i, 1
		s := sliceTensor(t, begin, size)
		r, err := s.Reshaped(n.Outputs[i].Shape)
		if err != nil {
			return nil, err
		}
		outs = append(outs, r)
	}
	return outs, nil
}

// sliceTensor extracts t[begin : begin+size] (all static, in range).
func sliceTensor(t *ir.Tensor, begin []int, size ir.Shape) *ir.Tensor {
	count, _ := size.NumElements()
	st := strides(t.Shape)
	return gather(t, size, count, func(i int) int {
		k := 0
		for d := len(size) - 1; d >= 0; d-- {
			c := i % max(size[d], 1)
			i /= max(size[d], 1)
			k += (begin[d] + c) * st[d]
		}
		return k
	})
}

func concatAxis(n *ir.Node) (axisInput int, values []*ir.Value) {
	if n.Op == "Concat" {
		return 0, n.Inputs[1:]
	}
	return len(n.Inputs) - 1, n.Inputs[:len(n.Inputs)-1]
}

func inferConcat(n *ir.Node) error {
	if len(n.Inputs) < 2 {
		return fmt.Errorf("%s needs at least 2 inputs", n.Op)
	}
	ai, vals := concatAxis(n)
	for i, v := range n.Inputs {
		if v == nil {
			return fmt.Errorf("input %d is missing", i)
		}
	}
	axes, ok := constInts(n, ai)
	var rank = -1
	for _, v := range vals {
		if v.Shape != nil {
			rank = len(v.Shape)
		}
	}
	if !ok || len(axes) != 1 || rank < 0 {
		setOut(n, 0, vals[0].DType, nil)
		return nil
	}
	a, err := normAxis(axes[0], rank)
	if err != nil {
		return err
	}
	out := make(ir.Shape, rank)
	for i := range out {
		out[i] = -1
	}
	out[a] = 0
	for _, v := range vals {
		if v.Shape == nil {
			out[a] = -1
			continue
		}
		if len(v.Shape) != rank {
			return fmt.Errorf("%s inputs have ranks %d and %d", n.Op, rank, len(v.Shape))
		}
		for d := range out {
			if d == a {
				if out[a] >= 0 && v.Shape[d] >= 0 {
					out[a] += v.Shape[d]
				} else {
					out[a] = -1
				}
				continue
			}
			if out[d] < 0 {
				out[d] = v.Shape[d]
			} else if v.Shape[d] >= 0 && v.Shape[d] != out[d] {
				return fmt.Errorf("%s inputs differ in dimension %d: %d and %d", n.Op, d, out[d], v.Shape[d])
			}
		}
	}
	setOut(n, 0, vals[0].DType, out)
	return nil
}

func foldConcat(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	if !out.Static() {
		return nil, nil
	}
	ai, _ := concatAxis(n)
	ax := in[ai].Ints()
	if len(ax) != 1 {
		return nil, fmt.Errorf("%s axis must be one value, got %v", n.Op, ax)
	}
	a, err := normAxis(ax[0], len(out))
	if err != nil {
		return nil, err
	}
	var ts []*ir.Tensor
	for i, t := range in {
		if i == ai {
			continue
		}
		if t.DType != n.Outputs[0].DType {
			return nil, fmt.Errorf("%s inputs have types %s and %s", n.Op, n.Outputs[0].DType, t.DType)
		}
		ts = append(ts, t)
	}
	return []*ir.Tensor{concatTensors(ts, a, out)}, nil
}

// splitSizes returns the axis and the size of each piece of Split/SplitV.
func splitSizes(n *ir.Node) (value *ir.Value, axis int, sizes []int, ok bool, err error) {
	var axisIn, valueIn int
	if n.Op == "Split" {
		axisIn, valueIn = 0, 1
	} else {
		axisIn, valueIn = 2, 0
	}
	if err := needInputs(n, map[string]int{"Split": 2, "SplitV": 3}[n.Op]); err != nil {
		return nil, 0, nil, false, err
	}
	value = n.Inputs[valueIn]
	s := value.Shape
	axes, known := constInts(n, axisIn)
	if !known || s == nil || len(axes) != 1 {
		return value, 0, nil, false, nil
	}
	if axis, err = normAxis(axes[0], len(s)); err != nil {
		return nil, 0, nil, false, err
	}
	k := len(n.Outputs)
	if n.Op == "Split" {
		if s[axis] < 0 {
			return value, axis, nil, false, nil
		}
		if k == 0 || s[axis]%k != 0 {
			return nil, 0, nil, false, fmt.Errorf("cannot split dimension %d of size %d into %d parts", axis, s[axis], k)
		}
		sizes = make([]int, k)
		for i := range sizes {
			sizes[i] = s[axis] / k
		}
		return value, axis, sizes, true, nil
	}
	sz, known := constInts(n, 1)
	if !known {
		return value, axis, nil, false, nil
	}
	if len(sz) != k {
		return nil, 0, nil, false, fmt.Errorf("SplitV has %d sizes for %d outputs", len(sz), k)
	}
	unknown, total := -1, 0
	for i, d := range sz {
		if d == -1 {
			if unknown >= 0 {
				return nil, 0, nil, false, fmt.Errorf("SplitV sizes %v have more than one -1", sz)
			}
			unknown = i
			continue
		}
		if d < 0 {
			return nil, 0, nil, false, fmt.Errorf("SplitV sizes %v have a negative size", sz)
		}
		total += d
	}
	if s[axis] < 0 {
		return value, axis, nil, false, nil
	}
	if unknown >= 0 {
		sz = append([]int(nil), sz...)
		sz[unknown] = s[axis] - total
		total = s[axis]
	}
	if total != s[axis] || (unknown >= 0 && sz[unknown] < 0) {
		return nil, 0, nil, false, fmt.Errorf("SplitV sizes %v do not add up to %d", sz, s[axis])
	}
	return value, axis, sz, true, nil
}

func inferSplit(n *ir.Node) error {
	value, axis, sizes, ok, err := splitSizes(n)
	if err != nil {
		return err
	}
	for i := range n.Outputs {
		var s ir.Shape
		if value.Shape != nil {
			s = value.Shape.Clone()
			if ok {
				s[axis] = sizes[i]
			} else if axes, known := constInts(n, map[string]int{"Split": 0, "SplitV": 2}[n.Op]); known && len(axes) == 1 {
				if a, err := normAxis(axes[0], len(s)); err == nil {
					s[a] = -1
				}
			} else {
				s = make(ir.Shape, len(s))
				for j := range s {
					s[j] = -1
				}
			}
		}
		setOut(n, i, value.DType, s)
	}
	return nil
}

func foldSplit(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	value, axis, sizes, ok, err := splitSizes(n)
	if err != nil || !ok {
		return nil, err
	}
	t := value.Const
	var outs []*ir.Tensor
	off := 0
	for _, sz := range sizes {
		begin := make([]int, len(t.Shape))
		size := t.Shape.Clone()
		begin[axis], size[axis] = off, sz
		outs = append(outs, sliceTensor(t, begin, size))
		off += sz
	}
	return outs, nil
}

func inferTranspose(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	perm, ok := constInts(n, 1)
	if !ok || s == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	if err := checkPerm(perm, len(s)); err != nil {
		return err
	}
	out := make(ir.Shape, len(s))
	for i, p := range perm {
		out[i] = s[p]
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func checkPerm(perm []int, rank int) error {
	if len(perm) != rank {
		return fmt.Errorf("permutation %v does not match rank %d", perm, rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			return fmt.Errorf("%v is not a permutation of 0..%d", perm, rank-1)
		}
		seen[p] = true
	}
	return nil
}

// Transpose permutes a constant tensor's axes (out axis i = in axis
// perm[i]).
func Transpose(t *ir.Tensor, perm []int) (*ir.Tensor, error) {
	if err := checkPerm(perm, len(t.Shape)); err != nil {
		return nil, err
	}
	out := make(ir.Shape, len(perm))
	for i, p := range perm {
		out[i] = t.Shape[p]
	}
	count, _ := out.NumElements()
	st := strides(t.Shape)
	return gather(t, out, count, func(i int) int {
		k := 0
		for d := len(out) - 1; d >= 0; d-- {
			c := i % max(out[d], 1)
			i /= max(out[d], 1)
			k += c * st[perm[d]]
		}
		return k
	}), nil
}

func foldTranspose(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	r, err := Transpose(in[0], in[1].Ints())
	return []*ir.Tensor{r}, err
}

func sliceArgs(n *ir.Node) (begin, size []int, ok bool, err error) {
	s := n.Inputs[0].Shape
	b, okb := constInts(n, 1)
	z, okz := constInts(n, 2)
	if !okb || !okz || !s.Static() {
		return nil, nil, false, nil
	}
	if len(b) != len(s) || len(z) != len(s) {
		return nil, nil, false, fmt.Errorf("Slice begin %v / size %v do not match rank %d", b, z, len(s))
	}
	size = make([]int, len(s))
	for i := range s {
		if z[i] == -1 {
			z[i] = s[i] - b[i]
		}
		if b[i] < 0 || z[i] < 0 || b[i]+z[i] > s[i] {
			return nil, nil, false, fmt.Errorf("Slice begin %v size %v is out of range for %s", b, z, s)
		}
		size[i] = z[i]
	}
	return b, size, true, nil
}

func inferSlice(n *ir.Node) error {
	if err := needInputs(n, 3); err != nil {
		return err
	}
	_, size, ok, err := sliceArgs(n)
	if err != nil {
		return err
	}
	if !ok {
		var out ir.Shape
		if s := n.Inputs[0].Shape; s != nil {
			out = make(ir.Shape, len(s))
			for i := range out {
				out[i] = -1
			}
			if z, okz := constInts(n, 2); okz && len(z) == len(s) {
				for i, d := range z {
					if d >= 0 {
						out[i] = d
					}
				}
			}
		}
		setOut(n, 0, n.Inputs[0].DType, out)
		return nil
	}
	setOut(n, 0, n.Inputs[0].DType, ir.Shape(size))
	return nil
}

func foldSlice(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	b, size, ok, err := sliceArgs(n)
	if err != nil || !ok {
		return nil, err
	}
	return []*ir.Tensor{sliceTensor(in[0], b, ir.Shape(size))}, nil
}

func inferTile(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	m, ok := constInts(n, 1)
	if !ok || s == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	if len(m) != len(s) {
		return fmt.Errorf("Tile multiples %v do not match rank %d", m, len(s))
	}
	out := make(ir.Shape, len(s))
	for i := range s {
		if m[i] < 0 {
			return fmt.Errorf("Tile multiples %v are negative", m)
		}
		out[i] = -1
		if s[i] >= 0 {
			out[i] = s[i] * m[i]
		}
	}
	if err := checkElements(out); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldTile(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok || count > MaxFoldElements {
		return nil, nil
	}
	t := in[0]
	st := strides(t.Shape)
	return []*ir.Tensor{gather(t, out, count, func(i int) int {
		k := 0
		for d := len(out) - 1; d >= 0; d-- {
			c := i % max(out[d], 1)
			i /= max(out[d], 1)
			k += (c % max(t.Shape[d], 1)) * st[d]
		}
		return k
	})}, nil
}

func padArgs(n *ir.Node) ([][2]int, bool, error) {
	s := n.Inputs[0].Shape
	p := n.Inputs[1]
	if p.Const == nil || s == nil {
		return nil, false, nil
	}
	v := p.Const.Ints()
	if len(v) != 2*len(s) {
		return nil, false, fmt.Errorf("paddings %s do not match rank %d", p.Const.Shape, len(s))
	}
	out := make([][2]int, len(s))
	for i := range out {
		out[i] = [2]int{v[2*i], v[2*i+1]}
		if out[i][0] < 0 || out[i][1] < 0 {
			return nil, false, fmt.Errorf("paddings %v are negative", v)
		}
	}
	return out, true, nil
}

func inferPad(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	pads, ok, err := padArgs(n)
	if err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	if !ok {
		var out ir.Shape
		if s != nil {
			out = make(ir.Shape, len(s))
			for i := range out {
				out[i] = -1
			}
		}
		setOut(n, 0, n.Inputs[0].DType, out)
		return nil
	}
	out := make(ir.Shape, len(s))
	for i := range s {
		out[i] = -1
		if s[i] >= 0 {
			out[i] = s[i] + pads[i][0] + pads[i][1]
		}
	}
	if err := checkElements(out); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldPad(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if n.Op == "MirrorPad" {
		return nil, nil
	}
	pads, ok, err := padArgs(n)
	if err != nil || !ok {
		return nil, err
	}
	t := in[0]
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok || count > MaxFoldElements || t.DType == ir.String {
		return nil, nil
	}
	var fill *ir.Tensor
	if n.Op == "PadV2" && len(in) > 2 {
		fill = in[2]
	} else {
		fill = &ir.Tensor{DType: t.DType, Shape: ir.Scalar(), Data: make([]byte, t.DType.Size())}
	}
	if fill.DType != t.DType || fill.NumElements() != 1 {
		return nil, fmt.Errorf("pad value must be a %s scalar", t.DType)
	}
	st := strides(t.Shape)
	sz := t.DType.Size()
	r := &ir.Tensor{DType: t.DType, Shape: out.Clone(), Data: make([]byte, count*sz)}
	for i := 0; i < count; i++ {
		k, rem, inside := 0, i, true
		for d := len(out) - 1; d >= 0; d-- {
			c := rem%out[d] - pads[d][0]
			rem /= out[d]
			if c < 0 || c >= t.Shape[d] {
				inside = false
				break
			}
			k += c * st[d]
		}
		if inside {
			copy(r.Data[i*sz:(i+1)*sz], t.Data[k*sz:(k+1)*sz])
		} else {
			copy(r.Data[i*sz:(i+1)*sz], fill.Data[:sz])
		}
	}
	return []*ir.Tensor{r}, nil
}

func foldReverse(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	t := in[0]
	axes := in[1].Ints()
	rev := make([]bool, len(t.Shape))
	for _, a := range axes {
		k, err := normAxis(a, len(t.Shape))
		if err != nil {
			return nil, err
		}
		rev[k] = true
	}
	count := t.NumElements()
	st := strides(t.Shape)
	return []*ir.Tensor{gather(t, t.Shape, count, func(i int) int {
		k := 0
		for d := len(t.Shape) - 1; d >= 0; d-- {
			c := i % max(t.Shape[d], 1)
			i /= max(t.Shape[d], 1)
			if rev[d] {
				c = t.Shape[d] - 1 - c
			}
			k += c * st[d]
		}
		return k
	})}, nil
}

// gatherArgs returns params, indices, axis and batch_dims of a gather.
func gatherArgs(n *ir.Node) (params ir.Shape, dt ir.DType, axis, batch int, ok bool, err error) {
	if err := needInputs(n, 2); err != nil {
		return nil, ir.Invalid, 0, 0, false, err
	}
	p := n.Inputs[0]
	params, dt = p.Shape, p.DType
	if n.Op == "ResourceGather" {
		if p.Variable == nil {
			return nil, ir.Invalid, 0, 0, false, nil
		}
		params, dt = p.Variable.Value.Shape, p.Variable.Value.DType
	}
	b, err := n.AttrInt("batch_dims", 0)
	if err != nil {
		return nil, ir.Invalid, 0, 0, false, err
	}
	axis = 0
	if n.Op == "GatherV2" {
		if err := needInputs(n, 3); err != nil {
			return nil, ir.Invalid, 0, 0, false, err
		}
		a, known := constInts(n, 2)
		if !known || len(a) != 1 || params == nil {
			return params, dt, 0, 0, false, nil
		}
		if axis, err = normAxis(a[0], len(params)); err != nil {
			return nil, ir.Invalid, 0, 0, false, err
		}
	}
	if params == nil {
		return nil, dt, 0, 0, false, nil
	}
	if len(params) == 0 {
		return nil, ir.Invalid, 0, 0, false, fmt.Errorf("gather params must have rank 1 or more, got a scalar")
	}
	bd := int(b)
	if bd < 0 {
		bd += max(n.Inputs[1].Shape.Rank(), 0)
	}
	if bd != 0 {
		return nil, ir.Invalid, 0, 0, false, fmt.Errorf("batch_dims %d is not supported", b)
	}
	return params, dt, axis, 0, true, nil
}

func inferGather(n *ir.Node) error {
	params, dt, axis, _, ok, err := gatherArgs(n)
	if err != nil {
		return err
	}
	idx := n.Inputs[1].Shape
	if !ok || idx == nil {
		setOut(n, 0, dt, nil)
		return nil
	}
	out := append(append(append(ir.Shape{}, params[:axis]...), idx...), params[axis+1:]...)
	setOut(n, 0, dt, out)
	return nil
}

func foldGather(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	params, _, axis, _, ok, err := gatherArgs(n)
	if err != nil || !ok {
		return nil, err
	}
	t := in[0]
	if n.Op == "ResourceGather" {
		t = n.Inputs[0].Variable.Value
	}
	idx := in[1].Ints()
	for _, i := range idx {
		if i < 0 || i >= params[axis] {
			return nil, fmt.Errorf("gather index %d is out of range [0, %d)", i, params[axis])
		}
	}
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok || count > MaxFoldElements {
		return nil, nil
	}
	inner := 1
	for _, d := range params[axis+1:] {
		inner *= d
	}
	nIdx := len(idx)
	return []*ir.Tensor{gather(t, out, count, func(i int) int {
		r := i % inner
		q := i / inner
		j := q % max(nIdx, 1)
		o := q / max(nIdx, 1)
		return (o*params[axis]+idx[j])*inner + r
	})}, nil
}
