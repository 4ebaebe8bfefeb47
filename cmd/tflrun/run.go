package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/bench"
	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
	"github.com/tflrun/tflrun/imageinput"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/metadata"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/wav"
)

// defaultTextValues is how many values of an output the text report
// shows when --max-values is not given; JSON shows all by default.
const defaultTextValues = 64

// runOptions are the run command's flags.
type runOptions struct {
	inputs          []string
	outDir          string
	asJSON          bool
	maxValues       int // -1: all; unset: defaultTextValues for text, all for JSON
	maxValuesSet    bool
	topK            int
	mem             memoryFlag
	mean, std       string
	resize          string
	convertChannels bool
	noMetadata      bool
	threads         int
	fusedFloat      bool
	signature       string
}

func newRunCmd(stdout, stderr io.Writer) *cli.Command {
	o := &runOptions{}
	f := cli.NewFlagSet()
	cmd := &cli.Command{
		Name:  "run",
		Usage: "run MODEL [--input NAME|INDEX=FILE]... [--output-dir DIR] [--json] [flags]",
		Short: "Run a model once on given inputs and print or save its outputs",
		Long: `Run loads MODEL, fills its inputs, invokes it once and prints every output's
name, type, shape and values, and for an output of scores (a float or
quantised 8/16-bit vector: [N] or [1, N] with N > 1) the top classes,
dequantised, named by the model's label file when its metadata has one.

--signature KEY runs the signature def KEY (the subgraph it names) instead of
subgraph 0.

--input NAME=FILE or INDEX=FILE sets an input (NAME: the input tensor's name
or its name in a signature def of the subgraph run) from:
  FILE.npy                 a NumPy array of exactly the input's dtype; its shape
                           must equal the input's, or the input is resized to it
                           when the model's shape_signature allows (-1 dims)
  FILE.png/.jpg/.jpeg      an image (package imageinput): of the input's height
                           and width unless --resize; with the input's channel
                           count (1 gray, 3 colour) unless --convert-channels;
                           float32: pixel/255, or (pixel-mean)/std with --mean and
                           --std or the model's metadata normalisation; int8 /
                           int16: that value quantised with the input's scale and
                           zero point; uint8: the raw pixels when the metadata has
                           a normalisation (as TensorFlow Lite's Task Library
                           does), else pixel/255 quantised
  FILE.wav                 a WAV file (package wav) for a float32 input (samples
                           in [-1, 1]) or an int16 input, interleaved by frame;
                           its sample count must be the input's element count
  FILE.bin/.raw            raw little-endian element bytes, exactly the input's size
Any other extension is an error (extensions match in any case).
Inputs not given are filled with deterministic pseudo-random data, and a note
on stderr says so.

--output-dir DIR writes DIR/output_<i>.npy for every output i, with the
tensor's exact dtype and shape.

Values are printed straight from the output tensors, never copied:
--max-values N caps how many of each output are printed (default 64 in the
text report, all with --json; -1 for all), and the top classes come from a
k-entry heap over the tensor, so a huge output costs no memory beyond itself.

--max-memory bounds the interpreter's memory (tensor arena, variables,
precomputed tensors), each input file's size, and the memory an image may take
to decode (checked from its header before decoding, against what the tensors
left of the bound).`,
		Flags: f,
		Args:  exactArgs("tflrun run", 1, "exactly one MODEL"),
		Run: func(args []string) error {
			o.maxValuesSet = f.Changed("max-values")
			return runModel(args[0], o, stdout, stderr)
		},
	}
	f.StringArrayVar(&o.inputs, "input", nil, "set an input: NAME=FILE or INDEX=FILE (repeatable)")
	f.StringVar(&o.outDir, "output-dir", "", "write output_<i>.npy files to this directory")
	f.BoolVar(&o.asJSON, "json", false, "print a JSON document instead of text")
	f.IntVar(&o.maxValues, "max-values", defaultTextValues, "most values printed per output, the rest counted (-1: all; default 64 for text, all for --json)")
	f.IntVar(&o.topK, "top-k", 5, "how many top classes to print for a score output (0: none)")
	f.Var(&o.mem, "max-memory", memoryFlagUsage)
	f.StringVar(&o.mean, "mean", "", "image normalisation mean: one value or one per channel, comma-separated (pixel values 0..255); needs --std")
	f.StringVar(&o.std, "std", "", "image normalisation standard deviation: one value or one per channel; needs --mean")
	f.StringVar(&o.resize, "resize", "none", "resize images of another size: none, bilinear or nearest (as tf.image.resize, half-pixel centres)")
	f.BoolVar(&o.convertChannels, "convert-channels", false, "convert a colour image to gray (luma) for a 1-channel input, or gray to colour for a 3-channel one")
	f.BoolVar(&o.noMetadata, "no-metadata", false, "ignore the model's metadata (labels and normalisation)")
	f.StringVar(&o.signature, "signature", "", "run the model's signature def with this key (its subgraph; --input names are the signature's)")
	f.IntVar(&o.threads, "num_threads", 1, "threads each operator may split its work over (-1: every core the process may use)")
	f.BoolVar(&o.fusedFloat, "fused_float", false, "let float convolutions fuse multiply-adds (faster; results within a few ulps of TensorFlow Lite's builtin kernels, as XNNPACK's, not bit for bit)")
	return cmd
}

