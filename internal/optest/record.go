package optest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
)

// RefEnv is the environment variable naming the native TensorFlow Lite
// runner (interface: ../shared/tools/tflite_ref.md). It is built on a
// developer's machine from the LiteRT sources and never committed.
const RefEnv = "TFLITE_REF"

// RecordEnv, set to 1, makes the Record* tests of operator packages
// (re)write their golden cases with the runner named by RefEnv.
const RecordEnv = "TFLRUN_RECORD"

// Ref returns the runner's path from RefEnv, or an error saying how to
// set it.
func Ref() (string, error) {
	p := os.Getenv(RefEnv)
	if p == "" {
		return "", fmt.Errorf("%s is not set: point it at a tflite_ref runner (see ../shared/tools/tflite_ref.md)", RefEnv)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s=%s: %v", RefEnv, p, err)
	}
	return p, nil
}

// Reference runs model (a file) once on inputs with TensorFlow Lite's
// builtin kernels (XNNPACK off, one thread) and returns its outputs.
func Reference(ref, model string, inputs []*npy.Array) ([]*npy.Array, error) {
	dir, err := os.MkdirTemp("", "optest-ref-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := []string{model, "--outdir", dir, "--quiet", "--no-xnnpack"}
	for i, a := range inputs {
		p := filepath.Join(dir, fmt.Sprintf("in_%d.bin", i))
		if err := os.WriteFile(p, a.Data, 0o644); err != nil {
			return nil, err
		}
		args = append(args, "--input", fmt.Sprintf("%d=%s", i, p))
	}
	out, err := exec.Command(ref, args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("tflite_ref %s: %v: %s", model, err, strings.TrimSpace(string(out)))
	}
	b, err := os.ReadFile(filepath.Join(dir, "outputs.json"))
	if err != nil {
		return nil, err
	}
	var desc struct {
		Outputs []struct {
			Index int    `json:"index"`
			DType string `json:"dtype"`
			Shape []int  `json:"shape"`
			File  string `json:"file"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(b, &desc); err != nil {
		return nil, err
	}
	res := make([]*npy.Array, len(desc.Outputs))
	for _, o := range desc.Outputs {
		if o.Index < 0 || o.Index >= len(res) {
			return nil, fmt.Errorf("outputs.json: index %d out of range", o.Index)
		}
		typ, ok := numpyTypes[o.DType]
		if !ok {
			return nil, fmt.Errorf("outputs.json: dtype %q", o.DType)
		}
		data, err := os.ReadFile(filepath.Join(dir, o.File))
		if err != nil {
			return nil, err
		}
		res[o.Index] = &npy.Array{Type: typ, Shape: o.Shape, Data: data}
	}
	return res, nil
}

var numpyTypes = map[string]ops.DataType{
	"float32": ops.Float32, "float16": ops.Float16, "float64": ops.Float64,
	"int8": ops.Int8, "uint8": ops.Uint8, "int16": ops.Int16, "uint16": ops.Uint16,
	"int32": ops.Int32, "uint32": ops.Uint32, "int64": ops.Int64, "uint64": ops.Uint64, "bool": ops.Bool,
	"complex64": ops.Complex64, "complex128": ops.Complex128,
}

// InputGen draws the value of element i of an input tensor of type typ
// (ints as int64, floats as float64). Nil means Uniform.
type InputGen func(r *rand.Rand, input int, typ ops.DataType) float64

// Uniform draws integers over their type's whole range (int32/int64 in
// [0, 10), index-like), floats (and each part of a complex) in [-1, 1),
// bools fair.
func Uniform(r *rand.Rand, _ int, typ ops.DataType) float64 {
	switch typ {
	case ops.Int8:
		return float64(r.IntN(256) - 128)
	case ops.Uint8:
		return float64(r.IntN(256))
	case ops.Int16:
		return float64(r.IntN(65536) - 32768)
	case ops.Uint16:
		return float64(r.IntN(65536))
	case ops.Int32, ops.Int64, ops.Uint32, ops.Uint64:
		return float64(r.IntN(10))
	case ops.Bool:
		return float64(r.IntN(2))
	}
	return 2*r.Float64() - 1
}

// RandomInputs draws inputs for every input of the model file with gen
// (nil: Uniform), from a PCG seeded with seed, at the model's declared
// shapes (or shapes[i] where given).
func RandomInputs(model string, seed uint64, gen InputGen, shapes map[int][]int) ([]*npy.Array, error) {
	if gen == nil {
		gen = Uniform
	}
	m, err := interpreter.Load(model)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x6f7074657374))
	var res []*npy.Array
	for i := 0; i < it.InputCount(); i++ {
		in := it.Input(i)
		shape := append([]int(nil), in.Shape...)
		if s, ok := shapes[i]; ok {
			shape = s
		}
		n := 1
		for _, d := range shape {
			n *= d
		}
		sz := in.Type.Size()
		if sz <= 0 {
			return nil, fmt.Errorf("input %d: type %v has no fixed size", i, in.Type)
		}
		data := make([]byte, n*sz)
		for e := 0; e < n; e++ {
			switch in.Type {
			case ops.Complex64: // real and imaginary parts drawn in turn
				putValue(data[e*sz:], ops.Float32, gen(r, i, in.Type))
				putValue(data[e*sz+4:], ops.Float32, gen(r, i, in.Type))
			case ops.Complex128:
				putValue(data[e*sz:], ops.Float64, gen(r, i, in.Type))
				putValue(data[e*sz+8:], ops.Float64, gen(r, i, in.Type))
			default:
				putValue(data[e*sz:], in.Type, gen(r, i, in.Type))
			}
		}
		res = append(res, &npy.Array{Type: in.Type, Shape: shape, Data: data})
	}
	return res, nil
}

func putValue(b []byte, typ ops.DataType, v float64) {
	switch typ {
	case ops.Float32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case ops.Float64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case ops.Int8, ops.Uint8, ops.Bool:
		b[0] = byte(int64(v))
	case ops.Int16, ops.Uint16:
		binary.LittleEndian.PutUint16(b, uint16(int64(v)))
	case ops.Int32, ops.Uint32:
		binary.LittleEndian.PutUint32(b, uint32(int64(v)))
	case ops.Int64, ops.Uint64:
		binary.LittleEndian.PutUint64(b, uint64(int64(v)))
	}
}

// RecordCases writes model into dir/model.tflite and records runs cases
// dir/run<k> with random inputs (seeded by seed+k) and TensorFlow Lite's
// outputs for them. tol gives the case's exactness and tolerances (its
// Dir, Model and arrays are filled in here).
func RecordCases(ref, dir string, model []byte, runs int, seed uint64, gen InputGen, tol Case) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mp := filepath.Join(dir, "model.tflite")
	if err := writeFile(mp, model); err != nil {
		return err
	}
	for k := 0; k < runs; k++ {
		in, err := RandomInputs(mp, seed+uint64(k), gen, nil)
		if err != nil {
			return err
		}
		out, err := Reference(ref, mp, in)
		if err != nil {
			return err
		}
		c := tol
		c.Dir, c.Model, c.Inputs, c.Outputs = filepath.Join(dir, fmt.Sprintf("run%d", k)), mp, in, out
		if err := WriteCase(&c); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(p string, b []byte) error { return os.WriteFile(p, b, 0o644) }
