package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
)

func init() {
	register(opDef{infer: inferMatMul, fold: foldMatMul}, "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
	register(opDef{infer: inferBiasAdd, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		// BiasAdd is an Add broadcasting the bias over the channel axis.
		format, _ := n.AttrString("data_format", "NHWC")
		if format != "NHWC" && format != "N...C" {
			return nil, nil
		}
		add := &ir.Node{Op: "AddV2", Inputs: n.Inputs, Outputs: n.Outputs}
		return foldBinary(add, in)
	}}, "BiasAdd", "BiasAddV1")
	register(opDef{infer: inferConv}, "Conv2D", "DepthwiseConv2dNative")
	register(opDef{infer: inferPool}, "MaxPool", "AvgPool")
	register(opDef{infer: inferBatchNorm}, "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
	register(opDef{infer: inferReduce, fold: foldReduce}, "Mean", "Sum", "Max", "Min", "Prod", "All", "Any")
	register(opDef{infer: inferArgMax, fold: foldArgMax}, "ArgMax", "ArgMin")
	register(opDef{infer: inferResize}, "ResizeBilinear", "ResizeNearestNeighbor")
}

// MatMulShape gives the output shape of MatMul/BatchMatMul with the
// transpose/adjoint flags applied.
func MatMulShape(n *ir.Node, a, b ir.Shape) (ir.Shape, error) {
	ta, tb := "transpose_a", "transpose_b"
	if n.Op != "MatMul" {
		ta, tb = "adj_x", "adj_y"
	}
	tA, err := n.AttrBool(ta, false)
	if err != nil {
		return nil, err
	}
	tB, err := n.AttrBool(tb, false)
	if err != nil {
		return nil, err
	}
	if a == nil || b == nil {
		return nil, nil
	}
	if len(a) < 2 || len(b) < 2 || (n.Op == "MatMul" && (len(a) != 2 || len(b) != 2)) {
		return nil, fmt.Errorf("%s operands have ranks %d and %d", n.Op, len(a), len(b))
	}
	m, ka := a[len(a)-2], a[len(a)-1]
	if tA {
		m, ka = ka, m
	}
	kb, p := b[len(b)-2], b[len(b)-1]
	if tB {
		kb, p = p, kb
	}
	if ka >= 0 && kb >= 0 && ka != kb {
		return nil, fmt.Errorf("%s inner dimensions differ: %s × %s", n.Op, a, b)
	}
	batch, err := BroadcastShape(a[:len(a)-2], b[:len(b)-2])
	if err != nil {
		return nil, err
	}
	if n.Op == "BatchMatMul" && len(a) != len(b) {
		return nil, fmt.Errorf("BatchMatMul operands have ranks %d and %d", len(a), len(b))
	}
	return append(batch, m, p), nil
}

func inferMatMul(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	s, err := MatMulShape(n, n.Inputs[0].Shape, n.Inputs[1].Shape)
	if err != nil {
		return err
	}
	dt := n.Inputs[0].DType
	if n.Op == "BatchMatMulV3" {
		if dt, err = n.AttrType("Tout"); err != nil {
			return err
		}
	}
	setOut(n, 0, dt, s)
	return nil
}

func foldMatMul(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if n.Op != "MatMul" || !in[0].DType.IsFloat() || in[0].DType != in[1].DType {
		return nil, nil
	}
	tA, _ := n.AttrBool("transpose_a", false)
	tB, _ := n.AttrBool("transpose_b", false)
	a, b := in[0], in[1]
	var err error
	if tA {
		if a, err = Transpose(a, []int{1, 0}); err != nil {
			return nil, err
		}
	}
	if tB {
		if b, err = Transpose(b, []int{1, 0}); err != nil {
			return nil, err
		}
	}
	m, k, p := a.Shape[0], a.Shape[1], b.Shape[1]
	if b.Shape[0] != k {
		return nil, fmt.Errorf("MatMul inner dimensions differ: %s × %s", a.Shape, b.Shape)
	}
	if m*p > MaxFoldElements || m*k*p > 1<<28 {
		return nil, nil
	}
	av, bv := a.Float32s(), b.Float32s()
	out := make([]float64, m*p)
	for i := 0; i < m; i++ {
		for j := 0; j < p; j++ {
			var s float32
			for q := 0; q < k; q++ {
				s += av[i*k+q] * bv[q*p+j]
			}
			out[i*p+j] = float64(s)
		}
	}
	t, err := ir.FromFloat64s(a.DType, ir.Shape{m, p}, out)
	return []*ir.Tensor{t}, err
}

func inferBiasAdd(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	x, b := n.Inputs[0].Shape, n.Inputs[1].Shape
	format, err := n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	if b != nil && len(b) != 1 {
		return fmt.Errorf("bias must be 1-D, has shape %s", b)
	}
	if x != nil && b != nil && len(x) > 0 && format != "NCHW" {
		if c := x[len(x)-1]; c >= 0 && b[0] >= 0 && c != b[0] {
			return fmt.Errorf("bias of %d values for %d channels", b[0], c)
		}
	}
	setOut(n, 0, n.Inputs[0].DType, x.Clone())
	return nil
}

// ConvOutSize is the output size of a convolution or pooling window along
// one dimension: SAME pads to ceil(in/stride), VALID keeps windows inside
// the input, EXPLICIT adds the given padding.
func ConvOutSize(in, k, stride, dilation int, padding string, padLo, padHi int) (int, error) {
	if in < 0 {
		return -1, nil
	}
	if stride <= 0 || dilation <= 0 || k <= 0 {
		return 0, fmt.Errorf("window %d, stride %d and dilation %d must be positive", k, stride, dilation)
	}
	eff := (k-1)*dilation + 1
	switch padding {
	case "SAME":
		return (in + stride - 1) / stride, nil
	case "VALID":
		if in < eff {
			return 0, fmt.Errorf("window of %d does not fit an input of %d", eff, in)
		}
		return (in-eff)/stride + 1, nil
	case "EXPLICIT":
		in += padLo + padHi
		if in < eff {
			return 0, fmt.Errorf("window of %d does not fit a padded input of %d", eff, in)
		}
		return (in-eff)/stride + 1, nil
	}
	return 0, fmt.Errorf("padding %q is not SAME, VALID or EXPLICIT", padding)
}

// Window4 reads the NHWC strides/dilations/ksize style attribute (4
// values, batch and channel entries 1).
func Window4(n *ir.Node, name string, def []int64) (h, w int, err error) {
	v, err := n.AttrInts(name, def)
	if err != nil {
		return 0, 0, err
	}
	if len(v) != 4 {
		return 0, 0, n.Errorf("attribute %q has %d values, want 4", name, len(v))
	}
	format, err := n.AttrString("data_format", "NHWC")
	if err != nil {
		return 0, 0, err
	}
	if format != "NHWC" {
		return 0, 0, n.Errorf("data_format %q is not supported (only NHWC)", format)
	}
	if v[0] != 1 || v[3] != 1 {
		return 0, 0, n.Errorf("attribute %q = %v: batch and channel entries must be 1", name, v)
	}
	if v[1] <= 0 || v[2] <= 0 || v[1] > 1<<20 || v[2] > 1<<20 {
		return 0, 0, n.Errorf("attribute %q = %v has non-positive entries", name, v)
	}
	return int(v[1]), int(v[2]), nil
}

// ExplicitPads returns the (top, bottom, left, right) padding of an
// EXPLICIT-padded NHWC op.
func ExplicitPads(n *ir.Node) ([4]int, error) {
	v, err := n.AttrInts("explicit_paddings", nil)
	if err != nil {
		return [4]int{}, err
	}
	if len(v) != 8 {
		return [4]int{}, n.Errorf("explicit_paddings has %d values, want 8", len(v))
	}
	for _, x := range v {
		if x < 0 || x > 1<<20 {
			return [4]int{}, n.Errorf("explicit_paddings %v is out of range", v)
		}
	}
	return [4]int{int(v[2]), int(v[3]), int(v[4]), int(v[5])}, nil
}

func inferConv(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	x, f := n.Inputs[0].Shape, n.Inputs[1].Shape
	sh, sw, err := Window4(n, "strides", nil)
	if err != nil {
		return err
	}
	dh, dw, err := Window4(n, "dilations", []int64{1, 1, 1, 1})
	if err != nil {
		return err
	}
	padding, err := n.AttrString("padding", "")
	if err != nil {
		return err
	}
	var pads [4]int
	if padding == "EXPLICIT" {
		if pads, err = ExplicitPads(n); err != nil {
			return err
		}
	}
	if x != nil && len(x) != 4 {
		return fmt.Errorf("input must be 4-D NHWC, has shape %s", x)
	}
	if f != nil && len(f) != 4 {
		return fmt.Errorf("filter must be 4-D, has shape %s", f)
	}
	if x == nil || f == nil {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1})
		return nil
	}
	if x[3] >= 0 && f[2] >= 0 {
		if n.Op == "Conv2D" && x[3]%max(f[2], 1) != 0 {
			return fmt.Errorf("input has %d channels, filter expects %d", x[3], f[2])
		}
		if n.Op == "DepthwiseConv2dNative" && x[3] != f[2] {
			return fmt.Errorf("input has %d channels, filter expects %d", x[3], f[2])
		}
	}
	oh, err := ConvOutSize(x[1], f[0], sh, dh, padding, pads[0], pads[1])
	if err != nil {
		return err
	}
	ow, err := ConvOutSize(x[2], f[1], sw, dw, padding, pads[2], pads[3])
	if err != nil {
		return err
	}
	oc := f[3]
	if n.Op == "DepthwiseConv2dNative" {
		oc = -1
		if f[2] >= 0 && f[3] >= 0 {
			oc = f[2] * f[3]
		}
	}
	setOut(n, 0, n.Inputs[0].DType, ir.Shape{x[0], oh, ow, oc})
	return nil
}

