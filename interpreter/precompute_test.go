package interpreter

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
	"github.com/tflrun/tflrun/schema"
)

// This file tests precomputed tensors: a DEQUANTIZE of a constant runs
// once at AllocateTensors (its output kept outside the arena), as TFLite's
// dequantize kernel does with a kTfLiteArenaRwPersistent output.

// halfBitsExact encodes f as IEEE binary16, failing the test unless f is a
// normal half value (or zero) that converts exactly.
func halfBitsExact(t testing.TB, f float32) uint16 {
	t.Helper()
	if f == 0 {
		return 0
	}
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	if exp <= 0 || exp >= 31 || man&0x1fff != 0 {
		t.Fatalf("%v is not an exact normal float16", f)
	}
	return sign | uint16(exp)<<10 | uint16(man>>13)
}

func f16bytes(t testing.TB, v ...float32) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], halfBitsExact(t, x))
	}
	return out
}

// Weights of dequantModel, all exact in float16.
var (
	dqW1 = []float32{0.5, -0.25, 1.5, 0.125, -1, 0.75, 0.375, -0.5, 2, -0.125, 0.25, 1}
	dqB1 = []float32{0.5, -1.5, 0.0625}
	dqW2 = []float32{1, -0.5, 0.25, -2, 0.75, 1.25}
)

// dequantModel describes a float model with float16 weights, as TFLite's
// float16 quantisation writes it: input [1,4] → FULLY_CONNECTED (weights
// DEQUANTIZE(float16 [3,4]), bias DEQUANTIZE(float16 [3]), RELU) → [1,3] →
// FULLY_CONNECTED (weights DEQUANTIZE(float16 [2,3]), no bias) → output
// [1,2]. With customDequantize the three DEQUANTIZE operators are the
// custom operator "PerInvokeDequantize" instead, which the interpreter
// does not precompute: the per-Invoke reference.
//
//	tensor 0 input, 1/3/6 float16 constants, 2/4/7 their float32
//	dequantized forms, 5 hidden, 8 output
//	operators: 0 DEQUANTIZE 1→2, 1 DEQUANTIZE 3→4, 2 FC, 3 DEQUANTIZE 6→7, 4 FC
func dequantModel(t testing.TB, customDequantize bool) *schema.ModelT {
	deq := &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorDEQUANTIZE, DeprecatedBuiltinCode: 6, Version: 3}
	if customDequantize {
		deq = &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorCUSTOM, DeprecatedBuiltinCode: 32, CustomCode: "PerInvokeDequantize", Version: 1}
	}
	fcOpts := func(act schema.ActivationFunctionType) *schema.BuiltinOptionsT {
		return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{FusedActivationFunction: act}}
	}
	f32, f16 := schema.TensorTypeFLOAT32, schema.TensorTypeFLOAT16
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{deq,
			{BuiltinCode: schema.BuiltinOperatorFULLY_CONNECTED, DeprecatedBuiltinCode: 9, Version: 1}},
		Buffers: []*schema.BufferT{{}, {Data: f16bytes(t, dqW1...)}, {Data: f16bytes(t, dqB1...)}, {Data: f16bytes(t, dqW2...)}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "input", Shape: []int32{1, 4}, ShapeSignature: []int32{-1, 4}, Type: f32},
				{Name: "w1_f16", Shape: []int32{3, 4}, Type: f16, Buffer: 1},
				{Name: "w1", Shape: []int32{3, 4}, Type: f32},
				{Name: "b1_f16", Shape: []int32{3}, Type: f16, Buffer: 2},
				{Name: "b1", Shape: []int32{3}, Type: f32},
				{Name: "hidden", Shape: []int32{1, 3}, Type: f32},
				{Name: "w2_f16", Shape: []int32{2, 3}, Type: f16, Buffer: 3},
				{Name: "w2", Shape: []int32{2, 3}, Type: f32},
				{Name: "output", Shape: []int32{1, 2}, Type: f32},
			},
			Inputs:  []int32{0},
			Outputs: []int32{8},
			Operators: []*schema.OperatorT{
				{OpcodeIndex: 0, Inputs: []int32{1}, Outputs: []int32{2}},
				{OpcodeIndex: 0, Inputs: []int32{3}, Outputs: []int32{4}},
				{OpcodeIndex: 1, Inputs: []int32{0, 2, 4}, Outputs: []int32{5}, BuiltinOptions: fcOpts(schema.ActivationFunctionTypeRELU)},
				{OpcodeIndex: 0, Inputs: []int32{6}, Outputs: []int32{7}},
				{OpcodeIndex: 1, Inputs: []int32{5, 7, -1}, Outputs: []int32{8}, BuiltinOptions: fcOpts(schema.ActivationFunctionTypeNONE)},
			},
		}},
	}
}

