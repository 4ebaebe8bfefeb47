// Package convert turns TensorFlow models — a SavedModel directory, a
// frozen GraphDef (.pb) or a text GraphDef (.pbtxt) — into TensorFlow Lite
// flatbuffers that tflrun's interpreter runs, in pure Go. It also reads a
// .tflite model and writes it back with its recurrent WHILE loops fused
// (ConvertTFLite; see tflite.go).
//
// The pipeline (Convert); steps 2 and 3 are the named passes Passes lists
// (tf_tfl_passes.go), whose IR Options.PrintIRAfter prints:
//
//  1. Read the model (package tfmodel) and cut its main graph to one entry
//     point: a signature (default "serving_default"), or named input and
//     output arrays. Every variable the entry point reads is resolved to
//     its checkpoint value.
//  2. Inline function calls, outermost first, simplifying as it goes
//     (package passes: shape inference from the entry point's static
//     shapes, constant folding, identity pruning, dead-node removal).
//     Each call of a function annotated "_implements"/"api_implements" is
//     first offered to the fusion registry (package fusion); a rule may
//     replace it by fused TFLite operators. Cycles in function calls are
//     errors naming the functions.
//     Loops with a static trip count (TF2 While/StatelessWhile, TF1
//     while-loop frames, which are functionalised first) are unrolled and
//     their TensorList/TensorArray items resolved to slices and packs
//     (package controlflow): a composite no rule fused, or every
//     composite with NoFuse, ends as primitive operators. Variables the
//     model updates (stateful RNNs) are kept as state: a state input and
//     output per variable, or a fused operator's variable tensor
//     (package stateful). Input and output arrays naming tensors inside
//     a SavedModel's functions cut the graph after inlining.
//  3. Legalise the remaining TensorFlow ops to TFLite builtins (package
//     legalize) and apply the converter's peephole optimisations
//     (package optimize); share identical constants; optionally quantise
//     weights (package quantize: dynamic range or float16).
//  4. Write the flatbuffer with a signature def and a description naming
//     tflrun (package tflite).
//
// Semantics are TensorFlow's, and the result reproduces what TensorFlow's
// own converter produces for the same model (the golden test for the
// MLPerf Tiny DS-CNN keyword-spotting SavedModel checks it to 1e-5).
package convert

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/quantize"
	"github.com/tflrun/tflrun/convert/internal/stateful"
	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Options configure a conversion. The zero value converts a SavedModel's
