// Package convert turns TensorFlow models — a SavedModel directory, a
// frozen GraphDef (.pb) or a text GraphDef (.pbtxt) — into TensorFlow Lite
// flatbuffers that tflrun's interpreter runs, in pure Go.
//
// The pipeline (Convert):
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
//  3. Legalise the remaining TensorFlow ops to TFLite builtins and apply
//     the converter's peephole optimisations (package legalize); share
//     identical constants; optionally quantise weights (package
//     quantize: dynamic range or float16).
//  4. Write the flatbuffer with a signature def and a description naming
//     tflrun (package tflite).
//
// Semantics are TensorFlow's, and the result reproduces what TensorFlow's
// own converter produces for the same model (the golden test for the
// MLPerf Tiny DS-CNN keyword-spotting SavedModel checks it to 1e-5).
package convert

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/controlflow"
	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/convert/legalize"
	"github.com/tflrun/tflrun/convert/optimize"
	"github.com/tflrun/tflrun/convert/passes"
	"github.com/tflrun/tflrun/convert/quantize"
	"github.com/tflrun/tflrun/convert/stateful"
	"github.com/tflrun/tflrun/convert/tflite"
	"github.com/tflrun/tflrun/convert/tfmodel"
)

// Options configure a conversion. The zero value converts a SavedModel's
// "serving_default" signature with the default fusion rules.
type Options struct {
	// Signature is the SavedModel signature key ("" = serving_default,
	// or the only signature).
	Signature string
	// InputArrays and OutputArrays name graph tensors ("node" or
	// "node:index") to use as inputs and outputs, cutting the graph (a
	// GraphDef needs OutputArrays).
	InputArrays, OutputArrays []string
	// InputShapes gives one static shape per input, pinning dynamic
	// dimensions. Without it a dynamic batch dimension (dimension 0) is
	// pinned to 1, as TensorFlow's converter does; other dynamic
	// dimensions must be pinned here. A shape contradicting its input's
	// declared shape (another rank, or another size for a static
	// dimension) is an error naming the input (tfmodel.CheckInputShape).
	InputShapes []ir.Shape
	// NoFuse turns composite fusion off: annotated functions are inlined
	// and lowered like any other, their loops unrolled (the report still
	// lists them, each with NoFuseReason).
	NoFuse bool
	// Registry holds the fusion rules (nil: fusion.Default).
	Registry *fusion.Registry
	// Description is written into the model (default: "tflrun convert").
	Description string
	// MaxNodes bounds the size of the inlined graph (default 250,000),
	// so that a hostile model cannot make inlining explode.
	MaxNodes int
	// Quantize selects post-training weight quantisation (package
	// quantize): none (the zero value), dynamic range (int8 weights,
	// hybrid kernels) or float16.
	Quantize quantize.Options

	// cut is a pending cut at tensors inside functions (deepcut.go).
	cut *deepCut
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
}

// Convert reads the model at path (a SavedModel directory or a GraphDef
// file) and converts it.
func Convert(path string, opts Options) (*Result, error) {
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
	eopts := tfmodel.EntryOptions{Signature: opts.Signature, InputArrays: opts.InputArrays,
		OutputArrays: opts.OutputArrays, InputShapes: opts.InputShapes}
	if needsDeepCut(m, opts) {
		// The arrays live inside functions: start from the signature and
		// cut once inlining has brought them into the entry function.
		opts.cut = &deepCut{inputs: opts.InputArrays, outputs: opts.OutputArrays, shapes: opts.InputShapes}
		eopts = tfmodel.EntryOptions{Signature: opts.Signature}
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
	if eopts.InputShapes == nil {
		pinBatch(f)
	}
	if opts.cut != nil {
		opts.cut.entry = entry
	}
	report := &fusion.Report{}
	states, qs, err := lower(f, m.Module, opts, report)
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
	data, err := tflite.Write(f, tflite.Signature{Key: entry.SignatureKey, InputNames: entry.InputNames, OutputNames: entry.OutputNames}, desc)
	if err != nil {
		report.Error = err.Error()
		return &Result{Report: report, Entry: entry}, err
	}
	return &Result{Model: data, Report: report, Entry: entry, States: states, Quantization: qs}, nil
}

// pinBatch sets an unknown leading dimension of each input to 1.
func pinBatch(f *ir.Function) {
	for _, p := range f.Params {
		if len(p.Shape) > 0 && p.Shape[0] < 0 {
			p.Shape = p.Shape.Clone()
			p.Shape[0] = 1
		}
	}
}

// Lower runs steps 2 and 3 of the pipeline on an entry function: inline
// (offering composites to the fusion registry), simplify, check that no
// variable update is dropped, legalise and optimise. On success every node
// of f is a TFLite operator or a constant.
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
	if err := InlineCalls(f, m, opts, report); err != nil {
		return nil, nil, err
	}
	states, err := stateful.Lower(f)
	if err != nil {
		return nil, nil, err
	}
	if len(states) > 0 {
		if err := passes.Simplify(f); err != nil {
			return nil, nil, err
		}
	}
	if err := passes.CheckNoStateWrites(f); err != nil {
		return nil, nil, err
	}
	if err := legalize.Func(f); err != nil {
		return nil, nil, err
	}
	if err := optimize.Func(f); err != nil {
		return nil, nil, err
	}
	// Unrolled loops legalise the same weights once per time step.
	passes.ShareConstants(f)
	var qs *quantize.Summary
	if opts.Quantize.Mode != quantize.None {
		if qs, err = quantize.Apply(f, opts.Quantize); err != nil {
			return nil, nil, err
		}
	}
	return states, qs, nil
}

