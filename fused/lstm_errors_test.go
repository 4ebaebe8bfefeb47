package fused

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestLSTMPrepareErrors feeds broken nodes to Prepare: each must give an
// error naming the problem, never a panic.
func TestLSTMPrepareErrors(t *testing.T) {
	base := func() *lstmSpec {
		s := &lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 5, nOut: 5, timeMajor: true, act: ops.ActTanh}
		s.randomize(newTestRand(21))
		return s
	}
	floatNode := func(edit func(n *ops.Node)) *ops.Node {
		s := base()
		n := s.node(s.randomInput(newTestRand(22)))
		edit(n)
		return n
	}
	intNode := func(edit func(n *ops.Node)) *ops.Node {
		s := base()
		n, _, _, _, _ := integerSpecNode(s, s.randomInput(newTestRand(23)))
		edit(n)
		return n
	}
	cases := []struct {
		name string
		node *ops.Node
		want string
	}{
		{"output state not variable", floatNode(func(n *ops.Node) { n.Inputs[18].Kind = ops.ArenaTensor }),
			"input 18 (output_state) is not a variable tensor"},
		{"cell state not variable", floatNode(func(n *ops.Node) { n.Inputs[19].Kind = ops.ConstTensor }),
			"input 19 (cell_state) is not a variable tensor"},
		{"state omitted", floatNode(func(n *ops.Node) { n.Inputs[19] = nil }),
			"input 19 (cell_state) is required"},
		{"state size", floatNode(func(n *ops.Node) { n.Inputs[18] = varTensor(ops.Float32, []int{2, 4}) }),
			"input 18 (output_state) has 8 elements"},
		{"too few inputs", floatNode(func(n *ops.Node) { n.Inputs = n.Inputs[:19] }), "has 19 inputs"},
		{"two outputs", floatNode(func(n *ops.Node) { n.Outputs = append(n.Outputs, &ops.Tensor{}) }), "has 2 outputs"},
		{"rank 2 input", floatNode(func(n *ops.Node) { n.Inputs[0].Shape = []int{6, 4} }), "needs rank 3"},
		{"input size", floatNode(func(n *ops.Node) { n.Inputs[0].Shape = []int{3, 2, 3} }),
			"input 4 (input_to_output_weights) has shape [5 4], needs [n_cell, 3]"},
		{"weight shape", floatNode(func(n *ops.Node) { n.Inputs[2].Shape = []int{5, 3} }),
			"input 2 (input_to_forget_weights) has shape [5 3]"},
		{"missing forget weights", floatNode(func(n *ops.Node) { n.Inputs[2] = nil }),
			"input 2 (input_to_forget_weights) is required"},
		{"half CIFG", floatNode(func(n *ops.Node) { n.Inputs[5] = nil }), "both given or both omitted"},
		{"bias shape", floatNode(func(n *ops.Node) { n.Inputs[13].Shape = []int{4} }),
			"input 13 (forget_gate_bias) has shape [4]"},
		{"half peephole", floatNode(func(n *ops.Node) { n.Inputs[10] = f32([]int{5}, make([]float32, 5)) }),
			"peephole weights"},
		{"projection bias alone", floatNode(func(n *ops.Node) { n.Inputs[17] = f32([]int{5}, make([]float32, 5)) }),
			"needs input 16 (projection_weights)"},
		{"partial layer norm", floatNode(func(n *ops.Node) { n.Inputs[22] = f32([]int{5}, make([]float32, 5)) }),
			"input 22 (cell_layer_norm_coefficients) is given without"},
		{"negative clip", floatNode(func(n *ops.Node) {
			n.Options.(*UnidirectionalSequenceLSTMOptions).CellClip = -1
		}), "cell_clip"},
		{"wrong options", floatNode(func(n *ops.Node) { n.Options = &LSTMOptions{} }), "options are"},
		{"activation none", floatNode(func(n *ops.Node) {
			n.Options.(*UnidirectionalSequenceLSTMOptions).Activation = ops.ActNone
		}), "fused activation NONE"},
		{"mixed float types", floatNode(func(n *ops.Node) {
			n.Inputs[13] = constTensor(ops.Int32, []int{5}, make([]int32, 5))
		}), "input 13 (forget_gate_bias) is int32, the float path needs float32"},
		{"hybrid", floatNode(func(n *ops.Node) {
			n.Inputs[4] = constTensor(ops.Int8, []int{5, 4}, make([]int8, 20))
		}), "hybrid"},
		{"int16 activations", floatNode(func(n *ops.Node) {
			n.Inputs[0] = &ops.Tensor{Type: ops.Int16, Shape: []int{3, 2, 4}}
		}), "int16"},
		{"float output type", floatNode(func(n *ops.Node) { n.Outputs[0].Type = ops.Int8 }), "output 0 is int8"},
		{"diag with projection size", floatNode(func(n *ops.Node) {
			n.Inputs[6] = f32([]int{5}, make([]float32, 5))
			n.Inputs[8] = f32([]int{5, 4}, make([]float32, 20))
			for _, i := range []int{5, 7} {
				n.Inputs[i] = f32([]int{5, 4}, make([]float32, 20))
			}
			n.Inputs[16] = f32([]int{4, 5}, make([]float32, 20))
			n.Inputs[18] = varTensor(ops.Float32, []int{2, 4})
		}), "is diagonal, which needs n_output"},
		{"output size without projection", floatNode(func(n *ops.Node) {
			for _, i := range []int{5, 6, 7, 8} {
				n.Inputs[i] = f32([]int{5, 4}, make([]float32, 20))
			}
			n.Inputs[18] = varTensor(ops.Float32, []int{2, 4})
		}), "without projection"},

		{"integer intermediates", intNode(func(n *ops.Node) { n.Intermediates = n.Intermediates[:4] }),
			"exactly 5 intermediate tensors"},
		{"integer hidden unquantised", intNode(func(n *ops.Node) { n.Intermediates[4].Quant = nil }),
			"intermediate 4 is not quantised"},
		{"integer cell scale not POT", intNode(func(n *ops.Node) { n.Inputs[19].Quant.Scale[0] = 0.0003 }),
			"needs a power of two"},
		{"integer cell scale below 2^-30", intNode(func(n *ops.Node) { n.Inputs[19].Quant.Scale[0] = 1.0 / (1 << 31) }),
			"outside 0..31"},
		{"integer cell scale above 2^1", intNode(func(n *ops.Node) { n.Inputs[19].Quant.Scale[0] = 4 }),
			"outside 0..31"},
		{"integer per-channel", intNode(func(n *ops.Node) {
			n.Inputs[3].Quant.Scale = []float32{0.1, 0.1, 0.1, 0.1, 0.1}
			n.Inputs[3].Quant.ZeroPoint = make([]int64, 5)
		}), "input 3 (input_to_cell_weights) has 5 scales"},
		{"integer weights unquantised", intNode(func(n *ops.Node) { n.Inputs[6].Quant = nil }),
			"input 6 (recurrent_to_forget_weights) is not quantised"},
		{"integer bias type", intNode(func(n *ops.Node) {
			n.Inputs[14] = f32([]int{5}, make([]float32, 5))
		}), "input 14 (cell_gate_bias) is float32, the integer (int8x8_16) path needs int32"},
		{"integer cell state type", intNode(func(n *ops.Node) {
			n.Inputs[19] = quant(varTensor(ops.Int8, []int{2, 5}), 1.0/2048, 0)
		}), "input 19 (cell_state) is int8"},
		{"integer non-constant weights", intNode(func(n *ops.Node) { n.Inputs[2].Kind = ops.ArenaTensor }),
			"input 2 (input_to_forget_weights) must be a constant tensor"},
		{"integer output unquantised", intNode(func(n *ops.Node) { n.Outputs[0].Quant = nil }),
			"output 0 is not quantised"},
		{"integer diagonal", intNode(func(n *ops.Node) {
			n.Inputs[6] = quant(constTensor(ops.Int8, []int{5}, make([]int8, 5)), 0.01, 0)
		}), "TFLite's integer LSTM has no diagonal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := NewUnidirectionalSequenceLSTM()
			err := k.Prepare(c.node)
			if err == nil {
				t.Fatalf("Prepare succeeded, want error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

// TestLSTMEvalErrors: Eval on missing scratch or short tensor data reports
// an error instead of panicking.
func TestLSTMEvalErrors(t *testing.T) {
	s := &lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 5, nOut: 5, timeMajor: true, act: ops.ActTanh}
	s.randomize(newTestRand(31))
	n := s.node(s.randomInput(newTestRand(32)))
	k := NewUnidirectionalSequenceLSTM()
	prepared(t, k, n)

	saved := n.Scratch
	n.Scratch = nil
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "scratch") {
		t.Errorf("Eval without scratch: %v", err)
	}
	n.Scratch = saved

	data := n.Inputs[0].Data
	n.Inputs[0].Data = data[:len(data)-4]
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "input 0 (input)") {
		t.Errorf("Eval with short input: %v", err)
	}
	n.Inputs[0].Data = data

	out := n.Outputs[0].Data
	n.Outputs[0].Data = nil
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "output 0") {
		t.Errorf("Eval without output data: %v", err)
	}
	n.Outputs[0].Data = out
	if err := k.Eval(n); err != nil {
		t.Errorf("Eval after restoring: %v", err)
	}
}