// "serving_default" signature with the default fusion rules.
type Options struct {
	// Signature is the SavedModel signature key ("" = serving_default,
	// or the only signature).
	Signature string
	// InputArrays and OutputArrays name graph tensors ("node" or
	// "node:index") to use as inputs and outputs, cutting the graph (a
	// GraphDef needs OutputArrays). In a SavedModel they may name tensors
	// inside its functions (by full path or a path suffix, or an Identity
	// that simplification removed) and the signature's input and output
	// keys ("input_1", "dense_1").
	InputArrays, OutputArrays []string
	// InputShapes gives one static shape per input, pinning dynamic
	// dimensions. Without it every dynamic dimension is converted at 1,
	// as TensorFlow's converter does, and kept as -1 in shape_signature
	// where the written model is checked to run at other sizes
	// (withDynamicBatch, withDynamicDims); a dynamic dimension past the
	// batch that does not is an error asking for it here. An input of
	// unknown rank takes the shape its consumers fix (inferUnknownRanks).
	// A shape contradicting its input's declared shape (another rank, or
	// another size for a static dimension) is an error naming the input
	// (tfmodel.CheckInputShape).
	InputShapes []ir.Shape
	// NoFuse turns composite fusion off: annotated functions are inlined
	// and lowered like any other, their loops unrolled (the report still
	// lists them, each with NoFuseReason).
	NoFuse bool
	// Registry holds the fusion rules (nil: fusion.Default).
	Registry *fusion.Registry
	// Description is written into the model (default: "tflrun convert").
	Description string
	// MaxNodes bounds the nodes of the entry function: the main graph as
	// read and cut to its inputs and outputs, and what inlining and
	// unrolling grow it to (default 250,000), so that a hostile model
	// cannot make the
	// conversion explode. The Max fields below are the conversion's other
	// limits (ir.Limits; zero takes the default, ir.DefaultLimits); each
	// conversion has its own, so conversions running at once in one
	// process do not interfere. An error a limit causes names it.
	MaxNodes int
	// MaxTensorBytes bounds one constant tensor: decoded from the graph,
	// read from the checkpoint or made by the converter (default 1 GiB).
	MaxTensorBytes int64
	// MaxConstantBytes bounds the bytes of all constant tensors alive at
	// once during the conversion (default 2 GiB): decoded, read, folded
	// or made by legalisation, counted as they are made; constants the
	// conversion dropped are not counted (ir.Budget).
	MaxConstantBytes int64
	// MaxFoldedBytes bounds the bytes constant folding creates over the
	// whole conversion, dropped ones included (default 1 GiB), which
	// bounds folding's time; past it ops stay unfolded and are lowered
	// as operators.
	MaxFoldedBytes int64
	// MaxFoldElements bounds the elements of one tensor constant folding
	// produces (default 16M); a larger result leaves the op unfolded.
	MaxFoldElements int
	// MaxLoopIterations bounds the trip count of one unrolled loop
	// (default 4096).
	MaxLoopIterations int
	// MaxListLength bounds the items of one TensorList or TensorArray
	// (default 65536).
	MaxListLength int
	// Quantize selects post-training weight quantisation
	// (QuantizeOptions): none (the zero value), dynamic range (int8
	// weights, hybrid kernels; QuantizeDynamic) or float16
	// (QuantizeFloat16).
	Quantize QuantizeOptions
	// PrintIRAfter names passes (PassNames, or "all") after which the
	// entry function's IR is written to PrintIRTo, as MLIR's
	// -mlir-print-ir-after does (ir.Function.Print gives the form). A
	// pass that had nothing to do gets a header line only; a step of the
	// inline loop is printed each round it applies. An unknown name is an
	// error listing the passes (CheckPassNames).
	PrintIRAfter []string
	// PrintIRTo receives the IR PrintIRAfter asks for (nil: os.Stderr).
	PrintIRTo io.Writer

	// cut is a pending cut at tensors inside functions (deepcut.go).
	cut *deepCut
	// noIncremental turns incremental simplification off (tests compare
	// the two).
	noIncremental bool
}

// Limits returns the limits opts asks for, defaults filled in.
func (opts Options) Limits() ir.Limits {
	return ir.Limits{MaxNodes: opts.MaxNodes, MaxTensorBytes: opts.MaxTensorBytes, MaxConstantBytes: opts.MaxConstantBytes,
		MaxFoldedBytes: opts.MaxFoldedBytes, MaxFoldElements: opts.MaxFoldElements, MaxLoopIterations: opts.MaxLoopIterations,
		MaxListLength: opts.MaxListLength}.WithDefaults()
}

// limitNames names each limit's option and tflrun convert flag, for the
// errors a limit causes.
var limitNames = map[string]string{
	"MaxNodes":          "Options.MaxNodes, --max-nodes",
	"MaxTensorBytes":    "Options.MaxTensorBytes, --max-tensor-bytes",
	"MaxConstantBytes":  "Options.MaxConstantBytes, --max-constant-bytes",
	"MaxFoldedBytes":    "Options.MaxFoldedBytes, --max-folded-bytes",
	"MaxFoldElements":   "Options.MaxFoldElements, --max-fold-elements",
	"MaxLoopIterations": "Options.MaxLoopIterations, --max-loop-iterations",
	"MaxListLength":     "Options.MaxListLength, --max-list-length",
}

// newBudget is the budget of one conversion under opts.
func (opts Options) newBudget() *ir.Budget {
	b := ir.NewBudget(opts.Limits())
	b.Names = limitNames
	return b
}

