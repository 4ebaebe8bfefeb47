package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
)

// InputLayer is one input as benchmark_model's --input_layer flags
// describe it.
type InputLayer struct {
	// Name is the name the flags give; it need not match the model's
	// (a mismatch is a warning, as in benchmark_model), since inputs are
	// matched by position.
	Name string `json:"name"`
	// Shape is the shape to resize the input to.
	Shape []int `json:"shape"`
	// HasRange says Low and High (inclusive) bound the random values.
	HasRange  bool  `json:"has_range,omitempty"`
	Low, High int64 `json:"-"`
	// File holds the input's bytes, exactly the tensor's size.
	File string `json:"file,omitempty"`
}

// ParseInputLayers reads benchmark_model's input flags: names
// ("in1,in2"), shapes ("1,224,224,3:1,20", one per name, no -1), value
// ranges ("in1,0,254:in2,1,2", integers, low <= high) and value files
// ("in1:path1,in2:path2", "::" for a ':' inside a name or path). All four
// empty means no input layers. The errors are benchmark_model's checks.
func ParseInputLayers(names, shapes, ranges, files string) ([]InputLayer, error) {
	if names == "" && shapes == "" {
		if ranges != "" || files != "" {
			return nil, fmt.Errorf("--input_layer_value_range and --input_layer_value_files need --input_layer and --input_layer_shape")
		}
		return nil, nil
	}
	ns, ss := strings.Split(names, ","), strings.Split(shapes, ":")
	if len(ns) != len(ss) {
		return nil, fmt.Errorf("the number of items in --input_layer_shape (%s, with %d items) must match the number of items in --input_layer (%s, with %d items); for example --input_layer=input1,input2 --input_layer_shape=1,224,224,4:1,20", shapes, len(ss), names, len(ns))
	}
	layers := make([]InputLayer, len(ns))
	for i := range ns {
		layers[i].Name = ns[i]
		for _, d := range strings.Split(ss[i], ",") {
			v, err := strconv.Atoi(strings.TrimSpace(d))
			if err != nil {
				return nil, fmt.Errorf("incorrect size string specified: %s", ss[i])
			}
			if v == -1 {
				return nil, fmt.Errorf("any unknown sizes in the shapes (-1's) must be replaced with the size you want to benchmark with")
			}
			if v < 0 {
				return nil, fmt.Errorf("incorrect size string specified: %s", ss[i])
			}
			layers[i].Shape = append(layers[i].Shape, v)
		}
	}
	find := func(name string) (*InputLayer, error) {
		for i := range layers {
			if layers[i].Name == name {
				return &layers[i], nil
			}
		}
		return nil, fmt.Errorf("cannot find the corresponding input_layer name(%s) in --input_layer as %s", name, names)
	}
	if ranges != "" {
		for _, item := range strings.Split(ranges, ":") {
			p := strings.Split(item, ",")
			if len(p) != 3 {
				return nil, fmt.Errorf("wrong input value range item specified: %s", item)
			}
			l, err := find(p[0])
			if err != nil {
				return nil, err
			}
			lo, err1 := strconv.ParseInt(p[1], 10, 32)
			hi, err2 := strconv.ParseInt(p[2], 10, 32)
			if err1 != nil || err2 != nil || lo > hi {
				return nil, fmt.Errorf("wrong low and high value of the input value range specified: %s", item)
			}
			l.HasRange, l.Low, l.High = true, lo, hi
		}
	}
	if files != "" {
		for _, item := range strings.Split(files, ",") {
			name, path, err := splitNameFile(item)
			if err != nil {
				return nil, err
			}
			l, err := find(name)
			if err != nil {
				return nil, err
			}
			l.File = path
		}
	}
	return layers, nil
}

// splitNameFile splits "name:path" at its one unescaped ':' and turns
// "::" into ':' on both sides, as benchmark_model does.
func splitNameFile(s string) (string, string, error) {
	delim := -1
	for i := 0; i < len(s)-1; i++ {
		if s[i] != ':' {
			continue
		}
		if s[i+1] == ':' {
			i++
			continue
		}
		if delim >= 0 {
			return "", "", fmt.Errorf("wrong input value file item specified: %s contains more than one delimiter", s)
		}
		delim = i
	}
	if delim < 0 {
		return "", "", fmt.Errorf("wrong input value file item specified: %s doesn't contain any delimiter", s)
	}
	un := func(x string) string { return strings.ReplaceAll(x, "::", ":") }
	return un(s[:delim]), un(s[delim+1:]), nil
}