// dequantWant is dequantModel's output row for one input row, in float64.
func dequantWant(x []float32) [2]float64 {
	var h [3]float64
	for r := range h {
		s := float64(dqB1[r])
		for c := 0; c < 4; c++ {
			s += float64(dqW1[r*4+c]) * float64(x[c])
		}
		h[r] = max(s, 0)
	}
	var y [2]float64
	for r := range y {
		for c := 0; c < 3; c++ {
			y[r] += float64(dqW2[r*3+c]) * h[c]
		}
	}
	return y
}

// countingKernel counts the Eval calls of the kernel it wraps.
type countingKernel struct {
	ops.Kernel
	evals *int
}

func (k *countingKernel) Eval(n *ops.Node) error {
	*k.evals++
	return k.Kernel.Eval(n)
}

// newDequantPair returns an interpreter of dequantModel whose DEQUANTIZE
// operators are precomputed and one of the per-Invoke variant, both with
// tflrun's DEQUANTIZE kernel wrapped to count its Evals.
func newDequantPair(t *testing.T) (once, perInvoke *Interpreter, onceEvals, perInvokeEvals *int) {
	t.Helper()
	onceEvals, perInvokeEvals = new(int), new(int)
	r := DefaultResolver()
	r.AddBuiltin(ops.OpDequantize, 1, 6, func() ops.Kernel { return &countingKernel{builtin.NewDequantize(), onceEvals} })
	once, err := New(mustLoad(t, dequantModel(t, false)), &Options{Resolver: r})
	if err != nil {
		t.Fatal(err)
	}
	r2 := DefaultResolver()
	r2.AddCustom("PerInvokeDequantize", func() ops.Kernel { return &countingKernel{builtin.NewDequantize(), perInvokeEvals} })
	perInvoke, err = New(mustLoad(t, dequantModel(t, true)), &Options{Resolver: r2})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []*Interpreter{once, perInvoke} {
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
	}
	return once, perInvoke, onceEvals, perInvokeEvals
}

// runBoth writes the same input to both interpreters, invokes them and
// demands bit-identical outputs close to the float64 reference.
func runBoth(t *testing.T, once, perInvoke *Interpreter, x []float32) {
	t.Helper()
	for _, it := range []*Interpreter{once, perInvoke} {
		if err := it.Input(0).CopyFrom(x); err != nil {
			t.Fatal(err)
		}
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
	}
	got, ref := once.Output(0).Float32s(), perInvoke.Output(0).Float32s()
	if len(got) != 2*len(x)/4 || len(ref) != len(got) {
		t.Fatalf("output lengths %d and %d for %d input rows", len(got), len(ref), len(x)/4)
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(ref[i]) {
			t.Fatalf("output %d: precomputed %v, per-Invoke %v", i, got[i], ref[i])
		}
		want := dequantWant(x[i/2*4:])[i%2]
		if math.Abs(float64(got[i])-want) > 1e-5 {
			t.Fatalf("output %d: %v, want %v", i, got[i], want)
		}
	}
}