func TestRegisterBuiltins(t *testing.T) {
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for v := 1; v <= 4; v++ {
		reg, err := r.FindBuiltin(ops.OpUnidirectionalSequenceLSTM, v)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if _, ok := reg.New().(*UnidirectionalSequenceLSTM); !ok {
			t.Errorf("version %d: kernel is %T", v, reg.New())
		}
	}
	if _, err := r.FindBuiltin(ops.OpUnidirectionalSequenceLSTM, 5); err == nil {
		t.Error("version 5 (int16x8) should not be registered")
	}
}

// TestLSTMZeroSizes: empty batch or sequence prepares and evaluates.
func TestLSTMZeroSizes(t *testing.T) {
	for _, s := range []lstmSpec{
		{batch: 0, time: 3, nIn: 4, nCell: 5, nOut: 5, act: ops.ActTanh, timeMajor: true},
		{batch: 2, time: 0, nIn: 4, nCell: 5, nOut: 5, act: ops.ActTanh},
	} {
		s.randomize(newTestRand(41))
		n := s.node(nil)
		k := NewUnidirectionalSequenceLSTM()
		prepared(t, k, n)
		if err := k.Eval(n); err != nil {
			t.Errorf("batch %d time %d: %v", s.batch, s.time, err)
		}
	}
}

