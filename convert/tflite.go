package convert

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/legalize"
	"github.com/tflrun/tflrun/convert/internal/quantize"
	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// A .tflite model converts too (ConvertTFLite; Convert detects one by its
// "TFL3" file identifier): it is read into the IR, one function per
// subgraph with every operator a TFLite node, checked first as tflrun's
// interpreter checks a model it loads; its recurrent WHILE loops are
// offered to the fusion loop rules (unless Options.NoFuse); weights are
// quantised when Options.Quantize asks; and it is written back with its
// other subgraphs, signatures and metadata. With nothing to fuse or
// quantise the model written computes exactly what the model read does.
// The passes of this pipeline are tflitePasses; Options.PrintIRAfter
// prints every subgraph after them.

// tflitePasses are the passes of a .tflite conversion, in order.
var tflitePasses = []Pass{
	{Name: "import-tflite", Doc: "a .tflite model read into the IR: one function per subgraph, its operators TFLite nodes (package tflite)"},
	{Name: "fuse-tflite-loops", Doc: "a .tflite's recurrent WHILE loops raised to TensorFlow While loops and offered to the fusion loop rules; not with NoFuse"},
	{Name: "legalize", Doc: "what a fusion rule left as TensorFlow ops becomes TFLite operators (package legalize)"},
	{Name: "pair-bidirectional", Doc: "a forward and a go_backwards UNIDIRECTIONAL_SEQUENCE_LSTM over one input become one BIDIRECTIONAL_SEQUENCE_LSTM; after a fusion only"},
	{Name: "drop-dead-variables", Doc: "resource variables no output depends on, and a CALL_ONCE left with nothing to initialise, removed; after a fusion only"},
	{Name: "quantize", Doc: "post-training weight quantisation of every subgraph, with Options.Quantize (package quantize)"},
}

// IsTFLite reports whether data starts like a TFLite flatbuffer: the
// "TFL3" file identifier at bytes 4..8.
func IsTFLite(data []byte) bool {
	return len(data) >= 8 && string(data[4:8]) == schema.ModelIdentifier
}

// isTFLiteFile reports whether path is a regular file with the TFLite
// identifier.
func isTFLiteFile(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	head := make([]byte, 8)
	if _, err := io.ReadFull(fh, head); err != nil {
		return false
	}
	return IsTFLite(head)
}

