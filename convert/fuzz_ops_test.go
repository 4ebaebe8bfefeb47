package convert

import (
	"fmt"
	"sort"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/legalize"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/proto"
)

// FuzzOpGraphs builds GraphDefs op by op from the fuzzer's bytes — ops the
// converter legalises plus a few it does not, with random small shapes,
// constant values and attributes (including wrong-kind ones) — and
// converts them. Arbitrary protobuf bytes rarely parse into graphs deep
// enough to reach shape inference, folding and legalisation; this target
// does.
//
//	go test ./convert -run='^$' -fuzz=FuzzOpGraphs -fuzztime=5m
func FuzzOpGraphs(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("conv2d and friends 0123456789abcdef"))
	f.Add([]byte{200, 13, 7, 7, 1, 2, 3, 250, 9, 9, 33, 64, 128, 5})
	// The hostile classes (hostileGraph): a long chain, huge splat
	// constants, huge shapes.
	f.Add([]byte{0xff, 0, 200, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{0xff, 1, 7, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Add([]byte{0xff, 1, 3, 0, 1, 2})
	f.Add([]byte{0xff, 2, 0, 1, 2, 3})
	f.Add([]byte{0xff, 2, 3, 3, 1, 0})
	ops := append(legalize.Supported(), "Frobnicate", "While", "Placeholder", "NoOp", "Identity", "StatefulPartitionedCall",
		// Control flow and lists (package controlflow), state updates
		// (package stateful).
		"StatelessWhile", "StatelessIf", "Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond",
		"TensorListReserve", "TensorListFromTensor", "TensorListGetItem", "TensorListSetItem", "TensorListStack",
		"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayGatherV3",
		"AssignVariableOp", "ReadVariableOp")
	sort.Strings(ops)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := fuzzGraph(data, ops)
		b, err := proto.Marshal(g)
		if err != nil {
			return
		}
		m, err := tfmodel.ParseGraphDef("fuzz.pb", b, false)
		if err != nil {
			return
		}
		last := g.Node[len(g.Node)-1].Name
		ConvertModel(m, fuzzLimits(Options{OutputArrays: []string{last}}))
		ConvertModel(m, fuzzLimits(Options{OutputArrays: []string{last + ":1"}, InputArrays: []string{"x"}}))
	})
}

type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next() int {
	if len(r.b) == 0 {
		return 0
	}
	v := int(r.b[r.i%len(r.b)])
	r.i++
	return v
}

func (r *byteReader) small(n int) int { return r.next() % n }

func fuzzGraph(data []byte, ops []string) *tfpb.GraphDef {
	if len(data) >= 2 && data[0] == 0xff {
		return hostileGraph(data[1:])
	}
	r := &byteReader{b: data}
	g := &tfpb.GraphDef{}
	add := func(nd *tfpb.NodeDef) string {
		g.Node = append(g.Node, nd)
		return nd.Name
	}
	dtypes := []ir.DType{ir.Float32, ir.Int32, ir.Int64, ir.Bool, ir.Float16, ir.Uint8}
	randShape := func() ir.Shape {
		s := make(ir.Shape, r.small(5))
		for i := range s {
			s[i] = r.small(4) + map[bool]int{true: -1, false: 0}[r.small(16) == 0]
			if s[i] < -1 {
				s[i] = -1
			}
		}
		return s
	}
	var names []string
	names = append(names, add(&tfpb.NodeDef{Name: "x", Op: "Placeholder", Attr: map[string]*tfpb.AttrValue{
		"dtype": tAttr(ir.Float32), "shape": {Value: &tfpb.AttrValue_Shape{Shape: ir.Shape{1, 4, 4, 2}.TF()}}}}))
	steps := 3 + r.small(10)
	for k := 0; k < steps; k++ {
		name := fmt.Sprintf("n%d", k)
		if r.small(3) == 0 {
			// A constant of random type, shape and values.
			dt := dtypes[r.small(len(dtypes))]
			s := randShape()
			for i := range s {
				if s[i] < 0 {
					s[i] = 1
				}
			}
			n, _ := s.NumElements()
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = float64(r.next()%9) - 4
			}
			var tt *ir.Tensor
			if dt.IsFloat() {
				tt, _ = ir.FromFloat64s(dt, s, vals)
			} else {
				iv := make([]int64, n)
				for i, v := range vals {
					iv[i] = int64(v)
					if dt == ir.Bool || dt == ir.Uint8 {
						iv[i] = int64(v) & 1
					}
				}
				tt, _ = ir.FromInt64s(dt, s, iv)
			}
			if tt == nil {
				continue
			}
			names = append(names, add(&tfpb.NodeDef{Name: name, Op: "Const", Attr: map[string]*tfpb.AttrValue{
				"dtype": tAttr(dt), "value": {Value: &tfpb.AttrValue_Tensor{Tensor: tt.Proto()}}}}))
			continue
		}
		nd := &tfpb.NodeDef{Name: name, Op: ops[r.small(len(ops))], Attr: map[string]*tfpb.AttrValue{}}
		for i := r.small(5); i >= 0; i-- {
			in := names[r.small(len(names))]
			if r.small(4) == 0 {
				in += fmt.Sprintf(":%d", r.small(3))
			}
			nd.Input = append(nd.Input, in)
		}
		for i := r.small(6); i > 0; i-- {
			key := []string{"T", "strides", "padding", "ksize", "axis", "N", "num", "num_split", "squeeze_dims", "keep_dims",
				"transpose_a", "transpose_b", "begin_mask", "end_mask", "shrink_axis_mask", "new_axis_mask", "ellipsis_mask",
				"DstT", "dilations", "data_format", "is_training", "epsilon", "f", "Tout", "out_type", "dtype", "alpha"}[r.small(27)]
			var v *tfpb.AttrValue
			switch r.small(7) {
			case 0:
				v = tAttr(dtypes[r.small(len(dtypes))])
			case 1:
				v = iAttr(int64(r.next()) - 100)
			case 2:
				v = lAttr(int64(r.small(4)), int64(r.small(3)+1), int64(r.small(3)+1), 1)
			case 3:
				v = sAttr([]string{"SAME", "VALID", "EXPLICIT", "NHWC", "NCHW", "bogus"}[r.small(6)])
			case 4:
				v = bAttr(r.small(2) == 0)
			case 5:
				v = fAttr(float32(r.next()) / 100)
			case 6:
				v = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: []tfpb.DataType{tfpb.DataType_DT_FLOAT}}}}
			}
			nd.Attr[key] = v
		}
		if _, ok := nd.Attr["T"]; !ok && r.small(4) != 0 {
			nd.Attr["T"] = tAttr(ir.Float32)
		}
		names = append(names, add(nd))
	}
	return g
}