// Result is a converted model.
type Result struct {
	// Model is the .tflite flatbuffer.
	Model []byte
	// Report lists the composite calls met and what became of them.
	Report *fusion.Report
	// Entry describes the converted entry point; Entry.Func is the final
	// TFLite-level function.
	Entry *tfmodel.Entry
	// States lists the variables the model updates at inference and how
	// the converted model keeps them (package stateful): a state input
	// and output pair named after the variable in the signature, or a
	// variable tensor.
	States []stateful.State
	// Quantization says which weights were quantised (nil without
	// Options.Quantize).
	Quantization *quantize.Summary
	// Subgraphs are the subgraphs written when the model converted was a
	// .tflite (ConvertTFLite), Entry.Func first; nil otherwise.
	Subgraphs []*ir.Function
}

// Convert reads the model at path (a SavedModel directory, a GraphDef
// file, or a .tflite file, told by its "TFL3" identifier; see
// ConvertTFLite) and converts it.
func Convert(path string, opts Options) (*Result, error) {
	if err := CheckPassNames(opts.PrintIRAfter); err != nil {
		return nil, fmt.Errorf("Options.PrintIRAfter: %w", err)
	}
	if isTFLiteFile(path) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return ConvertTFLite(data, opts)
	}
	m, err := tfmodel.Load(path)
	if err != nil {
		return nil, err
	}
	return ConvertModel(m, opts)
}

