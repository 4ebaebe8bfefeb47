// Package opfuzz builds single-operator models from fuzzer bytes and runs
// them through the whole interpreter (LoadBytes, New, AllocateTensors,
// Invoke), for the fuzz targets of ops/builtin and fused that exercise
// every kernel's Prepare on random option and shape combinations. Any
// error is fine; what fails the target is what the interpreter's guard
// turned into an error (a kernel panic, a memory fault), a run slower
// than a few seconds, or (as a crash) memory beyond the bound.
//
// A model is drawn from a configuration: the first bytes choose the
// operator of the family, then types, ranks, dimensions (small ones, 0,
// and 2^31-1 with another dimension 0 so that the tensor stays empty),
// which inputs are constants, the constant operands (axes, shapes,
// paddings) and the options fields. Past the configuration's end every
// draw is 0, so a short configuration is a valid, plain model.
package opfuzz

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Bound is the memory bound the models run under: small, so that a
// kernel allocating outside it shows as a crash of the fuzzer rather
// than a slow swap.
const Bound = 16 << 20

// Slow is the time one model may take end to end.
const Slow = 5 * time.Second

// Draw yields small numbers from the fuzzer's configuration bytes; past
// their end it yields zeros.
type Draw struct {
	b []byte
	i int
}

// NewDraw returns a Draw over cfg.
func NewDraw(cfg []byte) *Draw { return &Draw{b: cfg} }

// N returns a value in [0, n).
func (d *Draw) N(n int) int {
	if d.i >= len(d.b) || n <= 1 {
		d.i++
		return 0
	}
	v := int(d.b[d.i]) % n
	d.i++
	return v
}

// Flag returns a boolean, false past the end.
func (d *Draw) Flag() bool { return d.N(2) == 1 }

// Rare returns true about once in n draws (never past the end).
func (d *Draw) Rare(n int) bool { return d.N(n) == n-1 }

// Pick returns one of vs (the first past the end).
func Pick[T any](d *Draw, vs ...T) T { return vs[d.N(len(vs))] }

// Dim draws a dimension: mostly 1-5, sometimes 0, 7, 16 or 2^31-1.
func (d *Draw) Dim() int32 {
	if d.Rare(6) {
		return Pick(d, int32(0), 7, 16, math.MaxInt32)
	}
	return Pick(d, int32(1), 2, 3, 4, 5, 1)
}

// Shape draws a shape of the given rank.
func (d *Draw) Shape(rank int) []int32 {
	s := make([]int32, rank)
	for i := range s {
		s[i] = d.Dim()
	}
	return s
}

// Int draws a small signed operand value: mostly in [-2, 4], sometimes
// an extreme.
func (d *Draw) Int() int32 {
	if d.Rare(8) {
		return Pick(d, int32(math.MaxInt32), math.MinInt32, 1<<16, -1<<16)
	}
	return Pick(d, int32(0), 1, 2, -1, 3, -2, 4)
}

// Ints draws n operand values.
func (d *Draw) Ints(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = d.Int()
	}
	return v
}

// Activation draws a fused activation (sometimes an invalid one).
func (d *Draw) Activation() schema.ActivationFunctionType {
	if d.Rare(10) {
		return schema.ActivationFunctionType(d.N(128))
	}
	return Pick(d, schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6,
		schema.ActivationFunctionTypeRELU_N1_TO_1, schema.ActivationFunctionTypeTANH)
}

// Stride draws a stride or dilation: mostly 1 or 2, sometimes 0, -1 or
// huge.
func (d *Draw) Stride() int32 {
	if d.Rare(8) {
		return Pick(d, int32(0), -1, math.MaxInt32, 3)
	}
	return Pick(d, int32(1), 2)
}

// Elements is the element count of shape, saturated at MaxInt64; -1
// when a dimension is negative.
func Elements(shape []int32) int64 {
	n := int64(1)
	for _, v := range shape {
		if v < 0 {
			return -1
		}
		if v == 0 {
			n = 0
		}
	}
	for _, v := range shape {
		if n == 0 {
			break
		}
		if n > math.MaxInt64/int64(v) {
			return math.MaxInt64
		}
		n *= int64(v)
	}
	return n
}

// maxConstElements bounds the data of a drawn constant: a constant whose
// shape needs more gets a 0 dimension instead (an empty constant, which
// a hostile file can declare at any size).
const maxConstElements = 4096

// Model is a single-operator model under construction.
type Model struct {
	B    *optest.Builder
	D    *Draw
	seed uint64
	ins  []int32
}

// NewModel starts a model drawn from cfg; seed fills constants.
func NewModel(cfg []byte, seed uint64) *Model {
	return &Model{B: optest.NewBuilder(), D: NewDraw(cfg), seed: seed}
}

func (m *Model) rand() uint64 {
	m.seed = m.seed*6364136223846793005 + 1442695040888963407
	return m.seed >> 17
}