func TestPrecomputedDequantize(t *testing.T) {
	once, perInvoke, onceEvals, perInvokeEvals := newDequantPair(t)
	if *onceEvals != 3 || *perInvokeEvals != 0 {
		t.Fatalf("Evals at AllocateTensors: %d precomputed (want 3), %d per-Invoke (want 0)", *onceEvals, *perInvokeEvals)
	}
	for _, ti := range []int{2, 4, 7} {
		if k := once.Tensor(ti).Kind; k != ops.PrecomputedTensor {
			t.Fatalf("tensor %d kind %v, want precomputed", ti, k)
		}
		if k := perInvoke.Tensor(ti).Kind; k != ops.ArenaTensor {
			t.Fatalf("per-Invoke model: tensor %d kind %v, want arena", ti, k)
		}
	}
	// The dequantized weights are there before the first Invoke.
	for ti, want := range map[int][]float32{2: dqW1, 4: dqB1, 7: dqW2} {
		if got := once.Tensor(ti).Float32s(); !equalF32(got, want) {
			t.Fatalf("tensor %d after AllocateTensors: %v, want %v", ti, got, want)
		}
	}
	// 48, 12 and 24 bytes, each rounded up to 64.
	if got := once.PrecomputedBytes(); got != 3*64 {
		t.Errorf("PrecomputedBytes %d, want %d", got, 3*64)
	}
	if perInvoke.PrecomputedBytes() != 0 {
		t.Errorf("per-Invoke model: PrecomputedBytes %d, want 0", perInvoke.PrecomputedBytes())
	}
	if once.ArenaBytes() >= perInvoke.ArenaBytes() {
		t.Errorf("arena %d bytes with precomputed weights, %d without: want smaller", once.ArenaBytes(), perInvoke.ArenaBytes())
	}

	for run := range 4 {
		x := []float32{float32(run) - 1.5, 0.3, -0.7 * float32(run), 1.1}
		runBoth(t, once, perInvoke, x)
	}
	if *onceEvals != 3 || *perInvokeEvals != 12 {
		t.Fatalf("Evals after 4 invokes: %d precomputed (want 3), %d per-Invoke (want 12)", *onceEvals, *perInvokeEvals)
	}

	// Resize: a new plan, the weights computed once more.
	for _, it := range []*Interpreter{once, perInvoke} {
		if err := it.ResizeInputTensor(0, []int{3, 4}); err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
	}
	if *onceEvals != 6 {
		t.Fatalf("Evals after the re-plan: %d, want 6", *onceEvals)
	}
	for run := range 3 {
		x := make([]float32, 12)
		for i := range x {
			x[i] = float32((i*7+run*5)%11)/4 - 1.2
		}
		runBoth(t, once, perInvoke, x)
	}
	if *onceEvals != 6 {
		t.Fatalf("Evals after invokes of the new plan: %d, want 6", *onceEvals)
	}
	if a := testing.AllocsPerRun(20, func() { _ = once.Invoke() }); a != 0 {
		t.Errorf("Invoke allocates %v times per run", a)
	}
	if *onceEvals != 6 {
		t.Fatalf("Evals after the allocation runs: %d, want 6", *onceEvals)
	}
}

func TestPrecomputedDequantizeProfile(t *testing.T) {
	once, _, onceEvals, _ := newDequantPair(t)
	once.SetProfiling(true)
	for range 3 {
		if err := once.Invoke(); err != nil {
			t.Fatal(err)
		}
	}
	if *onceEvals != 3 {
		t.Fatalf("Evals with profiling: %d, want 3", *onceEvals)
	}
	p := once.Profile()
	if len(p) != 5 {
		t.Fatalf("%d profile entries, want 5", len(p))
	}
	for k, op := range p {
		pre := op.Name == "DEQUANTIZE"
		if op.Precomputed != pre || op.Count != 3 {
			t.Errorf("operator %d %s: precomputed %v, count %d; want %v, 3", k, op.Name, op.Precomputed, op.Count, pre)
		}
		if pre && op.Total != 0 {
			t.Errorf("operator %d DEQUANTIZE: %v per-Invoke time, want 0", k, op.Total)
		}
	}
	if a := testing.AllocsPerRun(5, func() { _ = once.Invoke() }); a != 0 {
		t.Errorf("profiled Invoke allocates %v times per run", a)
	}
}