// ConvertModel converts a model already read. On an error after the
// entry point was built, the returned Result (without Model) still
// carries the fusion report.
func ConvertModel(m *tfmodel.Model, opts Options) (*Result, error) {
	if err := CheckPassNames(opts.PrintIRAfter); err != nil {
		return nil, fmt.Errorf("Options.PrintIRAfter: %w", err)
	}
	budget := opts.newBudget()
	eopts := tfmodel.EntryOptions{Signature: opts.Signature, InputArrays: opts.InputArrays,
		OutputArrays: opts.OutputArrays, InputShapes: opts.InputShapes, Budget: budget}
	// Signature keys ("input_1", "dense_1") name the signature's tensors:
	// with input arrays, the main graph's tensors they map to, when that
	// makes every array one of the main graph; else (below) the entry's
	// inputs and results.
	if in, out := signatureArrays(m, opts.Signature, opts.InputArrays, opts.OutputArrays); len(in) > 0 && !needsDeepCut(m, Options{InputArrays: in, OutputArrays: out}) {
		eopts.InputArrays, eopts.OutputArrays = in, out
	}
	if needsDeepCut(m, Options{InputArrays: eopts.InputArrays, OutputArrays: eopts.OutputArrays}) {
		// The arrays live inside functions: start from the signature and
		// cut once inlining has brought them into the entry function.
		// Input arrays that are the signature's inputs, by key, are
		// those it starts from.
		if allSignatureInputs(m, opts.Signature, opts.InputArrays) {
			opts.InputArrays = nil
		}
		opts.cut = &deepCut{inputs: opts.InputArrays, outputs: opts.OutputArrays, shapes: opts.InputShapes, identities: libraryIdentities(m)}
		eopts = tfmodel.EntryOptions{Signature: opts.Signature, Budget: budget}
		if len(opts.InputArrays) == 0 {
			// Only the outputs are cut: the shapes are the signature
			// inputs', checked and pinned at the entry as without a cut.
			eopts.InputShapes, opts.cut.shapes = opts.InputShapes, nil
		}
	}
	entry, err := m.Entry(eopts)
	if err != nil {
		return nil, err
	}
	f := entry.Func
	var dyn, unranked []bool
	if eopts.InputShapes == nil {
		var notes []string
		if unranked, notes, err = inferUnknownRanks(m, entry); err != nil {
			return nil, err
		}
		entry.Notes = append(entry.Notes, notes...)
	}
	// A batch given as -1 in InputShapes is left dynamic as a declared
	// one is: converted at 1 and kept where the model runs at any batch.
	dyn = pinBatch(f)
	// The entry's input shapes at batch 2, for converting again there
	// when the dynamic batch needs it (withDynamicBatch).
	var at2Shapes []ir.Shape
	for i, p := range f.Params {
		s := p.Shape.Clone()
		if i < len(dyn) && dyn[i] {
			s[0] = 2
		}
		at2Shapes = append(at2Shapes, s)
	}
	var inner [][]int
	var staticErr error
	if opts.cut != nil {
		opts.cut.entry = entry
	} else if staticErr = checkInputsStatic(m, entry); staticErr != nil {
		// Dynamic dimensions past the batch: converted at 1, as
		// TensorFlow's converter writes them, and kept only if the
		// model then runs at other sizes as converted there
		// (withDynamicDims); else the error stands.
		if eopts.InputShapes != nil {
			return nil, staticErr
		}
		if inner = pinInner(f); inner == nil {
			return nil, staticErr
		}
		for i, dims := range inner {
			for _, d := range dims {
				at2Shapes[i][d] = 1
			}
		}
	}
	report := &fusion.Report{}
	states, qs, err := lower(f, m.Module, opts, report)
	if err != nil && staticErr != nil {
		return nil, fmt.Errorf("%w (converted with the dynamic dimensions at 1, it fails: %v)", staticErr, err)
	}
	if err != nil {
		// The report so far says which composites were met before the
		// failure; callers may print it, and it says the conversion failed.
		report.Error = err.Error()
		return &Result{Report: report, Entry: entry}, err
	}
	// State inputs and outputs are named after their variable in the
	// signature, so a caller can feed each output back to its input.
	for _, st := range states {
		if st.Input != nil {
			entry.InputNames = append(entry.InputNames, st.Variable.Name)
		}
		if st.Output >= 0 {
			entry.OutputNames = append(entry.OutputNames, st.Variable.Name)
		}
	}
	desc := opts.Description
	if desc == "" {
		desc = "tflrun convert"
	}
	mt, err := tflite.Build(f, tflite.Signature{Key: entry.SignatureKey, InputNames: entry.InputNames, OutputNames: entry.OutputNames}, desc)
	if err != nil {
		report.Error = err.Error()
		return &Result{Report: report, Entry: entry}, err
	}
	// The state inputs appended after the entry's own are not the
	// SavedModel's and keep their static shape; a deep cut makes other
	// inputs than the ones pinned, and keeps its static shapes.
	if opts.cut != nil || len(dyn) > len(f.Params) {
		dyn = nil
	}
	for len(dyn) > 0 && len(dyn) < len(f.Params) {
		dyn = append(dyn, false)
	}
	if inner != nil {
		at3 := make([]ir.Shape, len(at2Shapes))
		for i, sh := range at2Shapes {
			at3[i] = sh.Clone()
			if i < len(dyn) && dyn[i] {
				at3[i][0] = 1
			}
			if i < len(inner) {
				for _, d := range inner[i] {
					at3[i][d] = innerCheck
				}
			}
		}
		o := opts
		o.InputShapes, o.PrintIRAfter = at3, nil
		res3, err := ConvertModel(m, o)
		if err != nil {
			return nil, fmt.Errorf("%w (converted with them at %d, it fails: %v)", staticErr, innerCheck, err)
		}
		freed, note, err := withDynamicDims(mt, res3.Model, inner, at3)
		if err != nil {
			return nil, fmt.Errorf("%w (converted at 1, the model does not run at other sizes as converted there: %v)", staticErr, err)
		}
		mt = freed
		report.Notes = append(report.Notes, note)
	}
	markUnranked(mt, unranked)
	at2 := func() *schema.ModelT {
		if len(reshapeShapes(mt)) == 0 {
			return nil
		}
		o := opts
		o.InputShapes, o.PrintIRAfter, o.cut = at2Shapes, nil, nil
		res, err := ConvertModel(m, o)
		if err != nil {
			return nil
		}
		return schema.GetRootAsModel(res.Model, 0).UnPack()
	}
	data, note := withDynamicBatch(mt, dyn, entry.InputNames, at2)
	if note != "" {
		report.Notes = append(report.Notes, note)
	}
	return &Result{Model: data, Report: report, Entry: entry, States: states, Quantization: qs}, nil
}