func TestLSTMEvalBeforePrepare(t *testing.T) {
	s := &lstmSpec{batch: 1, time: 2, nIn: 3, nCell: 4, nOut: 4, timeMajor: true, act: ops.ActTanh}
	s.randomize(newTestRand(51))
	n := s.node(s.randomInput(newTestRand(52)))
	if err := NewUnidirectionalSequenceLSTM().Eval(n); err == nil {
		t.Error("Eval before Prepare succeeded")
	}
}

// TestLSTMHostileShapes perturbs one dimension of one input of valid float
// and integer nodes at a time: Prepare must either refuse or leave a node
// that Eval runs without panicking.
func TestLSTMHostileShapes(t *testing.T) {
	rng := newTestRand(61)
	for trial := 0; trial < 400; trial++ {
		s := &lstmSpec{batch: 2, time: 2, nIn: 3, nCell: 4, nOut: 4, timeMajor: trial%2 == 0, act: ops.ActTanh,
			peephole: trial%3 == 0, layerNorm: trial%5 == 0, cifg: trial%7 == 0}
		s.randomize(rng)
		var n *ops.Node
		if trial%4 < 2 {
			n = s.node(s.randomInput(rng))
		} else {
			n, _, _, _, _ = integerSpecNode(s, s.randomInput(rng))
		}
		i := rng.IntN(len(n.Inputs))
		x := n.Inputs[i]
		if x == nil {
			continue
		}
		shape := append([]int(nil), x.Shape...)
		switch rng.IntN(3) {
		case 0:
			if len(shape) > 0 {
				shape[rng.IntN(len(shape))] += rng.IntN(5) - 2
			}
		case 1:
			shape = append(shape, 1+rng.IntN(2))
		case 2:
			if len(shape) > 0 {
				shape = shape[:len(shape)-1]
			}
		}
		for j := range shape {
			shape[j] = max(shape[j], 0)
		}
		x.Shape = shape
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("trial %d: input %d shape %v: panic %v", trial, i, shape, r)
				}
			}()
			k := NewUnidirectionalSequenceLSTM()
			n.ResetScratch()
			if err := k.Prepare(n); err != nil {
				return
			}
			for _, out := range n.Outputs {
				out.Data = alignedBytes(out.Bytes())
			}
			for _, sz := range n.ScratchSizes() {
				n.Scratch = append(n.Scratch, alignedBytes(sz))
			}
			_ = k.Eval(n) // short data must be reported, not crash
		}()
	}
}