func inferPool(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	kh, kw, err := Window4(n, "ksize", nil)
	if err != nil {
		return err
	}
	sh, sw, err := Window4(n, "strides", nil)
	if err != nil {
		return err
	}
	padding, err := n.AttrString("padding", "")
	if err != nil {
		return err
	}
	if x == nil {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1})
		return nil
	}
	if len(x) != 4 {
		return fmt.Errorf("input must be 4-D NHWC, has shape %s", x)
	}
	oh, err := ConvOutSize(x[1], kh, sh, 1, padding, 0, 0)
	if err != nil {
		return err
	}
	ow, err := ConvOutSize(x[2], kw, sw, 1, padding, 0, 0)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, ir.Shape{x[0], oh, ow, x[3]})
	return nil
}

func inferBatchNorm(n *ir.Node) error {
	if err := needInputs(n, 5); err != nil {
		return err
	}
	format, err := n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	c := -1
	if x != nil && len(x) > 0 {
		if format == "NCHW" && len(x) > 1 {
			c = x[1]
		} else {
			c = x[len(x)-1]
		}
	}
	setOut(n, 0, n.Inputs[0].DType, x.Clone())
	for i := 1; i < len(n.Outputs); i++ {
		dt := n.Outputs[i].DType
		if dt == ir.Invalid {
			dt = n.Inputs[1].DType
		}
		setOut(n, i, dt, ir.Shape{c})
	}
	return nil
}