// maxCallDepth bounds nested inlining.
const maxCallDepth = 256

// InlineCalls inlines every function call in f, outermost first, after
// offering each call of an annotated function to the fusion registry.
// It leaves f simplified. Errors: a cycle of calls (naming the chain), a
// function missing from the library, a call not matching its function,
// the MaxNodes budget exceeded, a rule's error, or a rule that fused but
// left an output of the call in use.
func InlineCalls(f *ir.Function, m *ir.Module, opts Options, report *fusion.Report) error {
	reg := opts.Registry
	if reg == nil {
		reg = fusion.Default
	}
	budget := opts.MaxNodes
	if budget <= 0 {
		budget = 250_000
	}
	// Before anything sorts or simplifies f: TF1 loops are cycles until
	// functionalised, and updated variables must not fold to constants.
	if err := controlflow.FunctionalizeV1(f, m); err != nil {
		return err
	}
	if _, err := stateful.MarkState(f, m); err != nil {
		return err
	}
	offeredLoops := map[*ir.Node]bool{}
	for {
		if err := passes.Simplify(f); err != nil {
			return err
		}
		call, name, err := firstCall(f, m)
		if err != nil {
			return err
		}
		if call == nil {
			// No call left: offer unannotated recurrent loops to the
			// fusion loop rules (SimpleRNN), then lower the next loop,
			// conditional or list (package controlflow); its bodies may
			// hold calls again.
			if !opts.NoFuse {
				fused, err := fusion.OfferLoops(f, m, reg, report, offeredLoops)
				if err != nil {
					return err
				}
				if fused {
					continue
				}
			}
			more, err := controlflow.Step(f, m, budget)
			if err != nil {
				return err
			}
			if !more {
				return opts.cut.finish(f)
			}
			continue
		}
		for i, outer := range call.InlinedFrom {
			if outer == name {
				chain := append(append([]string(nil), call.InlinedFrom[i:]...), name)
				return call.Errorf("function calls form a cycle: %s", strings.Join(chain, " → "))
			}
		}
		if len(call.InlinedFrom) >= maxCallDepth {
			return call.Errorf("function calls nest more than %d deep", maxCallDepth)
		}
		callee, err := m.Function(name)
		if err != nil {
			return call.Wrap(err)
		}
		spec, err := passes.Specialize(callee, call)
		if err != nil {
			return err
		}
		if attr, impl, ok := spec.Implements(); ok {
			fused, err := offer(f, m, call, spec, name, attr, impl, reg, opts, report)
			if err != nil {
				return err
			}
			if fused {
				continue
			}
		}
		if len(f.Nodes)+len(spec.Nodes) > budget {
			return fmt.Errorf("%s: inlining %s would grow the graph past %d nodes", f.Where(), name, budget)
		}
		if err := f.Inline(call, spec); err != nil {
			return err
		}
		if _, err := opts.cut.try(f); err != nil {
			return err
		}
	}
}

// firstCall returns the first call node in topological order.
func firstCall(f *ir.Function, m *ir.Module) (*ir.Node, string, error) {
	for _, n := range f.Nodes {
		name, ok, err := passes.CallTarget(m, n)
		if err != nil {
			return nil, "", err
		}
		if ok {
			return n, name, nil
		}
	}
	return nil, "", nil
}

// NoFuseReason is the fusion report's reason for a composite call left
// unfused because Options.NoFuse (--no-fuse) is set.
const NoFuseReason = "--no-fuse (Options.NoFuse) lowers composites op by op"

// offer gives a composite call to its rule and records the outcome.
func offer(f *ir.Function, m *ir.Module, call *ir.Node, spec *ir.Function, name, attr, impl string,
	reg *fusion.Registry, opts Options, report *fusion.Report) (bool, error) {
	e := fusion.Entry{Function: name, Call: call.Name, Attr: attr, Implements: impl}
	defer func() { report.Add(e) }()
	if opts.NoFuse {
		e.Reason = NoFuseReason
		return false, nil
	}
	rule, ok := reg.Lookup(impl)
	if !ok {
		e.Reason = "no fusion rule registered for this annotation; lowered op by op"
		return false, nil
	}
	e.Rule = rule.Name()
	before := len(f.Nodes)
	res, err := fusion.Offer(rule, &fusion.Site{Caller: f, Call: call, Callee: spec, Attr: attr, Name: impl, Module: m})
	if err != nil {
		return false, fmt.Errorf("fusion rule %s on call %q of %s: %w", rule.Name(), call.Name, name, err)
	}
	e.Fused, e.Reason, e.Ops = res.Fused, res.Reason, res.Ops
	if !res.Fused {
		if len(f.Nodes) != before {
			return false, fmt.Errorf("fusion rule %s refused call %q of %s but changed the graph", rule.Name(), call.Name, name)
		}
		return false, nil
	}
	for i, o := range call.Outputs {
		for _, n := range f.Nodes {
			if n == call {
				continue
			}
			for _, in := range n.Inputs {
				if in == o {
					return false, fmt.Errorf("fusion rule %s fused call %q of %s but output %d is still used by %s", rule.Name(), call.Name, name, i, n)
				}
			}
		}
		if f.IsResult(o) {
			return false, fmt.Errorf("fusion rule %s fused call %q of %s but output %d is still a result", rule.Name(), call.Name, name, i)
		}
	}
	f.RemoveNodes(map[*ir.Node]bool{call: true})
	return true, nil
}