// inputFile is one --input after parsing and reading.
type inputFile struct {
	index int
	path  string
	kind  string // "npy", "image", "wav", "raw"
	arr   *npy.Array
	audio *wav.Audio
	raw   []byte
}

// runReport is the JSON form of a run (written by writeJSONReport,
// decoded by the tests).
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
	// Preprocessing says how an image was turned into the input.
	Preprocessing string `json:"preprocessing,omitempty"`
}

type runOutput struct {
	Index        int        `json:"index"`
	Name         string     `json:"name"`
	Type         string     `json:"type"`
	Shape        []int      `json:"shape"`
	Quantization *quantJSON `json:"quantization,omitempty"`
	// Values are the first values (all unless --max-values caps them);
	// ValuesTotal is the element count.
	Values      []any        `json:"values"`
	ValuesTotal int          `json:"values_total"`
	Top         []classScore `json:"top,omitempty"`
}

type quantJSON struct {
	Scale              []float32 `json:"scale"`
	ZeroPoint          []int64   `json:"zero_point"`
	QuantizedDimension int       `json:"quantized_dimension"`
}

// runState is what runModel works with.
type runState struct {
	path string
	o    *runOptions
	it   *interpreter.Interpreter
	meta *metadata.Model
	norm *imageinput.Normalization // from --mean/--std
	opts imageinput.Options
}