// ReduceAxes resolves a reduction's axes against a rank (nil means all).
func ReduceAxes(axes []int, rank int) ([]bool, error) {
	red := make([]bool, rank)
	for _, a := range axes {
		k, err := normAxis(a, rank)
		if err != nil {
			return nil, err
		}
		red[k] = true
	}
	return red, nil
}

func reduceShape(n *ir.Node) (ir.Shape, []bool, bool, error) {
	if err := needInputs(n, 2); err != nil {
		return nil, nil, false, err
	}
	keep, err := n.AttrBool("keep_dims", false)
	if err != nil {
		return nil, nil, false, err
	}
	s := n.Inputs[0].Shape
	axes, ok := constInts(n, 1)
	if !ok || s == nil {
		return nil, nil, false, nil
	}
	red, err := ReduceAxes(axes, len(s))
	if err != nil {
		return nil, nil, false, err
	}
	out := ir.Shape{}
	for i, d := range s {
		switch {
		case !red[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return out, red, true, nil
}

func inferReduce(n *ir.Node) error {
	out, _, _, err := reduceShape(n)
	if err != nil {
		return err
	}
	dt := n.Inputs[0].DType
	if n.Op == "All" || n.Op == "Any" {
		dt = ir.Bool
	}
	setOut(n, 0, dt, out)
	return nil
}

func foldReduce(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out, red, ok, err := reduceShape(n)
	if err != nil || !ok {
		return nil, err
	}
	t := in[0]
	if t.DType == ir.String {
		return nil, nil
	}
	count, _ := out.NumElements()
	acc := make([]float64, count)
	cnt := make([]int, count)
	v := t.Float64s()
	st := strides(t.Shape)
	_ = st
	for i, x := range v {
		// map input flat index to output flat index
		o, rem, mul := 0, i, 1
		for d := len(t.Shape) - 1; d >= 0; d-- {
			c := rem % max(t.Shape[d], 1)
			rem /= max(t.Shape[d], 1)
			if !red[d] {
				o += c * mul
				mul *= t.Shape[d]
			}
		}
		if cnt[o] == 0 {
			acc[o] = x
		} else {
			switch n.Op {
			case "Sum", "Mean":
				acc[o] += x
			case "Prod":
				acc[o] *= x
			case "Max", "Any":
				acc[o] = math.Max(acc[o], x)
			case "Min", "All":
				acc[o] = math.Min(acc[o], x)
			}
		}
		cnt[o]++
	}
	for o := range acc {
		if cnt[o] == 0 {
			switch n.Op {
			case "Prod", "All":
				acc[o] = 1
			case "Max":
				acc[o] = math.Inf(-1)
			case "Min":
				acc[o] = math.Inf(1)
			}
		}
		if n.Op == "Mean" && cnt[o] > 0 {
			acc[o] /= float64(cnt[o])
		}
	}
	dt := n.Outputs[0].DType
	if dt.IsFloat() {
		r, err := ir.FromFloat64s(dt, out, acc)
		return []*ir.Tensor{r}, err
	}
	iv := make([]int64, len(acc))
	for i, x := range acc {
		iv[i] = wrapInt(dt, int64(x))
		if dt == ir.Bool && x != 0 {
			iv[i] = 1
		}
	}
	r, err := ir.FromInt64s(dt, out, iv)
	return []*ir.Tensor{r}, err
}

func inferArgMax(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	dt, err := n.AttrTypeOr("output_type", ir.Int64)
	if err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	ax, ok := constInts(n, 1)
	if !ok || s == nil || len(ax) != 1 {
		setOut(n, 0, dt, nil)
		return nil
	}
	a, err := normAxis(ax[0], len(s))
	if err != nil {
		return err
	}
	out := append(append(ir.Shape{}, s[:a]...), s[a+1:]...)
	setOut(n, 0, dt, out)
	return nil
}

func foldArgMax(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	t := in[0]
	ax := in[1].Ints()
	if len(ax) != 1 {
		return nil, fmt.Errorf("%s axis must be one value, got %v", n.Op, ax)
	}
	a, err := normAxis(ax[0], len(t.Shape))
	if err != nil {
		return nil, err
	}
	if t.Shape[a] == 0 {
		return nil, fmt.Errorf("%s over an empty axis", n.Op)
	}
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok {
		return nil, nil
	}
	inner := 1
	for _, d := range t.Shape[a+1:] {
		inner *= d
	}
	v := t.Float64s()
	res := make([]int64, count)
	for o := range res {
		outer, r := o/inner, o%inner
		best := 0
		for j := 1; j < t.Shape[a]; j++ {
			x := v[(outer*t.Shape[a]+j)*inner+r]
			y := v[(outer*t.Shape[a]+best)*inner+r]
			if (n.Op == "ArgMax" && x > y) || (n.Op == "ArgMin" && x < y) {
				best = j
			}
		}
		res[o] = int64(best)
	}
	r, err := ir.FromInt64s(n.Outputs[0].DType, out, res)
	return []*ir.Tensor{r}, err
}

func inferResize(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	size, ok := constInts(n, 1)
	dt := n.Inputs[0].DType
	if n.Op == "ResizeBilinear" {
		dt = ir.Float32
	}
	if x == nil || len(x) != 4 {
		setOut(n, 0, dt, ir.Shape{-1, -1, -1, -1})
		return nil
	}
	out := ir.Shape{x[0], -1, -1, x[3]}
	if ok {
		if len(size) != 2 || size[0] < 0 || size[1] < 0 {
			return fmt.Errorf("resize size %v must be 2 non-negative values", size)
		}
		out[1], out[2] = size[0], size[1]
	}
	setOut(n, 0, dt, out)
	return nil
}
