package convert

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/schema"
)

// gatedLoopModel builds what TensorFlow ≥ 2.16 writes for a Keras 3
// LSTM(3) or GRU(3) (reset_after) over [1, 5, 2] returning the last
// output: a builtins-only WHILE over (counter, time, a one-item output
// list, the state(s), the time-major sequence) whose body reads the step
// with GATHER, computes the gates with FULLY_CONNECTED over all gates
// at once, SPLIT, LOGISTIC and TANH, and writes the list as a RESHAPE of h.
func gatedLoopModel(gru bool) []byte {
	const T, F, U = 5, 2, 3
	m := &schema.ModelT{Version: 3, Buffers: []*schema.BufferT{{}}}
	main := &sgBuilder{m, &schema.SubGraphT{Name: "main"}}
	m.Subgraphs = []*schema.SubGraphT{main.sg}
	in := main.tensor("input", schema.TensorTypeFLOAT32, []int32{1, T, F}, nil)
	main.sg.Inputs = []int32{in}
	seq := main.tensor("transpose", schema.TensorTypeFLOAT32, []int32{T, 1, F}, nil)
	main.op(schema.BuiltinOperatorTRANSPOSE, nil, []int32{in, main.i32("perm", []int32{3}, 1, 0, 2)}, seq)
	list := addGatedLoop(main, seq, gru, "", 0)
	out := main.tensor("output", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
	main.op(schema.BuiltinOperatorRESHAPE, nil, []int32{list, main.i32("shape", []int32{2}, 1, U)}, out)
	main.sg.Outputs = []int32{out}
	return tflite.Pack(m)
}

// addGatedLoop adds to main (subgraph 0 of its model) the WHILE loop
// gatedLoopModel describes over the time-major sequence seq [5, 1, 2],
// its condition and body appended to the model's subgraphs, named with
// prefix, weights drawn from seeds offset by seed. It returns the loop's
// one-item output list [1, 1, 3] (the last step's h).
func addGatedLoop(main *sgBuilder, seq int32, gru bool, prefix string, seed uint32) int32 {
	const T, F, U = 5, 2, 3
	G := 4 // gates: i, f, c, o (Keras's order)
	if gru {
		G = 3 // z, r, h
	}
	m := main.m
	zero := main.i32(prefix+"time", []int32{}, 0)
	list := main.f32(prefix+"list", []int32{1, 1, U}, make([]float32, U))
	loopIn := []int32{zero, zero, list, main.f32(prefix+"h0", []int32{1, U}, make([]float32, U))}
	types := [][]int32{{}, {}, {1, 1, U}, {1, U}}
	if !gru {
		loopIn = append(loopIn, main.f32(prefix+"c0", []int32{1, U}, make([]float32, U)))
		types = append(types, []int32{1, U})
	}
	loopIn = append(loopIn, seq)
	types = append(types, []int32{T, 1, F})
	tensorType := func(i int) schema.TensorType {
		if i < 2 {
			return schema.TensorTypeINT32
		}
		return schema.TensorTypeFLOAT32
	}
	var wout []int32
	for i := range loopIn {
		wout = append(wout, main.tensor(prefix+"while"+string(rune('0'+i)), tensorType(i), types[i], nil))
	}
	condIdx := int32(len(m.Subgraphs))
	main.op(schema.BuiltinOperatorWHILE, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsWhileOptions,
		Value: &schema.WhileOptionsT{CondSubgraphIndex: condIdx, BodySubgraphIndex: condIdx + 1}}, loopIn, wout...)

	params := func(b *sgBuilder) []int32 {
		var p []int32
		for i := range loopIn {
			p = append(p, b.tensor("arg"+string(rune('0'+i)), tensorType(i), types[i], nil))
		}
		return p
	}
	cond := &sgBuilder{m, &schema.SubGraphT{Name: prefix + "while_cond"}}
	cp := params(cond)
	less := cond.tensor("less", schema.TensorTypeBOOL, []int32{}, nil)
	cond.op(schema.BuiltinOperatorLESS, nil, []int32{cp[1], cond.i32("steps", []int32{}, T)}, less)
	cond.sg.Inputs, cond.sg.Outputs = cp, []int32{less}

	b := &sgBuilder{m, &schema.SubGraphT{Name: prefix + "while_body"}}
	bp := params(b)
	hPrev, xs := bp[3], bp[len(bp)-1]
	vec := func(name string) int32 { return b.tensor(name, schema.TensorTypeFLOAT32, []int32{1, U}, nil) }
	one := b.i32("one", []int32{}, 1)
	add := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}}
	mul := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}
	binary := func(code schema.BuiltinOperator, opts *schema.BuiltinOptionsT, name string, x, y int32) int32 {
		o := vec(name)
		b.op(code, opts, []int32{x, y}, o)
		return o
	}
	unary := func(code schema.BuiltinOperator, name string, x int32) int32 {
		o := vec(name)
		b.op(code, nil, []int32{x}, o)
		return o
	}
	c1 := b.tensor("add_c", schema.TensorTypeINT32, []int32{}, nil)
	b.op(schema.BuiltinOperatorADD, add, []int32{bp[0], one}, c1)
	t1 := b.tensor("add_t", schema.TensorTypeINT32, []int32{}, nil)
	b.op(schema.BuiltinOperatorADD, add, []int32{bp[1], one}, t1)
	x := b.tensor("x", schema.TensorTypeFLOAT32, []int32{1, F}, nil)
	b.op(schema.BuiltinOperatorGATHER, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsGatherOptions, Value: &schema.GatherOptionsT{}}, []int32{xs, bp[1]}, x)
	fc := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}}
	gates := func(name string, v int32, n int32, bias int32, sd uint32) int32 {
		o := b.tensor(name, schema.TensorTypeFLOAT32, []int32{1, int32(G) * U}, nil)
		b.op(schema.BuiltinOperatorFULLY_CONNECTED, fc, []int32{v, b.f32(name+"/kernel", []int32{int32(G) * U, n}, seeded(G*U*int(n), seed+sd)), bias}, o)
		return o
	}
	split := func(name string, v int32) []int32 {
		var parts []int32
		for k := 0; k < G; k++ {
			parts = append(parts, vec(name+string(rune('0'+k))))
		}
		b.op(schema.BuiltinOperatorSPLIT, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSplitOptions, Value: &schema.SplitOptionsT{NumSplits: int32(G)}},
			[]int32{b.i32("split_axis", []int32{}, 1), v}, parts...)
		return parts
	}
	var h int32
	var outs []int32
	if !gru {
		z := binary(schema.BuiltinOperatorADD, add, "z", gates("xw", x, F, b.f32("bias", []int32{int32(G) * U}, seeded(G*U, seed+5)), 6), gates("hr", hPrev, U, -1, 7))
		p := split("gate", z)
		i := unary(schema.BuiltinOperatorLOGISTIC, "i", p[0])
		f := unary(schema.BuiltinOperatorLOGISTIC, "f", p[1])
		g := unary(schema.BuiltinOperatorTANH, "g", p[2])
		o := unary(schema.BuiltinOperatorLOGISTIC, "o", p[3])
		c := binary(schema.BuiltinOperatorADD, add, "c", binary(schema.BuiltinOperatorMUL, mul, "fc", f, bp[4]), binary(schema.BuiltinOperatorMUL, mul, "ig", i, g))
		h = binary(schema.BuiltinOperatorMUL, mul, "h", o, unary(schema.BuiltinOperatorTANH, "tc", c))
		outs = []int32{h, c}
	} else {
		px := split("xg", gates("xw", x, F, b.f32("bias", []int32{int32(G) * U}, seeded(G*U, seed+5)), 6))
		ph := split("hg", gates("hr", hPrev, U, b.f32("recurrent_bias", []int32{int32(G) * U}, seeded(G*U, seed+8)), 7))
		z := unary(schema.BuiltinOperatorLOGISTIC, "zg", binary(schema.BuiltinOperatorADD, add, "zs", px[0], ph[0]))
		r := unary(schema.BuiltinOperatorLOGISTIC, "rg", binary(schema.BuiltinOperatorADD, add, "rs", px[1], ph[1]))
		hh := unary(schema.BuiltinOperatorTANH, "hh", binary(schema.BuiltinOperatorADD, add, "hs", px[2], binary(schema.BuiltinOperatorMUL, mul, "rh", r, ph[2])))
		// h = z*h + (1 - z)*hh
		oneMinus := binary(schema.BuiltinOperatorSUB, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSubOptions, Value: &schema.SubOptionsT{}},
			"1-z", b.f32("ones", []int32{}, []float32{1}), z)
		h = binary(schema.BuiltinOperatorADD, add, "h", binary(schema.BuiltinOperatorMUL, mul, "zh", z, hPrev), binary(schema.BuiltinOperatorMUL, mul, "zhh", oneMinus, hh))
		outs = []int32{h}
	}
	item := b.tensor("item", schema.TensorTypeFLOAT32, []int32{1, 1, U}, nil)
	b.op(schema.BuiltinOperatorRESHAPE, nil, []int32{h, b.i32("item_shape", []int32{3}, 1, 1, U)}, item)
	b.sg.Inputs = bp
	b.sg.Outputs = append(append([]int32{c1, t1, item}, outs...), xs)
	m.Subgraphs = append(m.Subgraphs, cond.sg, b.sg)
	return wout[2]
}