// Quant draws the quantisation of a tensor of type typ (nil for float
// and boolean types); channels > 1 draws per-channel parameters along
// dim sometimes.
func (m *Model) Quant(typ schema.TensorType, channels int32, dim int32) *optest.Quant {
	switch typ {
	case schema.TensorTypeINT8, schema.TensorTypeUINT8, schema.TensorTypeINT16, schema.TensorTypeINT32:
	default:
		return nil
	}
	d := m.D
	if d.Rare(12) {
		return nil
	}
	scale := Pick(d, float32(0.5), 1.0/128, 0.02, 1e-6, 3)
	if d.Rare(16) {
		scale = Pick(d, float32(0), -1, float32(math.NaN()), float32(math.Inf(1)), 1e-38)
	}
	zp := int64(0)
	if typ == schema.TensorTypeUINT8 {
		zp = Pick(d, int64(128), 0, 255)
	} else if typ == schema.TensorTypeINT8 && d.Flag() {
		zp = Pick(d, int64(-128), 1, 127)
	}
	if channels > 1 && channels <= 64 && d.Rare(3) {
		q := &optest.Quant{Dim: dim}
		for c := int32(0); c < channels; c++ {
			q.Scale = append(q.Scale, scale*float32(1+c%3))
			q.ZeroPoint = append(q.ZeroPoint, 0)
		}
		return q
	}
	return optest.PerTensor(scale, zp)
}

// typeSize is the byte size of a tensor element (0 for strings).
func typeSize(typ schema.TensorType) int {
	return ops.DataType(typ).Size()
}

// Const adds a constant of type typ and shape (made empty when too
// large) filled from the seed, and returns its index.
func (m *Model) Const(name string, typ schema.TensorType, shape []int32, q *optest.Quant) int32 {
	if n := Elements(shape); n > maxConstElements {
		shape = append([]int32(nil), shape...)
		shape[m.D.N(len(shape))] = 0
	}
	// A negative dimension (an overflowed product of drawn sizes) is
	// the loader's to refuse; such a constant gets no data.
	n := int(max(Elements(shape), 0))
	size := typeSize(typ)
	if size == 0 {
		size = 1
	}
	if typ == schema.TensorTypeINT4 {
		n = (n + 1) / 2 // two to a byte
	}
	data := make([]byte, n*size)
	for i := range data {
		data[i] = byte(m.rand())
	}
	if typ == schema.TensorTypeBOOL {
		for i := range data {
			data[i] &= 1
		}
	}
	if typ == schema.TensorTypeFLOAT32 {
		for i := 0; i+4 <= len(data); i += 4 {
			binary.LittleEndian.PutUint32(data[i:], math.Float32bits(float32(int8(data[i]))/16))
		}
	}
	return m.B.Const(name, typ, shape, q, data)
}

// IntConst adds an int32 constant vector (an axis, shape or padding
// operand).
func (m *Model) IntConst(name string, shape []int32, v []int32) int32 {
	if int64(len(v)) != Elements(shape) {
		shape = []int32{int32(len(v))}
	}
	return m.B.Const(name, schema.TensorTypeINT32, shape, nil, optest.I32(v...))
}

// Input adds a graph input and returns its index.
func (m *Model) Input(name string, typ schema.TensorType, shape []int32, q *optest.Quant) int32 {
	i := m.B.Tensor(name, typ, shape, q)
	m.ins = append(m.ins, i)
	return i
}

// Data adds an operand that is a graph input or (sometimes, or always
// when constant is set) a constant.
func (m *Model) Data(name string, typ schema.TensorType, shape []int32, q *optest.Quant, constant bool) int32 {
	if constant || m.D.Rare(4) {
		return m.Const(name, typ, shape, q)
	}
	return m.Input(name, typ, shape, q)
}

// Output adds an output tensor of type typ with no declared shape (the
// kernel's Prepare sets it).
func (m *Model) Output(name string, typ schema.TensorType, q *optest.Quant) int32 {
	return m.B.Tensor(name, typ, nil, q)
}

// Op appends the operator and finishes the model: its graph inputs are
// the inputs added, its outputs outs.
func (m *Model) Op(code schema.BuiltinOperator, version int32, ins, outs []int32, opts *schema.BuiltinOptionsT) []byte {
	m.B.Op(code, version, ins, outs, opts)
	m.B.Inputs(m.ins...)
	m.B.Outputs(outs...)
	return m.B.Bytes()
}

// Check runs model through the interpreter: any error is fine, except
// what the guard reports (a kernel panic or a memory fault), and the run
// must finish within Slow.
func Check(t *testing.T, model []byte, seed uint64) {
	t.Helper()
	start := time.Now()
	err := run(model, seed)
	if errors.Is(err, interpreter.ErrPanic) || errors.Is(err, interpreter.ErrMemoryFault) {
		t.Fatalf("the interpreter caught: %v", err)
	}
	if d := time.Since(start); d > Slow {
		t.Fatalf("the model took %v (error: %v)", d, err)
	}
}

func run(model []byte, seed uint64) error {
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		return err
	}
	it, err := interpreter.New(m, &interpreter.Options{MaxArenaBytes: Bound})
	if err != nil {
		return err
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		return err
	}
	r := seed | 1
	for i := 0; i < it.InputCount(); i++ {
		in := it.Input(i)
		for j := range in.Data {
			r ^= r << 13
			r ^= r >> 7
			r ^= r << 17
			in.Data[j] = byte(r)
		}
		switch in.Type {
		case ops.Bool:
			for j := range in.Data {
				in.Data[j] &= 1
			}
		case ops.Float32:
			f := in.Float32s()
			for j := range f {
				f[j] = float32(int8(r>>uint(j%56))) / 8
			}
		}
	}
	if err := it.Invoke(); err != nil {
		return err
	}
	return it.Invoke() // state and scratch reuse
}