func runModel(modelPath string, o *runOptions, stdout, stderr io.Writer) error {
	// Parse the flags before touching the model, so usage errors come
	// first.
	type assign struct{ key, path string }
	var assigns []assign
	for _, a := range o.inputs {
		k, p, ok := strings.Cut(a, "=")
		if !ok || k == "" || p == "" {
			return usageErrorf("--input %q: want NAME=FILE or INDEX=FILE", a)
		}
		assigns = append(assigns, assign{k, p})
	}
	s := &runState{path: modelPath, o: o}
	var err error
	if s.norm, err = parseNormalization(o.mean, o.std); err != nil {
		return err
	}
	if s.opts.Resize, err = imageinput.ParseResize(o.resize); err != nil {
		return usageErrorf("--resize: %v", err)
	}
	s.opts.ConvertChannels = o.convertChannels
	if o.maxValues < -1 {
		return usageErrorf("--max-values %d: want a count, or -1 for all", o.maxValues)
	}

	releaseStartupPages()
	m, err := interpreter.Load(modelPath)
	if err != nil {
		return err
	}
	defer m.Close()
	printLoopHint(stderr, modelPath, m)
	if !o.noMetadata {
		s.meta = readMetadata(modelPath, m, stderr)
	}
	opts := o.mem.options()
	opts.NumThreads = o.threads
	opts.FusedFloat = o.fusedFloat
	if o.fusedFloat && !arch.GemmF32Fuses() {
		fmt.Fprintln(stderr, "note: "+fusedFloatNote())
	}
	var it *interpreter.Interpreter
	if o.signature != "" {
		r, err := interpreter.NewSignatureRunner(m, o.signature, opts)
		if err != nil {
			return fmt.Errorf("%s: --signature: %w", modelPath, err)
		}
		defer r.Close()
		it = r.Interpreter()
		if it.Subgraph() != 0 {
			s.meta = nil // the metadata describes subgraph 0
		}
	} else if it, err = interpreter.New(m, opts); err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}
	s.it = it

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
		f, err := s.readInputFile(a.path)
		if err != nil {
			return fmt.Errorf("--input %s=%s: %w", a.key, a.path, err)
		}
		f.index = idx
		files[idx] = f
	}

	// Resize inputs whose .npy shape differs, then allocate: a model
	// whose declared input shape cannot be allocated ([1,1] for a
	// sequence model, say) runs at the array's shape.
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
	}
	if err := it.AllocateTensors(); err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
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
			pre, err := s.copyInto(f, t)
			if err != nil {
				return fmt.Errorf("--input %d=%s: %w", i, f.path, err)
			}
			info.Source, info.Preprocessing = f.path, pre
			if pre != "" && !o.asJSON {
				fmt.Fprintf(stderr, "note: input %d %q: %s\n", i, t.Name, pre)
			}
		}
		report.Inputs = append(report.Inputs, info)
	}
	clear(files) // the input data is in the tensors now: let it go before Invoke

	if err := it.Invoke(); err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}

	if o.outDir != "" {
		if err := os.MkdirAll(o.outDir, 0o755); err != nil {
			return err
		}
		for i := 0; i < it.OutputCount(); i++ {
			t := it.Output(i)
			path := filepath.Join(o.outDir, fmt.Sprintf("output_%d.npy", i))
			if err := npy.WriteFile(path, t.Type, t.Shape, t.Data); err != nil {
				return fmt.Errorf("output %d (%s): %w", i, t, err)
			}
		}
	}

	limit := o.maxValues
	if !o.maxValuesSet && o.asJSON {
		limit = -1
	}
	outs := make([]outputReport, it.OutputCount())
	for i := range outs {
		t := it.Output(i)
		outs[i] = outputReport{t: t, limit: limit}
		if isScoreVector(t) {
			outs[i].top = topK(t, o.topK)
			if labels := s.labels(i, t, stderr); labels != nil {
				for k := range outs[i].top {
					if c := outs[i].top[k].Class; c < len(labels) {
						outs[i].top[k].Label = labels[c]
					}
				}
			}
		}
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	if o.asJSON {
		writeJSONReport(w, &report, outs)
		return w.Flush()
	}
	for i := range outs {
		outs[i].writeText(w, i)
	}
	if o.outDir != "" {
		fmt.Fprintf(w, "wrote %d output(s) to %s\n", it.OutputCount(), o.outDir)
	}
	return w.Flush()
}

// parseNormalization reads --mean and --std (both or neither).
func parseNormalization(mean, std string) (*imageinput.Normalization, error) {
	if mean == "" && std == "" {
		return nil, nil
	}
	if mean == "" || std == "" {
		return nil, usageErrorf("--mean and --std go together (give both)")
	}
	list := func(flag, s string) ([]float32, error) {
		var out []float32
		for _, p := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 32)
			if err != nil {
				return nil, usageErrorf("--%s %q: %q is not a number", flag, s, p)
			}
			out = append(out, float32(v))
		}
		return out, nil
	}
	m, err := list("mean", mean)
	if err != nil {
		return nil, err
	}
	sd, err := list("std", std)
	if err != nil {
		return nil, err
	}
	return &imageinput.Normalization{Mean: m, Std: sd}, nil
}