// TestRefuseBuiltGatedLoops re-fuses LSTM and GRU loops built with the
// schema writer: each becomes one fused operator, its subgraphs gone;
// the model written loads, runs and agrees with the loop within 1e-5.
func TestRefuseBuiltGatedLoops(t *testing.T) {
	for _, c := range []struct {
		name string
		gru  bool
		op   string
	}{{"lstm", false, "UNIDIRECTIONAL_SEQUENCE_LSTM"}, {"gru", true, "custom.UNIDIRECTIONAL_SEQUENCE_GRU"}} {
		t.Run(c.name, func(t *testing.T) {
			model := gatedLoopModel(c.gru)
			res, err := ConvertTFLite(model, Options{})
			if err != nil {
				t.Fatal(err)
			}
			counts := opCounts(t, res.Model)
			if res.Report.Fused() != 1 || counts["WHILE"] != 0 || counts[c.op] != 1 || len(res.Subgraphs) != 1 {
				t.Fatalf("report:\n%s\nops %v, %d subgraphs", res.Report.Text(), counts, len(res.Subgraphs))
			}
			if !strings.Contains(res.Report.Text(), "5 steps") {
				t.Errorf("report does not give the steps:\n%s", res.Report.Text())
			}
			diff, err := compareModels(model, res.Model, 5)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("max |loop - fused| %g; ops %v", diff, counts)
			if diff > 1e-5 {
				t.Errorf("max |loop - fused| %g", diff)
			}
		})
	}
}