// checkInputsStatic refuses, before any pass runs, an entry whose input
// has an unknown rank or a dynamic dimension past the batch (a dynamic
// batch left by InputShapes is for the passes to judge): the
// converted model needs a static shape for each input, and the error
// would otherwise surface deep in the graph, naming some tensor the
// input reaches. It names the input and what --input_shapes wants.
func checkInputsStatic(m *tfmodel.Model, e *tfmodel.Entry) error {
	for i, p := range e.Func.Params {
		if p.Shape.RankKnown() && (len(p.Shape) == 0 || p.Shape[1:].Static()) {
			continue
		}
		var why string
		if !p.Shape.RankKnown() {
			why = "has an unknown rank (its declaration gives no shape)"
		} else {
			why = fmt.Sprintf("has the dynamic shape %s", p.Shape)
		}
		return fmt.Errorf("%s: input %d %q %s; give the shape of every input, in order (%s), with --input_shapes (InputShapes), e.g. --input_shapes %s",
			m.Path, i, e.InputNames[i], why, strings.Join(e.InputNames, ", "), exampleShapes(e.Func.Params))
	}
	return nil
}

// exampleShapes spells the inputs' shapes in --input_shapes syntax, each
// unknown dimension (or an unknown shape) shown as a placeholder the user
// replaces.
func exampleShapes(params []*ir.Value) string {
	var parts []string
	for _, p := range params {
		if !p.Shape.RankKnown() {
			parts = append(parts, "D0,D1,…")
			continue
		}
		var dims []string
		for i, d := range p.Shape {
			if d < 0 {
				dims = append(dims, fmt.Sprintf("D%d", i))
			} else {
				dims = append(dims, fmt.Sprint(d))
			}
		}
		parts = append(parts, strings.Join(dims, ","))
	}
	return strings.Join(parts, ":")
}

// pinInner sets every unknown dimension past the leading one of each
// input to 1 and returns them, per input (nil when there is none).
func pinInner(f *ir.Function) [][]int {
	var inner [][]int
	found := false
	for _, p := range f.Params {
		var dims []int
		for d := 1; d < len(p.Shape); d++ {
			if p.Shape[d] < 0 {
				dims = append(dims, d)
			}
		}
		if dims != nil {
			p.Shape = p.Shape.Clone()
			for _, d := range dims {
				p.Shape[d] = 1
			}
			found = true
		}
		inner = append(inner, dims)
	}
	if !found {
		return nil
	}
	return inner
}

// pinBatch sets an unknown leading dimension of each input to 1 and
// reports which inputs had one (the written model keeps it as
// shape_signature -1 where it runs at any batch: withDynamicBatch).
func pinBatch(f *ir.Function) []bool {
	dyn := make([]bool, len(f.Params))
	for i, p := range f.Params {
		if len(p.Shape) > 0 && p.Shape[0] < 0 {
			p.Shape = p.Shape.Clone()
			p.Shape[0] = 1
			dyn[i] = true
		}
	}
	return dyn
}

// Lower runs the conversion passes (Passes) on an entry function: inline
// (offering composites to the fusion registry), simplify, check that no
// variable update is dropped, legalise, optimise, quantise. On success
// every node of f is a TFLite operator or a constant.
//
// Variables the model updates (stateful RNNs) become state inputs and
// outputs appended to f's parameters and results, or variable tensors
// (package stateful).
func Lower(f *ir.Function, m *ir.Module, opts Options, report *fusion.Report) error {
	_, _, err := lower(f, m, opts, report)
	return err
}

// lower is Lower, also returning the model's state variables and what
// quantisation did.
func lower(f *ir.Function, m *ir.Module, opts Options, report *fusion.Report) ([]stateful.State, *quantize.Summary, error) {
	s, err := newState(f, m, opts, report)
	if err != nil {
		return nil, nil, err
	}
	if err := s.run(pipeline()); err != nil {
		return nil, nil, err
	}
	return s.states, s.quant, nil
}

// InlineCalls runs the TensorFlow-level passes of the pipeline on f
// (those before lower-state; see Passes): TF1 loops functionalised, every
// function call inlined outermost first after offering each call of an
// annotated function to the fusion registry, loops and lists lowered, a
// deep cut applied. It leaves f simplified. Errors: a cycle of calls
// (naming the chain), a function missing from the library, a call not
// matching its function, the MaxNodes budget exceeded, a rule's error, or
// a rule that fused but left an output of the call in use.
func InlineCalls(f *ir.Function, m *ir.Module, opts Options, report *fusion.Report) error {
	s, err := newState(f, m, opts, report)
	if err != nil {
		return err
	}
	return s.run(tfPasses)
}
