package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/bench"
	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
	"github.com/tflrun/tflrun/imageinput"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
)

// maxPrinted is how many values of an output the text report shows.
const maxPrinted = 64

func newRunCmd(stdout, stderr io.Writer) *cli.Command {
	var inputs []string
	var outDir string
	var asJSON bool
	cmd := &cli.Command{
		Name:  "run",
		Usage: "run MODEL [--input NAME|INDEX=FILE]... [--output-dir DIR] [--json]",
		Short: "Run a model once on given inputs and print or save its outputs",
		Long: `Run loads MODEL, fills its inputs, invokes it once and prints every output's
name, type, shape and values (and, for a [N] or [1,N] output, the top 5
classes, dequantised when the output is quantised).

--input NAME=FILE or INDEX=FILE sets an input (NAME: the input tensor's name
or its name in a signature def) from:
  FILE.npy                 a NumPy array of exactly the input's dtype; its shape
                           must equal the input's, or the input is resized to it
                           when the model's shape_signature allows (-1 dims)
  FILE.png/.jpg/.jpeg      an image of the input's height and width (float32:
                           pixel/255; int8/uint8/int16: quantised with the
                           input's scale and zero point; see internal/imageinput)
  FILE.bin/.raw            raw little-endian element bytes, exactly the input's size
Any other extension is an error (extensions match in any case).
Inputs not given are filled with deterministic pseudo-random data, and a note
on stderr says so.

--output-dir DIR writes DIR/output_<i>.npy for every output i, with the
tensor's exact dtype and shape.`,
		Args:  exactArgs("tflrun run", 1, "exactly one MODEL"),
		Flags: cli.NewFlagSet(),
		Run: func(args []string) error {
			return runModel(args[0], inputs, outDir, asJSON, stdout, stderr)
		},
	}
	cmd.Flags.StringArrayVar(&inputs, "input", nil, "set an input: NAME=FILE or INDEX=FILE (repeatable)")
	cmd.Flags.StringVar(&outDir, "output-dir", "", "write output_<i>.npy files to this directory")
	cmd.Flags.BoolVar(&asJSON, "json", false, "print a JSON document instead of text")
	return cmd
}

// inputFile is one --input after parsing and reading.
type inputFile struct {
	index int
	path  string
	kind  string // "npy", "image", "raw"
	arr   *npy.Array
	raw   []byte
}

// runReport is the JSON form of a run.
type runReport struct {
	Model   string         `json:"model"`
	Inputs  []runInputInfo `json:"inputs"`
	Outputs []runOutput    `json:"outputs"`
}

type runInputInfo struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Shape  []int  `json:"shape"`
	Source string `json:"source"`
}

type runOutput struct {
	Index        int          `json:"index"`
	Name         string       `json:"name"`
	Type         string       `json:"type"`
	Shape        []int        `json:"shape"`
	Quantization *quantJSON   `json:"quantization,omitempty"`
	Values       []any        `json:"values"`
	Top          []classScore `json:"top,omitempty"`
}

type quantJSON struct {
	Scale              []float32 `json:"scale"`
	ZeroPoint          []int64   `json:"zero_point"`
	QuantizedDimension int       `json:"quantized_dimension"`
}