// ConvertTFLite converts a .tflite flatbuffer (see the comment above
// tflitePasses). Options that select an entry point or pin shapes of a
// TensorFlow model (Signature, InputArrays, OutputArrays, InputShapes)
// do not apply to one and are refused. Result.Entry.Func is subgraph 0
// and Result.Subgraphs every subgraph written.
func ConvertTFLite(data []byte, opts Options) (*Result, error) {
	if err := CheckPassNames(opts.PrintIRAfter); err != nil {
		return nil, fmt.Errorf("Options.PrintIRAfter: %w", err)
	}
	switch {
	case opts.Signature != "":
		return nil, fmt.Errorf("Options.Signature (--signature) selects a SavedModel signature; a .tflite model keeps all of its signatures")
	case len(opts.InputArrays) > 0 || len(opts.OutputArrays) > 0:
		return nil, fmt.Errorf("Options.InputArrays/OutputArrays (--input_arrays, --output_arrays) cut a TensorFlow graph; they do not apply to a .tflite model")
	case len(opts.InputShapes) > 0:
		return nil, fmt.Errorf("Options.InputShapes (--input_shapes) pins a TensorFlow model's dynamic dimensions; a .tflite model's shapes are fixed (resize its inputs at run time)")
	}
	budget := opts.newBudget()
	m, err := tflite.Read(data, budget)
	if err != nil {
		return nil, fmt.Errorf("reading the .tflite model: %w", err)
	}
	printer, err := newPrinter(opts)
	if err != nil {
		return nil, err
	}
	report := &fusion.Report{}
	entry := m.Subgraphs[0]
	res := &Result{Report: report, Entry: &tfmodel.Entry{Func: entry, SignatureKey: entry.Name}}
	fail := func(err error) (*Result, error) {
		report.Error = err.Error()
		return res, err
	}
	if err := printer.afterAll("import-tflite", true, m); err != nil {
		return fail(err)
	}
	fused := false
	if opts.NoFuse {
		// Every loop is reported, as the SavedModel path reports the
		// composites it lowered.
		for _, f := range m.Subgraphs {
			for _, n := range f.Nodes {
				if n.TFL != nil && n.TFL.Builtin == schema.BuiltinOperatorWHILE && len(n.TFL.Subgraphs) == 2 {
					report.Add(fusion.Entry{Function: n.TFL.Subgraphs[1].Name, Call: n.Name, Attr: "loop", Implements: "WHILE",
						Reason: "--no-fuse (Options.NoFuse) keeps the WHILE loop"})
				}
			}
		}
	} else {
		fused, err = fuseTFLiteLoops(m, opts, report)
		if err == nil {
			err = budget.Err()
		}
		if err != nil {
			return fail(err)
		}
	}
	if err := printer.afterAll("fuse-tflite-loops", fused, m); err != nil {
		return fail(err)
	}
	if fused {
		for _, f := range m.Subgraphs {
			if err := legalize.Func(f); err != nil {
				return fail(err)
			}
		}
	}
	if err := printer.afterAll("legalize", fused, m); err != nil {
		return fail(err)
	}
	paired := 0
	if fused {
		for _, f := range m.Subgraphs {
			k, err := pairBidirectionalLSTM(f, report)
			if err != nil {
				return fail(err)
			}
			paired += k
		}
	}
	if err := printer.afterAll("pair-bidirectional", paired > 0, m); err != nil {
		return fail(err)
	}
	var dropped []string
	if fused {
		dropped = dropDeadVariables(m)
		if len(dropped) > 0 {
			report.Notes = append(report.Notes, fmt.Sprintf("dropped %d resource variable(s) no output depends on (only assigned, or read to assign them again): %s; "+
				"a CALL_ONCE left with nothing to initialise went with its subgraph", len(dropped), strings.Join(dropped, ", ")))
		}
	}
	if err := printer.afterAll("drop-dead-variables", len(dropped) > 0, m); err != nil {
		return fail(err)
	}
	if opts.Quantize.Mode != quantize.None {
		all := &quantize.Summary{}
		for _, f := range m.Subgraphs {
			qs, err := quantize.Apply(f, opts.Quantize)
			if err != nil {
				return fail(fmt.Errorf("%s: %w", f.Where(), err))
			}
			all.Weights = append(all.Weights, qs.Weights...)
			all.Skipped = append(all.Skipped, qs.Skipped...)
			all.BytesBefore += qs.BytesBefore
			all.BytesAfter += qs.BytesAfter
		}
		res.Quantization = all
	}
	if err := printer.afterAll("quantize", opts.Quantize.Mode != quantize.None, m); err != nil {
		return fail(err)
	}
	if err := budget.Err(); err != nil {
		return fail(err)
	}
	mt, err := tflite.BuildModel(m, opts.Description)
	if err != nil {
		return fail(err)
	}
	res.Model = tflite.Pack(mt)
	// The subgraphs written, for op counts (BuildModel drops those no
	// operator runs any more).
	for _, f := range m.Subgraphs {
		if f == entry || stillRun(m, f) {
			res.Subgraphs = append(res.Subgraphs, f)
		}
	}
	for _, s := range m.Signatures {
		if s.Subgraph == entry {
			res.Entry.SignatureKey = s.Key
			for _, in := range s.Inputs {
				res.Entry.InputNames = append(res.Entry.InputNames, in.Name)
			}
			for _, out := range s.Outputs {
				res.Entry.OutputNames = append(res.Entry.OutputNames, out.Name)
			}
			break
		}
	}
	return res, nil
}

// stillRun reports whether an operator of a subgraph of m runs f, or a
// signature names it.
func stillRun(m *tflite.Model, f *ir.Function) bool {
	for _, s := range m.Signatures {
		if s.Subgraph == f {
			return true
		}
	}
	for _, g := range m.Subgraphs {
		for _, n := range g.Nodes {
			if n.TFL == nil {
				continue
			}
			for _, h := range n.TFL.Subgraphs {
				if h == f {
					return true
				}
			}
		}
	}
	return false
}

// newPrinter is the IR printer Options.PrintIRAfter asks for (nil: none).
func newPrinter(opts Options) (*irPrinter, error) {
	if len(opts.PrintIRAfter) == 0 {
		return nil, nil
	}
	p := &irPrinter{w: opts.PrintIRTo, names: map[string]bool{}}
	if p.w == nil {
		p.w = os.Stderr
	}
	for _, name := range opts.PrintIRAfter {
		p.names[name] = true
	}
	return p, nil
}

// afterAll prints every subgraph of m after pass name.
func (p *irPrinter) afterAll(name string, applied bool, m *tflite.Model) error {
	if p == nil || !(p.names["all"] || p.names[name]) {
		return nil
	}
	if !applied {
		_, err := fmt.Fprintf(p.w, "// -----// IR after %s: nothing to do, unchanged //----- //\n", name)
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// -----// IR after %s //----- //\n", name)
	for _, f := range m.Subgraphs {
		if err := f.Print(&b); err != nil {
			return err
		}
	}
	_, err := p.w.Write(b.Bytes())
	return err
}