func TestPrecomputedDequantizeMemoryLimit(t *testing.T) {
	once, _, _, _ := newDequantPair(t)
	// Everything the interpreter commits counts: its lists, the kernels'
	// state, the precomputed tensors, the arena and the variables.
	need := once.budget.Used()
	if min := int64(once.ArenaBytes() + once.VariableBytes() + once.PrecomputedBytes()); need < min {
		t.Fatalf("committed %d bytes, less than the arena, variables and precomputed tensors (%d)", need, min)
	}
	if _, err := newAllocated(once.Model(), need); err != nil {
		t.Fatalf("limit %d (exactly the need): %v", need, err)
	}
	// Every smaller limit is refused with a MemoryError; one of them at
	// the precomputed tensor.
	sawPre := false
	for limit := need - 1; limit > once.baseBytes; limit -= 8 {
		_, err := newAllocated(once.Model(), limit)
		var me *ops.MemoryError
		if !errors.As(err, &me) {
			t.Fatalf("limit %d below the %d-byte need: got %v, want an *ops.MemoryError", limit, need, err)
		}
		sawPre = sawPre || strings.Contains(err.Error(), "precomputed tensors (192 bytes")
	}
	if !sawPre {
		t.Error("no limit was refused at the precomputed tensor (192 bytes)")
	}
}

// newAllocated makes an interpreter of m with memory bound limit and
// allocates its tensors.
func newAllocated(m *Model, limit int64) (*Interpreter, error) {
	it, err := New(m, &Options{MaxArenaBytes: limit})
	if err != nil {
		return nil, err
	}
	return it, it.AllocateTensors()
}

