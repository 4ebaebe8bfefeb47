package convert

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/schema"
)

// sgBuilder assembles one subgraph of a test model with the schema's
// object API.
type sgBuilder struct {
	m  *schema.ModelT
	sg *schema.SubGraphT
}

func (b *sgBuilder) tensor(name string, tt schema.TensorType, shape []int32, data []byte) int32 {
	t := &schema.TensorT{Name: name, Type: tt, Shape: shape, HasRank: true}
	if data != nil {
		t.Buffer = uint32(len(b.m.Buffers))
		b.m.Buffers = append(b.m.Buffers, &schema.BufferT{Data: data})
	}
	b.sg.Tensors = append(b.sg.Tensors, t)
	return int32(len(b.sg.Tensors) - 1)
}

func (b *sgBuilder) f32(name string, shape []int32, v []float32) int32 {
	d := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(d[4*i:], math.Float32bits(x))
	}
	return b.tensor(name, schema.TensorTypeFLOAT32, shape, d)
}

func (b *sgBuilder) i32(name string, shape []int32, v ...int32) int32 {
	d := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(d[4*i:], uint32(x))
	}
	return b.tensor(name, schema.TensorTypeINT32, shape, d)
}

func (b *sgBuilder) op(code schema.BuiltinOperator, opts *schema.BuiltinOptionsT, ins []int32, outs ...int32) {
	idx := -1
	for i, c := range b.m.OperatorCodes {
		if c.BuiltinCode == code {
			idx = i
		}
	}
	if idx < 0 {
		idx = len(b.m.OperatorCodes)
		dep := int8(127)
		if code < 127 {
			dep = int8(code)
		}
		b.m.OperatorCodes = append(b.m.OperatorCodes, &schema.OperatorCodeT{BuiltinCode: code, DeprecatedBuiltinCode: dep, Version: 1})
	}
	b.sg.Operators = append(b.sg.Operators, &schema.OperatorT{OpcodeIndex: uint32(idx), Inputs: ins, Outputs: outs, BuiltinOptions: opts})
}

func (b *sgBuilder) custom(name string, ins []int32, outs ...int32) {
	idx := -1
	for i, c := range b.m.OperatorCodes {
		if c.CustomCode == name {
			idx = i
		}
	}
	if idx < 0 {
		idx = len(b.m.OperatorCodes)
		b.m.OperatorCodes = append(b.m.OperatorCodes, &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorCUSTOM,
			DeprecatedBuiltinCode: int8(schema.BuiltinOperatorCUSTOM), CustomCode: name, Version: 1})
	}
	b.sg.Operators = append(b.sg.Operators, &schema.OperatorT{OpcodeIndex: uint32(idx), Inputs: ins, Outputs: outs})
}

func seeded(n int, seed uint32) []float32 {
	v := make([]float32, n)
	for i := range v {
		seed = seed*1664525 + 1013904223
		v[i] = float32(int32(seed>>8)%1000) / 1500
	}
	return v
}

// loopModel is the variant of the SimpleRNN loop rnnLoopModel builds.
type loopModel struct {
	backwards bool // the loop walks the sequence reversed (go_backwards)
	stateIn   bool // the initial state is a model input
	noTanh    bool // the body multiplies by the state: no RNN cell
	flex      bool // the output list is a Flex TensorList, as without lower-static-tensor-list
	// vars reads the kernels through resource variables passed in as
	// loop variables (experimental_enable_resource_variables): varsInit
	// assigns them their constants in a CALL_ONCE init subgraph,
	// varsUnset nowhere.
	vars int
	// masked keeps the previous state where a second sequence, the
	// mask, is false (Keras masking: SELECT_V2 of new vs previous h).
	masked bool
	// hybrid stores the input kernel as int8 (per-tensor scale), as
	// dynamic-range quantisation writes it: the loop runs hybrid.
	hybrid bool
	// hybridAll stores the recurrent kernel as int8 too (scale 1/100):
	// the fused operator then runs hybrid over the loop's int8 weights.
	hybridAll bool
}

// The loopModel.vars modes.
const (
	varsNone = iota
	varsInit
	varsUnset
)