func runModel(modelPath string, inputArgs []string, outDir string, asJSON bool, stdout, stderr io.Writer) error {
	// Parse the flags before touching the model, so usage errors come
	// first.
	type assign struct{ key, path string }
	var assigns []assign
	for _, a := range inputArgs {
		k, p, ok := strings.Cut(a, "=")
		if !ok || k == "" || p == "" {
			return usageErrorf("--input %q: want NAME=FILE or INDEX=FILE", a)
		}
		assigns = append(assigns, assign{k, p})
	}

	m, err := interpreter.Load(modelPath)
	if err != nil {
		return err
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}
	if err := it.AllocateTensors(); err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}

	// Resolve and read every input file.
	files := make([]*inputFile, it.InputCount())
	for _, a := range assigns {
		idx, err := resolveInput(it, a.key)
		if err != nil {
			return fmt.Errorf("--input %s=%s: %w", a.key, a.path, err)
		}
		if files[idx] != nil {
			return usageErrorf("--input %s=%s: input %d is already set from %s", a.key, a.path, idx, files[idx].path)
		}
		f, err := readInputFile(a.path)
		if err != nil {
			return fmt.Errorf("--input %s=%s: %w", a.key, a.path, err)
		}
		f.index = idx
		files[idx] = f
	}

	// Resize inputs whose .npy shape differs, then re-allocate.
	resized := false
	for _, f := range files {
		if f == nil || f.kind != "npy" {
			continue
		}
		t := it.Input(f.index)
		if ops.SameShape(t.Shape, f.arr.Shape) {
			continue
		}
		if err := it.ResizeInputTensorStrict(f.index, f.arr.Shape); err != nil {
			return fmt.Errorf("--input %d=%s: the array has shape %v and the input %v cannot be resized to it: %w", f.index, f.path, f.arr.Shape, t.Shape, err)
		}
		resized = true
	}
	if resized {
		if err := it.AllocateTensors(); err != nil {
			return fmt.Errorf("%s: after resizing inputs: %w", modelPath, err)
		}
	}

	report := runReport{Model: modelPath}
	for i := 0; i < it.InputCount(); i++ {
		t := it.Input(i)
		info := runInputInfo{Index: i, Name: t.Name, Type: t.Type.String(), Shape: t.Shape}
		f := files[i]
		if f == nil {
			fill, err := bench.FillInput(it, i, bench.DefaultSeed)
			if err != nil {
				return err
			}
			info.Source = "generated: " + fill.Distribution
			fmt.Fprintf(stderr, "note: input %d %q %s%v not given: filled with deterministic pseudo-random data, %s\n", i, t.Name, t.Type, t.Shape, fill.Distribution)
		} else {
			if err := f.copyInto(t); err != nil {
				return fmt.Errorf("--input %d=%s: %w", i, f.path, err)
			}
			info.Source = f.path
		}
		report.Inputs = append(report.Inputs, info)
	}

	if err := it.Invoke(); err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}

	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
		for i := 0; i < it.OutputCount(); i++ {
			t := it.Output(i)
			path := filepath.Join(outDir, fmt.Sprintf("output_%d.npy", i))
			if err := npy.WriteFile(path, t.Type, t.Shape, t.Data); err != nil {
				return fmt.Errorf("output %d (%s): %w", i, t, err)
			}
		}
	}

	for i := 0; i < it.OutputCount(); i++ {
		t := it.Output(i)
		o := runOutput{Index: i, Name: t.Name, Type: t.Type.String(), Shape: t.Shape, Values: jsonValues(t)}
		if t.Quant != nil && len(t.Quant.Scale) > 0 {
			o.Quantization = &quantJSON{t.Quant.Scale, t.Quant.ZeroPoint, t.Quant.QuantizedDimension}
		}
		if isClassVector(t) {
			o.Top = topK(t, 5)
		}
		report.Outputs = append(report.Outputs, o)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	for i, o := range report.Outputs {
		t := it.Output(i)
		fmt.Fprintf(stdout, "output %d %q %s %v", i, o.Name, o.Type, o.Shape)
		if q := quantString(t.Quant); q != "" {
			fmt.Fprintf(stdout, " (%s)", q)
		}
		fmt.Fprintln(stdout)
		n := t.NumElements()
		var vals []string
		for k := 0; k < min(n, maxPrinted); k++ {
			vals = append(vals, formatElement(t.Type, t.Data, k))
		}
		fmt.Fprintf(stdout, "  values: [%s", strings.Join(vals, " "))
		if n > maxPrinted {
			fmt.Fprintf(stdout, " ... %d more (see --json or --output-dir)", n-maxPrinted)
		}
		fmt.Fprintln(stdout, "]")
		if len(o.Top) > 0 {
			label := "top 5"
			if t.Quant != nil && len(t.Quant.Scale) > 0 {
				label += " (dequantised)"
			}
			fmt.Fprintf(stdout, "  %s:\n", label)
			for _, c := range o.Top {
				fmt.Fprintf(stdout, "    class %-5d %s\n", c.Class, strconv.FormatFloat(c.Value, 'g', 6, 64))
			}
		}
	}
	if outDir != "" {
		fmt.Fprintf(stdout, "wrote %d output(s) to %s\n", it.OutputCount(), outDir)
	}
	return nil
}