// hostileGraph builds, from the fuzzer's bytes after a 0xff marker (no
// input of the op-by-op generator starts with one), a graph of one of the
// classes hostile models try: a chain of up to 2000 unary ops, splat
// constants of up to a gigabyte each summed, or Fill, Reshape and
// BroadcastTo to shapes past every limit. The last node is the output.
func hostileGraph(data []byte) *tfpb.GraphDef {
	r := &byteReader{b: data}
	g := &tfpb.GraphDef{}
	add := func(op, name string, inputs []string, a attrs) string {
		nd := &tfpb.NodeDef{Name: name, Op: op, Input: inputs, Attr: map[string]*tfpb.AttrValue{}}
		for k, v := range a {
			nd.Attr[k] = v
		}
		g.Node = append(g.Node, nd)
		return name
	}
	x := add("Placeholder", "x", nil, attrs{"dtype": tAttr(ir.Float32), "shape": {Value: &tfpb.AttrValue_Shape{Shape: ir.Shape{1, 4}.TF()}}})
	splat := func(name string, dims ...int64) string {
		sh := &tfpb.TensorShapeProto{}
		for _, d := range dims {
			sh.Dim = append(sh.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
		}
		return add("Const", name, nil, attrs{"dtype": tAttr(ir.Float32), "value": {Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{
			Dtype: tfpb.DataType_DT_FLOAT, TensorShape: sh, FloatVal: []float32{float32(r.small(5))}}}}})
	}
	ints := func(name string, v ...int32) string {
		return add("Const", name, nil, attrs{"dtype": tAttr(ir.Int32), "value": {Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{
			Dtype: tfpb.DataType_DT_INT32, TensorShape: ir.Shape{len(v)}.TF(), IntVal: v}}}})
	}
	big := []int32{0, 1, 4, 1 << 10, 1 << 20, 1 << 26, 1<<31 - 1, -1}
	t := attrs{"T": tAttr(ir.Float32)}
	switch r.small(3) {
	case 0: // a long chain
		unary := []string{"Relu", "Identity", "Neg", "Tanh", "Abs", "StopGradient", "Sigmoid"}
		prev := x
		for i, k := 0, 200+r.next()*7; i < k; i++ {
			prev = add(unary[r.small(len(unary))], fmt.Sprintf("n%d", i), []string{prev}, t)
		}
	case 1: // splat constants, up to a gigabyte each
		var ins []string
		for i, k := 0, 1+r.small(8); i < k; i++ {
			ins = append(ins, splat(fmt.Sprintf("c%d", i), []int64{1, 1 << 8, 1 << 16, 1 << 26}[r.small(4)], 4))
		}
		sum := add("AddN", "sum", ins, attrs{"T": tAttr(ir.Float32), "N": iAttr(int64(len(ins)))})
		add("AddV2", "out", []string{sum, x}, t)
	case 2: // shapes past every limit
		dims := ints("dims", big[r.small(len(big))], big[r.small(len(big))], 4)
		var v string
		switch r.small(3) {
		case 0:
			v = add("Fill", "v", []string{dims, splat("one")}, attrs{"T": tAttr(ir.Float32), "index_type": tAttr(ir.Int32)})
		case 1:
			v = add("Reshape", "v", []string{x, dims}, attrs{"T": tAttr(ir.Float32), "Tshape": tAttr(ir.Int32)})
		default:
			v = add("BroadcastTo", "v", []string{x, dims}, attrs{"T": tAttr(ir.Float32), "Tidx": tAttr(ir.Int32)})
		}
		add("AddV2", "out", []string{v, x}, t)
	}
	return g
}
