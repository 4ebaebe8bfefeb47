package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"

	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
)

// DefaultSeed seeds the input fill when Options.Seed is 0 (the ASCII
// bytes of "tflrun").
const DefaultSeed uint64 = 0x74666c72756e

// defaultIntHigh is the inclusive upper bound of 32/64-bit integer inputs
// that do not index a table: benchmark_model fills int32 inputs uniformly
// in [0, 99] unless told a range.
const defaultIntHigh = 99

// InputFill describes how one input was filled.
type InputFill struct {
	Index int          `json:"index"`
	Name  string       `json:"name"`
	Type  ops.DataType `json:"-"`
	// TypeName is Type's name ("float32"), for JSON.
	TypeName string `json:"type"`
	Shape    []int  `json:"shape"`
	// Distribution says what the values are drawn from, e.g. "uniform
	// [-1, 1)" or "uniform [0, 3953) (GATHER table rows)".
	Distribution string `json:"distribution"`
}

// FillInputs fills every input of the allocated interpreter it with
// FillInput, in input order, and describes each.
func FillInputs(it *interpreter.Interpreter, seed uint64) ([]InputFill, error) {
	fills := make([]InputFill, it.InputCount())
	for i := range fills {
		f, err := FillInput(it, i, seed)
		if err != nil {
			return nil, err
		}
		fills[i] = f
	}
	return fills, nil
}

// FillInput fills input i of the allocated interpreter it with
// deterministic pseudo-random values from a PCG generator seeded with
// (seed, i), so the same model, seed and input always get the same bytes:
//
//   - float32, float64: uniform in [-1, 1);
//   - int8, uint8, int16, uint16: uniform over the whole type range;
//   - bool: 0 or 1;
//   - int32, int64, uint32, uint64: uniform in [0, rows) when the input
//     is (directly or through RESHAPE / SQUEEZE / EXPAND_DIMS) the indices
//     operand of a GATHER or the ids of an EMBEDDING_LOOKUP in subgraph 0
//     (rows = the smallest such table's size along the looked-up axis),
//     otherwise uniform in [0, 99].
//
// Other types (string, float16, complex, ...) give an error naming the
// input.
func FillInput(it *interpreter.Interpreter, i int, seed uint64) (InputFill, error) {
	t := it.Input(i)
	if t == nil {
		return InputFill{}, fmt.Errorf("no input %d (the model has %d)", i, it.InputCount())
	}
	f := InputFill{Index: i, Name: t.Name, Type: t.Type, TypeName: t.Type.String(), Shape: append([]int(nil), t.Shape...)}
	if len(t.Data) != t.Bytes() {
		return f, fmt.Errorf("input %d (%s) is not allocated", i, t)
	}
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	n := t.NumElements()
	d := t.Data
	switch t.Type {
	case ops.Float32:
		for k := 0; k < n; k++ {
			binary.LittleEndian.PutUint32(d[4*k:], math.Float32bits(float32(r.Float64()*2-1)))
		}
		f.Distribution = "uniform [-1, 1)"
	case ops.Float64:
		for k := 0; k < n; k++ {
			binary.LittleEndian.PutUint64(d[8*k:], math.Float64bits(r.Float64()*2-1))
		}
		f.Distribution = "uniform [-1, 1)"
	case ops.Int8, ops.Uint8:
		for k := range d {
			d[k] = byte(r.Uint32())
		}
		f.Distribution = "uniform over the whole " + t.Type.String() + " range"
	case ops.Int16, ops.Uint16:
		for k := 0; k < n; k++ {
			binary.LittleEndian.PutUint16(d[2*k:], uint16(r.Uint32()))
		}
		f.Distribution = "uniform over the whole " + t.Type.String() + " range"
	case ops.Bool:
		for k := range d {
			d[k] = byte(r.Uint32() & 1)
		}
		f.Distribution = "uniform {0, 1}"
	case ops.Int32, ops.Uint32, ops.Int64, ops.Uint64:
		rows, op := lookupRows(it, t.Index)
		draw := func() uint64 { return uint64(r.IntN(defaultIntHigh + 1)) }
		f.Distribution = fmt.Sprintf("uniform [0, %d]", defaultIntHigh)
		if rows > 0 {
			draw = func() uint64 { return uint64(r.IntN(rows)) }
			f.Distribution = fmt.Sprintf("uniform [0, %d) (%s table rows)", rows, op)
		}
		if t.Type.Size() == 4 {
			for k := 0; k < n; k++ {
				binary.LittleEndian.PutUint32(d[4*k:], uint32(draw()))
			}
		} else {
			for k := 0; k < n; k++ {
				binary.LittleEndian.PutUint64(d[8*k:], draw())
			}
		}
	default:
		return f, fmt.Errorf("input %d (%s): cannot fill a %s input with generated data; give it a file", i, t, t.Type)
	}
	return f, nil
}

// lookupRows returns the number of rows an integer tensor may index when
// subgraph 0 uses it — directly or through value-preserving operators
// (RESHAPE, SQUEEZE, EXPAND_DIMS) — as GATHER indices (input 1; the table
// is input 0 and the axis comes from the operator's options, 0 when
// absent) or as EMBEDDING_LOOKUP ids (input 0; the table is input 1, rows
// along axis 0). With several consumers the smallest table wins; 0 means
// none.
func lookupRows(it *interpreter.Interpreter, tensor int) (rows int, op string) {
	m := it.Model()
	if m == nil || len(m.Subgraphs) == 0 {
		return 0, ""
	}
	sg := &m.Subgraphs[0]
	same := map[int]bool{tensor: true}
	// Operators are in execution order, so one forward pass follows
	// chains of reshapes.
	for k := range sg.Operators {
		o := &sg.Operators[k]
		switch o.Op {
		case ops.OpReshape, ops.OpSqueeze, ops.OpExpandDims:
			if len(o.Inputs) > 0 && same[o.Inputs[0]] && len(o.Outputs) == 1 {
				same[o.Outputs[0]] = true
			}
		}
	}
	for k := range sg.Operators {
		o := &sg.Operators[k]
		table, axis := -1, 0
		switch {
		case o.Op == ops.OpGather && len(o.Inputs) >= 2 && same[o.Inputs[1]]:
			table, axis = o.Inputs[0], optionAxis(o.Options)
		case o.Op == ops.OpEmbeddingLookup && len(o.Inputs) >= 2 && same[o.Inputs[0]]:
			table = o.Inputs[1]
		default:
			continue
		}
		if table < 0 || table >= len(sg.Tensors) {
			continue
		}
		shape := sg.Tensors[table].Shape
		if axis < 0 {
			axis += len(shape)
		}
		if axis < 0 || axis >= len(shape) || shape[axis] <= 0 {
			continue
		}
		if rows == 0 || shape[axis] < rows {
			rows, op = shape[axis], o.Name
		}
	}
	return rows, op
}

// optionAxis reads an integer field named Axis from a decoded options
// struct (GATHER's GatherOptions.axis), 0 when there is none. Reflection
// keeps this independent of which options types the ops package decodes.
func optionAxis(opts any) int {
	v := reflect.ValueOf(opts)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return 0
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0
	}
	f := v.FieldByName("Axis")
	if !f.IsValid() || !f.CanInt() {
		return 0
	}
	return int(f.Int())
}
