package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
)

func newConvertCmd(stdout, stderr io.Writer) *cli.Command {
	var (
		out, signature, inputShapes, reportPath string
		inputArrays, outputArrays, printIRAfter []string
		noFuse, printPasses, allowCustomOps     bool
		quantizeMode                            string
		limits                                  = ir.DefaultLimits
	)
	f := cli.NewFlagSet()
	cmd := &cli.Command{
		Name:  "convert",
		Usage: "convert SAVED_MODEL_DIR|GRAPH.pb|GRAPH.pbtxt|MODEL.tflite -o OUT.tflite",
		Flags: f,
		Short: "Convert a TensorFlow SavedModel or GraphDef to a .tflite model, or re-fuse a .tflite",
		Long: `Convert reads a TensorFlow SavedModel directory, a frozen GraphDef (.pb) or a
text GraphDef (.pbtxt) and writes a TensorFlow Lite model that tflrun runs.

Given a .tflite model (a file with the "TFL3" identifier), convert reads it
whole (every subgraph, constant, quantisation parameter, signature and
metadata), checking it as tflrun run does, offers its recurrent WHILE loops
to the fusion rules (--no-fuse just rewrites it), quantises weights with
--quantize and writes it back; --fusion-report and --print-ir-after apply,
--signature, --input_arrays, --output_arrays and --input_shapes do not.

The entry point is a SavedModel signature (--signature, default
serving_default), or the tensors named by --input_arrays and --output_arrays
(required for a GraphDef's outputs), which also cut the graph there; without
serving_default, a SavedModel's root __call__ method. --input_shapes
(TensorFlow converter syntax, "1,49,10,1:1,5", one shape per input) pins any
dynamic dimension; each shape must have its input's declared rank and agree
on every static dimension. Without it dynamic dimensions are converted at 1
and written as -1 in shape_signature where the model is checked to run at
other sizes (a dynamic dimension past the batch where it does not is an
error); an input of unknown rank takes the shape its consumers fix, or, read
only by elementwise ops, is written as an unranked scalar.

Functions annotated with _implements / api_implements are offered to the
fusion rules before being inlined; --fusion-report FILE writes what became of
each (JSON when FILE ends in .json, "-" for standard output), and --no-fuse
lowers them op by op instead. Loops (While, TF1 while frames) with a static
trip count are unrolled; variables the model updates (stateful RNNs) become
state inputs and outputs named after the variable, or stay in a fused
operator's variable tensors.

--quantize=dynamic stores weights of at least 1024 elements as int8 and runs
the hybrid kernels (FULLY_CONNECTED, CONV_2D, the LSTM/RNN/SVDF family);
--quantize=float16 stores float weights as float16 behind DEQUANTIZE.

The conversion works within limits, so that a hostile model cannot make it
use unbounded memory or time; each error a limit causes names its flag:
--max-nodes bounds the graph's nodes (after cutting, inlining and unrolling),
--max-tensor-bytes one constant, --max-constant-bytes all constants alive at
once, --max-folded-bytes what constant folding creates in total (past it ops
stay as operators), --max-fold-elements one folded tensor, and
--max-loop-iterations and --max-list-length an unrolled loop and a
TensorList.

Before writing, convert loads the result in tflrun's interpreter and prepares
every operator; a model tflrun cannot run is not written, and the error names
the operator. A custom operator tflrun has no kernel for is refused too, unless
--allow-custom-ops is given (then a warning names it).

--print-passes lists the conversion passes in order and exits.
--print-ir-after=PASS[,PASS...] writes the IR (the converter's graph, one line
per node) to standard error after each named pass, --print-ir-after=all after
every pass, as MLIR's -mlir-print-ir-after does; redirect it with 2>FILE. The
steps of the inline loop print each round they apply.`,
		Args: func(args []string) error {
			if printPasses && len(args) == 0 {
				return nil
			}
			return exactArgs("tflrun convert", 1, "exactly one MODEL")(args)
		},
		Run: func(args []string) error {
			if printPasses {
				writePassList(stdout, convert.Passes(), "")
				return nil
			}
			if err := convert.CheckPassNames(printIRAfter); err != nil {
				return usageErrorf("--print-ir-after: %v", err)
			}
			if out == "" {
				return usageErrorf("convert needs -o OUT.tflite")
			}
			shapes, err := convert.ParseInputShapes(inputShapes)
			if err != nil {
				return usageErrorf("--input_shapes: %v", err)
			}
			qmode, err := convert.ParseQuantizeMode(quantizeMode)
			if err != nil {
				return usageErrorf("--quantize: %v", err)
			}
			opts := convert.Options{
				Signature: signature, InputArrays: inputArrays, OutputArrays: outputArrays,
				InputShapes: shapes, NoFuse: noFuse, Description: versionString() + " convert",
				Quantize: convert.QuantizeOptions{Mode: qmode}, PrintIRAfter: printIRAfter, PrintIRTo: stderr,
				MaxNodes: limits.MaxNodes, MaxTensorBytes: limits.MaxTensorBytes, MaxConstantBytes: limits.MaxConstantBytes,
				MaxFoldedBytes: limits.MaxFoldedBytes, MaxFoldElements: limits.MaxFoldElements,
				MaxLoopIterations: limits.MaxLoopIterations, MaxListLength: limits.MaxListLength,
			}
			if err := checkLimits(opts); err != nil {
				return err
			}
			res, convErr := convert.Convert(args[0], opts)
			if res != nil && res.Entry != nil {
				for _, n := range res.Entry.Notes {
					fmt.Fprintf(stderr, "note: %s\n", n)
				}
			}
			if res != nil && res.Report != nil && reportPath != "" {
				if err := writeFusionReport(reportPath, res, stdout); err != nil {
					return err
				}
			}
			if convErr != nil {
				if strings.Contains(convErr.Error(), "no TFLite legalisation for op") && len(inputArrays)+len(outputArrays) == 0 {
					// The usual way past an op TFLite lacks (an in-graph
					// FFT, a string decoder) is a cut around it.
					fmt.Fprintln(stderr, "hint: to convert the rest, cut the graph around that node with --input_arrays and --output_arrays (tflrun help convert; docs/cli.md)")
				}
				return convErr
			}
			// The converter must never write what tflrun cannot run without
			// saying so: load the result as `tflrun run` would.
			if err := checkRuns(res.Model, allowCustomOps, stderr); err != nil {
				return err
			}
			if err := os.WriteFile(out, res.Model, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s (%d bytes): %s\n", out, len(res.Model), opSummary(res))
			if custom := customOps(res); len(custom) > 0 {
				fmt.Fprintf(stdout, "note: custom operator(s) %s: tflrun runs them; stock TensorFlow Lite does not (its builtin resolver lacks them)\n", strings.Join(custom, ", "))
			}
			if res.Quantization != nil {
				fmt.Fprintf(stdout, "quantization %s: %s\n", qmode, res.Quantization.Describe())
			}
			for _, st := range res.States {
				if st.Input != nil {
					fmt.Fprintf(stdout, "state %q: input and output %q (feed each output back; start from the checkpoint value)\n", st.Variable.Name, st.Variable.Name)
				} else {
					fmt.Fprintf(stdout, "state %q: kept in variable tensor %q\n", st.Variable.Name, st.VariableTensor.Name)
				}
			}
			return nil
		},
	}
	f.StringVarP(&out, "output", "o", "", "the .tflite file to write")
	f.StringVar(&signature, "signature", "", "SavedModel signature key (default serving_default)")
	f.StringSliceVar(&inputArrays, "input_arrays", nil, "comma-separated input tensors (node or node:index)")
	f.StringSliceVar(&outputArrays, "output_arrays", nil, "comma-separated output tensors (node or node:index)")
	f.StringVar(&inputShapes, "input_shapes", "", `input shapes, "d0,d1,...:d0,d1,..." in input order`)
	f.StringVar(&reportPath, "fusion-report", "", `write the fusion report to FILE (JSON if it ends in .json, "-" for stdout)`)
	f.BoolVar(&noFuse, "no-fuse", false, "do not fuse composite functions; lower them op by op (loops unrolled over a static time dimension)")
	f.StringVar(&quantizeMode, "quantize", "none", "post-training weight quantization: none, dynamic (int8 weights, hybrid kernels) or float16")
	f.BoolVar(&allowCustomOps, "allow-custom-ops", false, "write the model even when it holds custom operators tflrun has no kernel for (a warning names them)")
	f.BoolVar(&printPasses, "print-passes", false, "list the conversion passes in order and exit")
	f.StringSliceVar(&printIRAfter, "print-ir-after", nil, "write the IR to stderr after the named passes (comma-separated, or all)")
	f.IntVar(&limits.MaxNodes, "max-nodes", limits.MaxNodes, "most nodes the graph may have after cutting, inlining and unrolling")
	f.Var(int64Flag{&limits.MaxTensorBytes}, "max-tensor-bytes", "most `bytes` of one constant tensor")
	f.Var(int64Flag{&limits.MaxConstantBytes}, "max-constant-bytes", "most `bytes` of all constant tensors alive at once")
	f.Var(int64Flag{&limits.MaxFoldedBytes}, "max-folded-bytes", "most `bytes` constant folding creates in total (past it ops are not folded)")
	f.IntVar(&limits.MaxFoldElements, "max-fold-elements", limits.MaxFoldElements, "most elements of one folded tensor (a larger one is not folded)")
	f.IntVar(&limits.MaxLoopIterations, "max-loop-iterations", limits.MaxLoopIterations, "most iterations of one unrolled loop")
	f.IntVar(&limits.MaxListLength, "max-list-length", limits.MaxListLength, "most items of one TensorList or TensorArray")
	return cmd
}

// int64Flag is an int64 flag (a byte count past 2 GiB does not fit an
// int on 32-bit platforms).
type int64Flag struct{ p *int64 }

func (v int64Flag) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v int64Flag) Set(s string) error {
	x, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

// checkLimits refuses a limit flag that is not positive (a zero would
// silently mean the default).
func checkLimits(o convert.Options) error {
	for _, l := range []struct {
		flag string
		v    int64
	}{{"max-nodes", int64(o.MaxNodes)}, {"max-tensor-bytes", o.MaxTensorBytes}, {"max-constant-bytes", o.MaxConstantBytes},
		{"max-folded-bytes", o.MaxFoldedBytes}, {"max-fold-elements", int64(o.MaxFoldElements)},
		{"max-loop-iterations", int64(o.MaxLoopIterations)}, {"max-list-length", int64(o.MaxListLength)}} {
		if l.v <= 0 {
			return usageErrorf("--%s must be positive, is %d", l.flag, l.v)
		}
	}
	return nil
}

// writePassList prints the pipeline, one pass a line with its
// description, a loop's passes indented under it.
func writePassList(w io.Writer, passes []convert.Pass, indent string) {
	width := 0
	for _, name := range convert.PassNames() {
		width = max(width, len(name))
	}
	for _, p := range passes {
		fmt.Fprintf(w, "%-*s  %s\n", width+4, indent+p.Name, p.Doc)
		if p.Loop != nil {
			writePassList(w, p.Loop.Each, indent+"  ")
			writePassList(w, p.Loop.Steps, indent+"  ")
		}
	}
}

func writeFusionReport(path string, res *convert.Result, stdout io.Writer) error {
	var data []byte
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		j, err := res.Report.JSON()
		if err != nil {
			return err
		}
		data = append(j, '\n')
	} else {
		data = []byte(res.Report.Text())
	}
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// stockCustom are the custom operators TensorFlow Lite's own
// BuiltinOpResolver registers (register.cc), which stock TFLite runs.
var stockCustom = map[string]bool{"AudioSpectrogram": true, "Mfcc": true, "TFLite_Detection_PostProcess": true}

// customOps lists the distinct custom operators of the converted model
// that stock TensorFlow Lite cannot run.
func customOps(res *convert.Result) []string {
	seen := map[string]bool{}
	var names []string
	for _, n := range resultNodes(res) {
		if n.TFL != nil && n.TFL.Custom != "" && !seen[n.TFL.Custom] && !stockCustom[n.TFL.Custom] {
			seen[n.TFL.Custom] = true
			names = append(names, n.TFL.Custom)
		}
	}
	sort.Strings(names)
	return names
}

// resultNodes are the nodes of every subgraph written.
func resultNodes(res *convert.Result) []*ir.Node {
	if res.Subgraphs == nil {
		return res.Entry.Func.Nodes
	}
	var all []*ir.Node
	for _, f := range res.Subgraphs {
		all = append(all, f.Nodes...)
	}
	return all
}

// opSummary counts the operators of the converted function
// ("13 operators: 5 CONV_2D, 4 DEPTHWISE_CONV_2D, ...").
func opSummary(res *convert.Result) string {
	counts := map[string]int{}
	total := 0
	for _, n := range resultNodes(res) {
		if n.TFL != nil {
			counts[strings.TrimPrefix(n.OpName(), "tfl.")]++
			total++
		}
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return fmt.Sprintf("%d operators: %s", total, strings.Join(parts, ", "))
}

// checkRuns loads a converted model in tflrun's interpreter (Load, New,
// AllocateTensors, so every operator is resolved and prepared) and fails
// naming what cannot run. A custom operator tflrun has no kernel for is
// an error, or with allowCustom a warning on w (the rest of the model is
// then not prepared, since preparation stops at the first such operator).
func checkRuns(model []byte, allowCustom bool, w io.Writer) error {
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		return fmt.Errorf("the converted model does not load in tflrun (nothing written): %w", err)
	}
	res := interpreter.DefaultResolver()
	var unknown []string
	seen := map[string]bool{}
	for _, sg := range m.Subgraphs {
		for _, op := range sg.Operators {
			if op.Op != ops.BuiltinCustom || seen[op.Custom] {
				continue
			}
			seen[op.Custom] = true
			if _, err := res.FindCustom(op.Custom); err != nil {
				unknown = append(unknown, op.Custom)
			}
		}
	}
	if len(unknown) > 0 {
		if !allowCustom {
			return fmt.Errorf("the converted model holds custom operator(s) %s, which tflrun has no kernel for (nothing written; --allow-custom-ops writes it anyway, for a runtime that registers them)", strings.Join(unknown, ", "))
		}
		fmt.Fprintf(w, "warning: custom operator(s) %s have no kernel in tflrun: the model runs only where a resolver registers them\n", strings.Join(unknown, ", "))
		return nil
	}
	it, err := interpreter.New(m, nil)
	if err == nil {
		err = it.AllocateTensors()
	}
	if err != nil {
		return fmt.Errorf("the converted model does not run in tflrun (nothing written): %w", err)
	}
	return nil
}