// TestPrecomputedDequantizeNotApplied: a DEQUANTIZE output the user
// writes (a subgraph input) or that another operator also writes would
// have to stay an arena tensor computed at every Invoke; the loader
// refuses both graphs (a tensor has one producer), so precomputable never
// sees them.
func TestPrecomputedDequantizeNotApplied(t *testing.T) {
	cases := []struct {
		name string
		edit func(m *schema.ModelT)
		want string
	}{
		{"output is a subgraph input", func(m *schema.ModelT) { m.Subgraphs[0].Inputs = []int32{0, 7} },
			`operator 3 (DEQUANTIZE): output 0 (tensor 7 "w2") is also a graph input`},
		{"output written twice", func(m *schema.ModelT) {
			sg := m.Subgraphs[0]
			// w1 is written by operator 0 and again by a copy of it.
			sg.Operators = append(sg.Operators[:1:1], append([]*schema.OperatorT{{OpcodeIndex: 0, Inputs: []int32{1}, Outputs: []int32{2}}}, sg.Operators[1:]...)...)
		}, `operator 1 (DEQUANTIZE): output 0 (tensor 2 "w1") is also written by operator 0 (DEQUANTIZE)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := dequantModel(t, false)
			c.edit(m)
			_, err := LoadBytes(pack(m))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("LoadBytes: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// prepareProbe records, at Prepare, what the kernel it wraps sees of its
// input 1 (the weights): whether it is constant (ops.Tensor.IsConstant)
// and its values.
type prepareProbe struct {
	ops.Kernel
	constant *[]bool
	values   *[][]float32
}

func (k *prepareProbe) Prepare(n *ops.Node) error {
	w := n.Inputs[1]
	*k.constant = append(*k.constant, w.IsConstant())
	var v []float32
	if w.IsConstant() {
		v = append(v, w.Float32s()[:w.NumElements()]...)
	}
	*k.values = append(*k.values, v)
	return k.Kernel.Prepare(n)
}

// TestPrecomputedBeforeConsumersPrepare: a precomputed DEQUANTIZE output
// is filled before the operators that read it are prepared, so their
// Prepare sees a constant holding the dequantized weights (what lets the
// LSTM and GRU kernels pack float16 weights); after a resize and a new
// AllocateTensors too.
func TestPrecomputedBeforeConsumersPrepare(t *testing.T) {
	var constant []bool
	var values [][]float32
	r := DefaultResolver()
	r.AddBuiltin(ops.OpFullyConnected, 1, 1, func() ops.Kernel {
		return &prepareProbe{builtin.NewFullyConnected(), &constant, &values}
	})
	it, err := New(mustLoad(t, dequantModel(t, false)), &Options{Resolver: r})
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		constant, values = nil, nil
		if round == 1 {
			if err := it.ResizeInputTensor(0, []int{3, 4}); err != nil {
				t.Fatal(err)
			}
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		if len(constant) != 2 || !constant[0] || !constant[1] {
			t.Fatalf("round %d: the FULLY_CONNECTED operators saw constant weights %v, want [true true]", round, constant)
		}
		for i, want := range [][]float32{dqW1, dqW2} {
			if len(values[i]) != len(want) {
				t.Fatalf("round %d: FULLY_CONNECTED %d saw %d weights, want %d", round, i, len(values[i]), len(want))
			}
			for j := range want {
				if values[i][j] != want[j] {
					t.Fatalf("round %d: FULLY_CONNECTED %d weight %d = %v at Prepare, want %v", round, i, j, values[i][j], want[j])
				}
			}
		}
	}
	// The per-Invoke variant: the weights are activations at Prepare.
	constant, values = nil, nil
	r2 := DefaultResolver()
	r2.AddBuiltin(ops.OpFullyConnected, 1, 1, func() ops.Kernel {
		return &prepareProbe{builtin.NewFullyConnected(), &constant, &values}
	})
	r2.AddCustom("PerInvokeDequantize", builtin.NewDequantize)
	per, err := New(mustLoad(t, dequantModel(t, true)), &Options{Resolver: r2})
	if err != nil {
		t.Fatal(err)
	}
	if err := per.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if len(constant) != 2 || constant[0] || constant[1] {
		t.Fatalf("per-Invoke DEQUANTIZE: the FULLY_CONNECTED operators saw constant weights %v, want [false false]", constant)
	}
}

// TestPrecomputedDensifyDequantize covers sparse float16 weights, as
// MediaPipe's models store them: DENSIFY of a constant, then DEQUANTIZE,
// then FULLY_CONNECTED. Both are computed once at AllocateTensors (TFLite's
// densify.cc keeps its output; the DEQUANTIZE of it gives the same values
// at every Invoke), and the output is what the dense weights give.
func TestPrecomputedDensifyDequantize(t *testing.T) {
	f32, f16 := schema.TensorTypeFLOAT32, schema.TensorTypeFLOAT16
	// The weights of sparseModel (3×4, D0S1): rows 6 0 9 8 / 0 0 0 0 / 5 0 0 7.
	m := &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: schema.BuiltinOperatorDENSIFY, DeprecatedBuiltinCode: 124, Version: 1},
			{BuiltinCode: schema.BuiltinOperatorDEQUANTIZE, DeprecatedBuiltinCode: 6, Version: 3},
			{BuiltinCode: schema.BuiltinOperatorFULLY_CONNECTED, DeprecatedBuiltinCode: 9, Version: 1},
		},
		Buffers: []*schema.BufferT{{}, {Data: f16bytes(t, 6, 9, 8, 5, 7)}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "input", Shape: []int32{1, 4}, Type: f32},
				{Name: "w_sparse_f16", Shape: []int32{3, 4}, Type: f16, Buffer: 1, Sparsity: sparseModel().Subgraphs[0].Tensors[0].Sparsity},
				{Name: "w_f16", Shape: []int32{3, 4}, Type: f16},
				{Name: "w", Shape: []int32{3, 4}, Type: f32},
				{Name: "output", Shape: []int32{1, 3}, Type: f32},
			},
			Inputs:  []int32{0},
			Outputs: []int32{4},
			Operators: []*schema.OperatorT{
				{OpcodeIndex: 0, Inputs: []int32{1}, Outputs: []int32{2}},
				{OpcodeIndex: 1, Inputs: []int32{2}, Outputs: []int32{3}},
				{OpcodeIndex: 2, Inputs: []int32{0, 3, -1}, Outputs: []int32{4}},
			},
		}},
	}
	densifyEvals, dequantEvals := new(int), new(int)
	r := DefaultResolver()
	r.AddBuiltin(ops.OpDensify, 1, 1, func() ops.Kernel { return &countingKernel{builtin.NewDensify(), densifyEvals} })
	r.AddBuiltin(ops.OpDequantize, 1, 6, func() ops.Kernel { return &countingKernel{builtin.NewDequantize(), dequantEvals} })
	it, err := New(mustLoad(t, m), &Options{Resolver: r})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it.Input(0).Float32s(), []float32{1, 2, 3, 4})
	for range 3 {
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		if got, want := it.Output(0).Float32s(), []float32{6 + 27 + 32, 0, 5 + 28}; !slices.Equal(got, want) {
			t.Fatalf("output %v, want %v", got, want)
		}
	}
	if *densifyEvals != 1 || *dequantEvals != 1 {
		t.Fatalf("DENSIFY ran %d times and DEQUANTIZE %d times over three Invokes, want once each", *densifyEvals, *dequantEvals)
	}
}