// applyInputLayers checks the layers against the interpreter's inputs
// (one per input, same rank), resizes the inputs to the layers' shapes
// and re-allocates; it returns benchmark_model's warnings for names that
// differ.
func applyInputLayers(it *interpreter.Interpreter, layers []InputLayer) ([]string, error) {
	if len(layers) != it.InputCount() {
		return nil, fmt.Errorf("inputs mismatch: model inputs #: %d, --input_layer gives %d", it.InputCount(), len(layers))
	}
	var warns []string
	for i, l := range layers {
		t := it.Input(i)
		if l.Name != t.Name {
			warns = append(warns, fmt.Sprintf("Tensor # %d is named %s but flags call it %s", t.Index, t.Name, l.Name))
		}
		if len(l.Shape) != len(t.Shape) {
			return nil, fmt.Errorf("input tensor #%d should have %d dimensions", t.Index, len(t.Shape))
		}
	}
	for i, l := range layers {
		if err := it.ResizeInputTensor(i, l.Shape); err != nil {
			return nil, fmt.Errorf("--input_layer_shape of %s: %w", l.Name, err)
		}
	}
	if err := it.AllocateTensors(); err != nil {
		return nil, fmt.Errorf("after resizing the inputs to --input_layer_shape: %w", err)
	}
	return warns, nil
}

// fillLayer fills input i from its layer: the file's bytes, or
// deterministic values uniform in [Low, High] (integers for integer
// inputs, reals for float ones), or FillInput's default.
func fillLayer(it *interpreter.Interpreter, i int, l InputLayer, seed uint64) (InputFill, error) {
	t := it.Input(i)
	if l.File == "" && !l.HasRange {
		return FillInput(it, i, seed)
	}
	f := InputFill{Index: i, Name: t.Name, Type: t.Type, TypeName: t.Type.String(), Shape: append([]int(nil), t.Shape...)}
	if l.File != "" {
		st, err := os.Stat(l.File)
		if err != nil {
			return f, fmt.Errorf("failed to read the input_layer_value_file: %w", err)
		}
		if st.Size() != int64(t.Bytes()) {
			return f, fmt.Errorf("the size of %s is %d bytes; it should be %d bytes (input %d %s)", l.File, st.Size(), t.Bytes(), i, t)
		}
		b, err := os.ReadFile(l.File)
		if err != nil {
			return f, fmt.Errorf("failed to read the input_layer_value_file: %w", err)
		}
		f.Distribution = "from " + l.File
		return f, t.CopyFromBytes(b)
	}
	if lo, hi, ok := ops.TypeRange(t.Type); ok && t.Type != ops.Float32 && (l.Low < int64(lo) || l.High > int64(hi)) {
		return f, fmt.Errorf("input %d (%s): the range [%d, %d] does not fit %s", i, t, l.Low, l.High, t.Type)
	}
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	n, d := t.NumElements(), t.Data
	span := uint64(l.High - l.Low + 1)
	draw := func() int64 { return l.Low + int64(r.Uint64N(span)) }
	f.Distribution = fmt.Sprintf("uniform [%d, %d] (--input_layer_value_range)", l.Low, l.High)
	switch t.Type {
	case ops.Float32:
		for k := 0; k < n; k++ {
			v := float64(l.Low) + r.Float64()*float64(l.High-l.Low)
			binary.LittleEndian.PutUint32(d[4*k:], math.Float32bits(float32(v)))
		}
	case ops.Int8, ops.Uint8, ops.Bool:
		for k := 0; k < n; k++ {
			d[k] = byte(draw())
		}
	case ops.Int16, ops.Uint16:
		for k := 0; k < n; k++ {
			binary.LittleEndian.PutUint16(d[2*k:], uint16(draw()))
		}
	case ops.Int32, ops.Uint32:
		for k := 0; k < n; k++ {
			binary.LittleEndian.PutUint32(d[4*k:], uint32(draw()))
		}
	case ops.Int64, ops.Uint64:
		for k := 0; k < n; k++ {
			binary.LittleEndian.PutUint64(d[8*k:], uint64(draw()))
		}
	default:
		return f, fmt.Errorf("input %d (%s): cannot fill a %s input from a value range; give it a file", i, t, t.Type)
	}
	return f, nil
}