// rnnLoopModel builds what TensorFlow ≥ 2.16 writes for a Keras 3
// SimpleRNN(2) over [1, 4, 3] when only the last output is returned:
// a builtins-only WHILE over (counter, time, a one-item output list,
// h, the time-major sequence), reading the step with GATHER and writing
// the list as a RESHAPE of h.
func rnnLoopModel(v loopModel) []byte {
	const T, F, U = 4, 3, 2
	m := &schema.ModelT{Version: 3, Buffers: []*schema.BufferT{{}}}
	main := &sgBuilder{m, &schema.SubGraphT{Name: "main"}}
	in := main.tensor("input", schema.TensorTypeFLOAT32, []int32{1, T, F}, nil)
	main.sg.Inputs = []int32{in}
	seq := main.tensor("transpose", schema.TensorTypeFLOAT32, []int32{T, 1, F}, nil)
	main.op(schema.BuiltinOperatorTRANSPOSE, nil, []int32{in, main.i32("perm", []int32{3}, 1, 0, 2)}, seq)
	if v.backwards {
		rev := main.tensor("reverse", schema.TensorTypeFLOAT32, []int32{T, 1, F}, nil)
		main.op(schema.BuiltinOperatorREVERSE_V2, nil, []int32{seq, main.i32("axis", []int32{1}, 0)}, rev)
		seq = rev
	}
	zero := main.i32("time", []int32{}, 0)
	list := main.f32("list", []int32{1, 1, U}, make([]float32, U))
	listType, listShape := schema.TensorTypeFLOAT32, []int32{1, 1, U}
	elemShape := main.i32("element_shape", []int32{2}, -1, U)
	if v.flex {
		listType, listShape = schema.TensorTypeVARIANT, []int32{}
		list = main.tensor("reserve", listType, listShape, nil)
		main.custom("FlexTensorListReserve", []int32{elemShape, main.i32("num_elements", []int32{}, 1)}, list)
	}
	h0 := main.f32("zeros", []int32{1, U}, make([]float32, U))
	if v.stateIn {
		h0 = main.tensor("h0", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
		main.sg.Inputs = append(main.sg.Inputs, h0)
	}
	kernel, recurrent := seeded(U*F, 1), seeded(U*U, 3)
	varOpts := func(name string) *schema.BuiltinOptionsT {
		return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsVarHandleOptions, Value: &schema.VarHandleOptionsT{SharedName: name}}
	}
	loopIn := []int32{zero, zero, list, h0, seq}
	if v.vars != varsNone {
		if v.vars == varsInit {
			main.op(schema.BuiltinOperatorCALL_ONCE, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsCallOnceOptions,
				Value: &schema.CallOnceOptionsT{InitSubgraphIndex: 3}}, []int32{})
		}
		for _, n := range []string{"rnn/kernel", "rnn/recurrent_kernel"} {
			h := main.tensor(n, schema.TensorTypeRESOURCE, []int32{}, nil)
			main.op(schema.BuiltinOperatorVAR_HANDLE, varOpts(n), []int32{}, h)
			loopIn = append(loopIn, h)
		}
	}
	var masks int32 = -1
	if v.masked {
		// The mask, time-major as Keras passes it into the loop.
		mask := main.tensor("mask", schema.TensorTypeFLOAT32, []int32{1, T}, nil)
		main.sg.Inputs = append(main.sg.Inputs, mask)
		pos := main.tensor("mask_bool", schema.TensorTypeBOOL, []int32{1, T}, nil)
		main.op(schema.BuiltinOperatorGREATER, nil, []int32{mask, main.f32("half", []int32{}, []float32{0})}, pos)
		masks = main.tensor("mask_tm", schema.TensorTypeBOOL, []int32{T, 1}, nil)
		main.op(schema.BuiltinOperatorTRANSPOSE, nil, []int32{pos, main.i32("mask_perm", []int32{2}, 1, 0)}, masks)
		loopIn = append(loopIn, masks)
	}
	loopType := func(i int) (schema.TensorType, []int32) {
		switch {
		case i < 2:
			return schema.TensorTypeINT32, []int32{}
		case i == 2:
			return listType, listShape
		case i == 3:
			return schema.TensorTypeFLOAT32, []int32{1, U}
		case i == 4:
			return schema.TensorTypeFLOAT32, []int32{T, 1, F}
		case v.masked && i == len(loopIn)-1:
			return schema.TensorTypeBOOL, []int32{T, 1}
		}
		return schema.TensorTypeRESOURCE, []int32{}
	}
	var wout []int32
	for i := range loopIn {
		tt, shape := loopType(i)
		wout = append(wout, main.tensor(fmt.Sprintf("while%d", i), tt, shape, nil))
	}
	main.op(schema.BuiltinOperatorWHILE, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsWhileOptions,
		Value: &schema.WhileOptionsT{CondSubgraphIndex: 1, BodySubgraphIndex: 2}}, loopIn, wout...)
	stacked := wout[2]
	if v.flex {
		stacked = main.tensor("stack", schema.TensorTypeFLOAT32, []int32{1, 1, U}, nil)
		main.custom("FlexTensorListStack", []int32{wout[2], elemShape}, stacked)
	}
	out := main.tensor("output", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
	main.op(schema.BuiltinOperatorRESHAPE, nil, []int32{stacked, main.i32("shape", []int32{2}, 1, U)}, out)
	main.sg.Outputs = []int32{out}

	params := func(b *sgBuilder) []int32 {
		var p []int32
		for i := range loopIn {
			tt, shape := loopType(i)
			p = append(p, b.tensor(fmt.Sprintf("arg%d", i), tt, shape, nil))
		}
		return p
	}
	cond := &sgBuilder{m, &schema.SubGraphT{Name: "while_cond"}}
	cp := params(cond)
	less := cond.tensor("less", schema.TensorTypeBOOL, []int32{}, nil)
	cond.op(schema.BuiltinOperatorLESS, nil, []int32{cp[1], cond.i32("steps", []int32{}, T)}, less)
	cond.sg.Inputs, cond.sg.Outputs = cp, []int32{less}

	body := &sgBuilder{m, &schema.SubGraphT{Name: "while_body"}}
	bp := params(body)
	one := body.i32("one", []int32{}, 1)
	add := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}}
	c1 := body.tensor("add_c", schema.TensorTypeINT32, []int32{}, nil)
	body.op(schema.BuiltinOperatorADD, add, []int32{bp[0], one}, c1)
	t1 := body.tensor("add_t", schema.TensorTypeINT32, []int32{}, nil)
	body.op(schema.BuiltinOperatorADD, add, []int32{bp[1], one}, t1)
	x := body.tensor("x", schema.TensorTypeFLOAT32, []int32{1, F}, nil)
	body.op(schema.BuiltinOperatorGATHER, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsGatherOptions, Value: &schema.GatherOptionsT{}}, []int32{bp[4], bp[1]}, x)
	fc := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}}
	wk, wr := body.f32("kernel", []int32{U, F}, kernel), body.f32("recurrent", []int32{U, U}, recurrent)
	if v.vars != varsNone {
		wk = body.tensor("read_kernel", schema.TensorTypeFLOAT32, []int32{U, F}, nil)
		body.op(schema.BuiltinOperatorREAD_VARIABLE, nil, []int32{bp[5]}, wk)
		wr = body.tensor("read_recurrent", schema.TensorTypeFLOAT32, []int32{U, U}, nil)
		body.op(schema.BuiltinOperatorREAD_VARIABLE, nil, []int32{bp[6]}, wr)
	}
	if v.hybrid {
		const scale = 1.0 / 150 // seeded's values are multiples of 1/1500
		q := make([]byte, len(kernel))
		for i, x := range kernel {
			q[i] = byte(int8(math.Round(float64(x / scale))))
		}
		wk = body.tensor("kernel_q", schema.TensorTypeINT8, []int32{U, F}, q)
		body.sg.Tensors[wk].Quantization = &schema.QuantizationParametersT{Scale: []float32{scale}, ZeroPoint: []int64{0}}
	}
	if v.hybridAll {
		const scale = 1.0 / 100
		q := make([]byte, len(recurrent))
		for i, x := range recurrent {
			q[i] = byte(int8(math.Round(float64(x / scale))))
		}
		wr = body.tensor("recurrent_q", schema.TensorTypeINT8, []int32{U, U}, q)
		body.sg.Tensors[wr].Quantization = &schema.QuantizationParametersT{Scale: []float32{scale}, ZeroPoint: []int64{0}}
	}
	xw := body.tensor("xw", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
	body.op(schema.BuiltinOperatorFULLY_CONNECTED, fc, []int32{x, wk, body.f32("bias", []int32{U}, seeded(U, 2))}, xw)
	hr := body.tensor("hr", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
	body.op(schema.BuiltinOperatorFULLY_CONNECTED, fc, []int32{bp[3], wr, -1}, hr)
	sum := body.tensor("sum", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
	body.op(schema.BuiltinOperatorADD, add, []int32{xw, hr}, sum)
	h := body.tensor("h", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
	if v.noTanh {
		body.op(schema.BuiltinOperatorMUL, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}, []int32{sum, bp[3]}, h)
	} else {
		body.op(schema.BuiltinOperatorTANH, nil, []int32{sum}, h)
	}
	if v.masked {
		// h where the step's mask is set, the previous h elsewhere.
		m := body.tensor("mask_t", schema.TensorTypeBOOL, []int32{1}, nil)
		body.op(schema.BuiltinOperatorGATHER, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsGatherOptions, Value: &schema.GatherOptionsT{}}, []int32{bp[len(bp)-1], bp[1]}, m)
		m2 := body.tensor("mask_col", schema.TensorTypeBOOL, []int32{1, 1}, nil)
		body.op(schema.BuiltinOperatorEXPAND_DIMS, nil, []int32{m, body.i32("mask_axis", []int32{}, 1)}, m2)
		kept := body.tensor("h_masked", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
		body.op(schema.BuiltinOperatorSELECT_V2, nil, []int32{m2, h, bp[3]}, kept)
		h = kept
	}
	item := body.tensor("item", schema.TensorTypeFLOAT32, []int32{1, 1, U}, nil)
	if v.flex {
		item = body.tensor("set_item", schema.TensorTypeVARIANT, []int32{}, nil)
		body.custom("FlexTensorListSetItem", []int32{bp[2], body.i32("index", []int32{}, 0), h}, item)
	} else {
		body.op(schema.BuiltinOperatorRESHAPE, nil, []int32{h, body.i32("item_shape", []int32{3}, 1, 1, U)}, item)
	}
	body.sg.Inputs, body.sg.Outputs = bp, append([]int32{c1, t1, item, h}, bp[4:]...)

	m.Subgraphs = []*schema.SubGraphT{main.sg, cond.sg, body.sg}
	if v.vars == varsInit {
		init := &sgBuilder{m, &schema.SubGraphT{Name: "init"}}
		for i, n := range []string{"rnn/kernel", "rnn/recurrent_kernel"} {
			h := init.tensor(n, schema.TensorTypeRESOURCE, []int32{}, nil)
			init.op(schema.BuiltinOperatorVAR_HANDLE, varOpts(n), []int32{}, h)
			c := init.f32(n+"/value", [][]int32{{U, F}, {U, U}}[i], [][]float32{kernel, recurrent}[i])
			init.op(schema.BuiltinOperatorASSIGN_VARIABLE, nil, []int32{h, c})
		}
		m.Subgraphs = append(m.Subgraphs, init.sg)
	}
	return tflite.Pack(m)
}

// TestRefuseBuiltLoops re-fuses loops built with the schema writer: a
// SimpleRNN loop forwards, backwards and over a Flex TensorList fuses to one
// UNIDIRECTIONAL_SEQUENCE_RNN, its subgraphs gone, and agrees with the
// loop, also when its kernels are resource variables a CALL_ONCE init
// subgraph assigns, and when its state starts from a model input (that
// input becomes the operator's is_variable state input); a loop whose body
// is no cell, one reading variables nothing assigns and a masked one are
// refused with the reason, and written back unchanged.
func TestRefuseBuiltLoops(t *testing.T) {
	for _, c := range []struct {
		name string
		v    loopModel
		why  string // "" fused
	}{
		{"forward", loopModel{}, ""},
		{"go_backwards", loopModel{backwards: true}, ""},
		{"flex", loopModel{flex: true}, ""},
		{"state input", loopModel{stateIn: true}, ""}, // the input is the state tensor
		{"no cell", loopModel{noTanh: true}, "does not compute a SimpleRNN cell"},
		{"variables", loopModel{vars: varsInit}, ""},
		{"variables flex", loopModel{vars: varsInit, flex: true}, ""},
		{"variables unset", loopModel{vars: varsUnset}, "rnn/kernel, rnn/recurrent_kernel, which nothing in the model assigns"},
		{"masked", loopModel{masked: true}, "masked"},
		{"hybrid", loopModel{hybrid: true}, ""},
		{"hybrid all", loopModel{hybrid: true, hybridAll: true}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := rnnLoopModel(c.v)
			nf, err := ConvertTFLite(model, Options{NoFuse: true})
			if err != nil {
				t.Fatal(err)
			}
			if nf.Report.Fused() != 0 || len(nf.Report.Composites) != 1 || !strings.Contains(nf.Report.Text(), "--no-fuse") {
				t.Fatalf("NoFuse report:\n%s", nf.Report.Text())
			}
			res, err := ConvertTFLite(model, Options{})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Report.Text()
			counts := opCounts(t, res.Model)
			if c.why != "" {
				if res.Report.Fused() != 0 || !strings.Contains(text, c.why) || counts["WHILE"] != 1 || len(res.Subgraphs) != 3 {
					t.Fatalf("report:\n%s\nops %v, %d subgraphs; want refused with %q, the loop kept", text, counts, len(res.Subgraphs), c.why)
				}
			} else {
				// The loop's subgraphs go, and so do the weight variables
				// the fused operator no longer reads, with the CALL_ONCE
				// that assigned them and its subgraph.
				if res.Report.Fused() != 1 || counts["WHILE"] != 0 || counts["UNIDIRECTIONAL_SEQUENCE_RNN"] != 1 || len(res.Subgraphs) != 1 ||
					counts["CALL_ONCE"]+counts["VAR_HANDLE"]+counts["ASSIGN_VARIABLE"]+counts["READ_VARIABLE"] != 0 {
					t.Fatalf("report:\n%s\nops %v, %d subgraphs", text, counts, len(res.Subgraphs))
				}
				// With one weight float the fused operator runs float (its
				// weights are all int8 or none); with both int8 it runs
				// hybrid over the loop's own int8 values and scales.
				if floatOp := c.v.hybrid && !c.v.hybridAll; floatOp != strings.Contains(text, "hybrid loop fused as float: the fused operator's smallest weight (4 elements") {
					t.Errorf("report does not say the hybrid loop runs float:\n%s", text)
				}
				if c.v.hybridAll != strings.Contains(text, "the fused operator's weights are the loop's int8 weights with their scales") {
					t.Errorf("report does not say the fused operator keeps the loop's int8 weights:\n%s", text)
				}
				if c.v.backwards != strings.Contains(text, "go_backwards") {
					t.Errorf("report does not say go_backwards is %v:\n%s", c.v.backwards, text)
				}
			}
			if c.v.vars == varsUnset {
				// Neither runs: TensorFlow Lite refuses to read a
				// variable nothing assigned.
				if _, err := runFloat(res.Model, 1); err == nil || !strings.Contains(err.Error(), "before anything assigns it") {
					t.Errorf("converted model runs, or fails otherwise: %v", err)
				}
				return
			}
			if c.v.flex {
				// The Flex form fuses to what the builtins form does.
				plain, err := ConvertTFLite(rnnLoopModel(loopModel{vars: c.v.vars}), Options{})
				if err != nil {
					t.Fatal(err)
				}
				model = plain.Model
			}
			diff, err := compareModels(model, res.Model, 5)
			if err != nil {
				t.Fatal(err)
			}
			// A hybrid loop quantises x to int8 (scale max|x|/127 < 1/127)
			// at each step, the float operator does not: they differ by
			// about that step times the weights.
			tol := 1e-5
			if c.v.hybrid && !c.v.hybridAll {
				tol = 2e-2
			}
			t.Logf("max |loop - converted| %g", diff)
			if c.why != "" && diff != 0 || diff > tol {
				t.Errorf("max |loop - converted| %g", diff)
			}
		})
	}
}