// resolveInput maps an --input key to an input position: a decimal index
// below the input count, else an input tensor name, else the input name
// of a signature def of subgraph 0 ("fixed_input" for the tensor
// "serving_default_fixed_input:0").
func resolveInput(it *interpreter.Interpreter, key string) (int, error) {
	if n, err := strconv.Atoi(key); err == nil && n >= 0 && n < it.InputCount() {
		return n, nil
	}
	idx, nameErr := it.InputIndex(key)
	if nameErr == nil {
		return idx, nil
	}
	for _, sig := range it.Model().Signatures {
		if sig.Subgraph != 0 {
			continue
		}
		for _, p := range sig.Inputs {
			if p.Name != key {
				continue
			}
			for i := 0; i < it.InputCount(); i++ {
				if it.Input(i).Index == p.Tensor {
					return i, nil
				}
			}
		}
	}
	if n, err := strconv.Atoi(key); err == nil {
		return 0, fmt.Errorf("no input %d (the model has %d)", n, it.InputCount())
	}
	return 0, nameErr
}

// inputKinds lists the --input file kinds readInputFile accepts, for
// its error message (the run command's help lists the same kinds).
const inputKinds = ".npy (NumPy array), .png/.jpg/.jpeg (image) or .bin/.raw (raw little-endian element bytes)"

// readInputFile reads an input file, choosing the format by extension
// (any case): .npy, an image (.png, .jpg, .jpeg), or raw bytes (.bin,
// .raw). Any other extension is an error naming the extension and the
// kinds accepted (the caller prefixes the --input assignment, which names
// the file), returned before the file is opened, so that a text file or a
// mistyped name is never taken as tensor bytes.
func readInputFile(path string) (*inputFile, error) {
	f := &inputFile{path: path}
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case ext == ".npy":
		a, err := npy.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f.kind, f.arr = "npy", a
	case imageinput.IsImagePath(path):
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f.kind, f.raw = "image", b
	case ext == ".bin" || ext == ".raw":
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f.kind, f.raw = "raw", b
	case ext == "":
		return nil, fmt.Errorf("the file name has no extension to tell its kind: want %s", inputKinds)
	default:
		return nil, fmt.Errorf("unknown input file kind %q: want %s", filepath.Ext(path), inputKinds)
	}
	return f, nil
}

// copyInto writes the file's contents into the allocated input tensor t,
// checking the dtype (npy), the byte count (raw) or the image size.
func (f *inputFile) copyInto(t *ops.Tensor) error {
	switch f.kind {
	case "npy":
		if f.arr.Type != t.Type {
			return fmt.Errorf("the array is %s, the input %q is %s", f.arr.Type, t.Name, t.Type)
		}
		if !ops.SameShape(f.arr.Shape, t.Shape) {
			return fmt.Errorf("the array has shape %v, the input %q has %v", f.arr.Shape, t.Name, t.Shape)
		}
		return t.CopyFromBytes(f.arr.Data)
	case "image":
		img, err := imageinput.Decode(f.raw)
		if err != nil {
			return err
		}
		b, err := imageinput.ToTensor(img, t.Type, t.Shape, t.Quant)
		if err != nil {
			return fmt.Errorf("input %q: %w", t.Name, err)
		}
		return t.CopyFromBytes(b)
	default:
		if len(f.raw) != t.Bytes() {
			return fmt.Errorf("the file has %d bytes, the input %q (%s%v) needs %d", len(f.raw), t.Name, t.Type, t.Shape, t.Bytes())
		}
		return t.CopyFromBytes(f.raw)
	}
}

// jsonValues returns a tensor's elements for JSON: numbers, with
// non-finite floats as the strings "NaN", "+Inf", "-Inf" (JSON has no
// such numbers), 64-bit integers exactly, bools as booleans.
func jsonValues(t *ops.Tensor) []any {
	n := t.NumElements()
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		switch t.Type {
		case ops.Int64, ops.Uint64:
			out = append(out, json.Number(formatElement(t.Type, t.Data, i)))
		case ops.Bool:
			out = append(out, t.Data[i] != 0)
		default:
			v, ok := element(t.Type, t.Data, i)
			switch {
			case !ok:
				out = append(out, nil)
			case math.IsNaN(v):
				out = append(out, "NaN")
			case math.IsInf(v, 1):
				out = append(out, "+Inf")
			case math.IsInf(v, -1):
				out = append(out, "-Inf")
			case t.Type == ops.Float32 || t.Type == ops.Float16:
				out = append(out, json.Number(strconv.FormatFloat(v, 'g', -1, 32)))
			default:
				out = append(out, v)
			}
		}
	}
	return out
}