// readMetadata decodes the model's TensorFlow Lite Metadata, or returns
// nil when it has none. Metadata that cannot be read is reported on
// stderr and ignored: it changes how inputs are prepared and results are
// named, not whether the model runs.
func readMetadata(path string, m *interpreter.Model, stderr io.Writer) *metadata.Model {
	for _, e := range m.Metadata {
		if e.Name != metadata.BufferName {
			continue
		}
		p, err := metadata.Parse(e.Data)
		if err != nil {
			fmt.Fprintf(stderr, "note: %s: ignoring the model's metadata: %v\n", path, err)
			return nil
		}
		return &metadata.Model{Metadata: p}
	}
	return nil
}

// labels returns the class names of output i from the model's label
// file, or nil when it has none (a file that cannot be read is reported
// on stderr).
func (s *runState) labels(i int, t *ops.Tensor, stderr io.Writer) []string {
	if s.meta == nil || s.meta.Tensor(0, true, i) == nil {
		return nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	a, err := metadata.OpenArchive(f, st.Size())
	if err != nil {
		fmt.Fprintf(stderr, "note: output %d: cannot read the model's label file: %v\n", i, err)
		return nil
	}
	md := &metadata.Model{Metadata: s.meta.Metadata, Files: a}
	labels, err := md.Labels(0, i)
	if err != nil {
		fmt.Fprintf(stderr, "note: output %d: cannot read the model's label file: %v\n", i, err)
		return nil
	}
	if n := t.Shape[len(t.Shape)-1]; labels != nil && len(labels) != n {
		fmt.Fprintf(stderr, "note: output %d: the label file has %d labels for %d classes\n", i, len(labels), n)
	}
	return labels
}

// resolveInput maps an --input key to an input position: a decimal index
// below the input count, else an input tensor name, else the input name
// of a signature def of the subgraph run ("fixed_input" for the tensor
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
		if sig.Subgraph != it.Subgraph() {
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
const inputKinds = ".npy (NumPy array), .png/.jpg/.jpeg (image), .wav (audio) or .bin/.raw (raw little-endian element bytes)"

// readInputFile reads an input file, choosing the format by extension
// (any case): .npy, an image (.png, .jpg, .jpeg), .wav, or raw bytes
// (.bin, .raw). Any other extension is an error naming the extension and
// the kinds accepted (the caller prefixes the --input assignment, which
// names the file), returned before the file is opened, so that a text
// file or a mistyped name is never taken as tensor bytes. A file larger
// than the memory bound is refused before it is read.
func (s *runState) readInputFile(path string) (*inputFile, error) {
	f := &inputFile{path: path}
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case ext == ".npy":
		f.kind = "npy"
	case imageinput.IsImagePath(path):
		f.kind = "image"
	case ext == ".wav":
		f.kind = "wav"
	case ext == ".bin" || ext == ".raw":
		f.kind = "raw"
	case ext == "":
		return nil, fmt.Errorf("the file name has no extension to tell its kind: want %s", inputKinds)
	default:
		return nil, fmt.Errorf("unknown input file kind %q: want %s", filepath.Ext(path), inputKinds)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if lim := s.o.mem.limit(); lim > 0 && st.Size() > lim {
		return nil, fmt.Errorf("the file is %d bytes, over %s", st.Size(), s.o.mem.describe())
	}
	switch f.kind {
	case "npy":
		f.arr, err = npy.ReadFile(path)
	case "wav":
		f.audio, err = wav.ReadFile(path)
	default:
		f.raw, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// copyInto writes the file's contents into the allocated input tensor t,
// checking the dtype (npy), the byte count (raw), the sample count (wav)
// or the image's size and channels. It returns a description of the
// preprocessing of an image ("" for other kinds).
func (s *runState) copyInto(f *inputFile, t *ops.Tensor) (string, error) {
	switch f.kind {
	case "npy":
		if f.arr.Type != t.Type {
			return "", fmt.Errorf("the array is %s, the input %q is %s", f.arr.Type, t.Name, t.Type)
		}
		if !ops.SameShape(f.arr.Shape, t.Shape) {
			return "", fmt.Errorf("the array has shape %v, the input %q has %v", f.arr.Shape, t.Name, t.Shape)
		}
		return "", t.CopyFromBytes(f.arr.Data)
	case "image":
		return s.copyImage(f, t)
	case "wav":
		return "", copyAudio(f.audio, t)
	default:
		if len(f.raw) != t.Bytes() {
			return "", fmt.Errorf("the file has %d bytes, the input %q (%s%v) needs %d", len(f.raw), t.Name, t.Type, t.Shape, t.Bytes())
		}
		return "", t.CopyFromBytes(f.raw)
	}
}

// copyImage decodes an image within what the tensors left of the memory
// bound and converts it for t: normalisation from --mean/--std, else from
// the model's metadata (raw pixels for a uint8 input, as TensorFlow
// Lite's Task Library feeds them), else the default pixel/255.
func (s *runState) copyImage(f *inputFile, t *ops.Tensor) (string, error) {
	budget := int64(-1)
	if lim := s.o.mem.limit(); lim > 0 {
		used := int64(s.it.ArenaBytes()) + int64(s.it.VariableBytes()) + int64(s.it.PrecomputedBytes())
		budget = max(lim-used, 1)
	}
	img, err := imageinput.DecodeLimit(f.raw, budget)
	if err != nil {
		if budget > 0 && strings.Contains(err.Error(), "over the budget") {
			return "", fmt.Errorf("%w (what the tensors leave of %s)", err, s.o.mem.describe())
		}
		return "", err
	}
	f.raw = nil
	opts := s.opts
	var pre []string
	switch {
	case s.norm != nil:
		opts.Normalization = s.norm
		pre = append(pre, fmt.Sprintf("normalised with --mean %v --std %v", s.norm.Mean, s.norm.Std))
	case s.meta != nil:
		if tm := s.meta.Tensor(0, false, f.index); tm != nil {
			if n := tm.Normalization(); n != nil {
				if t.Type == ops.Uint8 {
					opts.RawPixels = true
					pre = append(pre, fmt.Sprintf("raw pixels (the model's metadata normalisation mean %v std %v is undone by the uint8 input's quantisation, as TensorFlow Lite's Task Library assumes)", n.Mean, n.Std))
				} else {
					opts.Normalization = &imageinput.Normalization{Mean: n.Mean, Std: n.Std}
					pre = append(pre, fmt.Sprintf("normalised with the model's metadata mean %v std %v", n.Mean, n.Std))
				}
			}
		}
	}
	b := img.Bounds()
	data, err := imageinput.Convert(img, t.Type, t.Shape, t.Quant, opts)
	if err != nil {
		var ce *imageinput.ChannelError
		if errors.As(err, &ce) {
			return "", fmt.Errorf("input %q: %w (--convert-channels)", t.Name, err)
		}
		if opts.Resize == imageinput.ResizeNone && strings.HasPrefix(err.Error(), "image is ") {
			return "", fmt.Errorf("input %q: %w (--resize bilinear or nearest to resize)", t.Name, err)
		}
		return "", fmt.Errorf("input %q: %w", t.Name, err)
	}
	if opts.Resize != imageinput.ResizeNone && t.Bytes() > 0 {
		pre = append(pre, fmt.Sprintf("resized from %dx%d (%s)", b.Dx(), b.Dy(), s.o.resize))
	}
	return strings.Join(pre, "; "), t.CopyFromBytes(data)
}

// copyAudio copies WAV samples into a float32 or int16 input.
func copyAudio(a *wav.Audio, t *ops.Tensor) error {
	if n := t.NumElements(); a.Samples() != n {
		return fmt.Errorf("the WAV file has %d frames x %d channel(s) = %d samples, the input %q %v takes %d", a.Frames, a.Channels, a.Samples(), t.Name, t.Shape, n)
	}
	switch t.Type {
	case ops.Float32:
		b := make([]byte, 0, 4*a.Samples())
		for _, v := range a.Float32() {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return t.CopyFromBytes(b)
	case ops.Int16:
		b := make([]byte, 0, 2*a.Samples())
		for _, v := range a.Int16() {
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		}
		return t.CopyFromBytes(b)
	default:
		return fmt.Errorf("cannot feed a WAV file to a %s input (supported: float32, int16)", t.Type)
	}
}

// outputReport prints one output.
type outputReport struct {
	t     *ops.Tensor
	limit int // -1: all
	top   []classScore
}

func (r *outputReport) shown() int {
	n := r.t.NumElements()
	if r.limit >= 0 {
		return min(n, r.limit)
	}
	return n
}

func (r *outputReport) writeText(w *bufio.Writer, i int) {
	t := r.t
	fmt.Fprintf(w, "output %d %q %s %v", i, t.Name, t.Type, t.Shape)
	if q := quantString(t.Quant); q != "" {
		fmt.Fprintf(w, " (%s)", q)
	}
	fmt.Fprintln(w)
	n, shown := t.NumElements(), r.shown()
	w.WriteString("  values: [")
	for k := 0; k < shown; k++ {
		if k > 0 {
			w.WriteByte(' ')
		}
		w.WriteString(formatElement(t.Type, t.Data, k))
	}
	if n > shown {
		fmt.Fprintf(w, " ... %d more (see --max-values, --output-dir)", n-shown)
	}
	w.WriteString("]\n")
	if len(r.top) > 0 {
		label := fmt.Sprintf("top %d", len(r.top))
		if t.Quant != nil && len(t.Quant.Scale) > 0 {
			label += " (dequantised)"
		}
		fmt.Fprintf(w, "  %s:\n", label)
		for _, c := range r.top {
			if c.Label != "" {
				fmt.Fprintf(w, "    class %-5d %-12s %s\n", c.Class, strconv.FormatFloat(c.Value, 'g', 6, 64), c.Label)
			} else {
				fmt.Fprintf(w, "    class %-5d %s\n", c.Class, strconv.FormatFloat(c.Value, 'g', 6, 64))
			}
		}
	}
}

// writeJSONReport writes the report as JSON, streaming each output's
// values from its tensor instead of building them in memory.
func writeJSONReport(w *bufio.Writer, rep *runReport, outs []outputReport) {
	head, _ := json.Marshal(rep.Model)
	fmt.Fprintf(w, "{\n  \"model\": %s,\n  \"inputs\": ", head)
	inputs, _ := json.MarshalIndent(rep.Inputs, "  ", "  ")
	if rep.Inputs == nil {
		inputs = []byte("[]")
	}
	w.Write(inputs)
	w.WriteString(",\n  \"outputs\": [")
	var buf []byte
	for i := range outs {
		t := outs[i].t
		o := struct {
			Index        int          `json:"index"`
			Name         string       `json:"name"`
			Type         string       `json:"type"`
			Shape        []int        `json:"shape"`
			Quantization *quantJSON   `json:"quantization,omitempty"`
			ValuesTotal  int          `json:"values_total"`
			Top          []classScore `json:"top,omitempty"`
		}{Index: i, Name: t.Name, Type: t.Type.String(), Shape: t.Shape, ValuesTotal: t.NumElements(), Top: outs[i].top}
		if o.Shape == nil {
			o.Shape = []int{}
		}
		if t.Quant != nil && len(t.Quant.Scale) > 0 {
			o.Quantization = &quantJSON{t.Quant.Scale, t.Quant.ZeroPoint, t.Quant.QuantizedDimension}
		}
		head, _ := json.Marshal(o)
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		w.Write(head[:len(head)-1])
		w.WriteString(`,"values":[`)
		for k := 0; k < outs[i].shown(); k++ {
			if k > 0 {
				w.WriteByte(',')
			}
			buf = appendJSONElement(buf[:0], t.Type, t.Data, k)
			w.Write(buf)
		}
		w.WriteString("]}")
	}
	w.WriteString("\n  ]\n}\n")
}
