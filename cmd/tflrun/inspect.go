package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/metadata"
	"github.com/tflrun/tflrun/ops"
)

func newInspectCmd(stdout io.Writer) *cli.Command {
	var asJSON bool
	var mem memoryFlag
	cmd := &cli.Command{
		Name:  "inspect",
		Usage: "inspect MODEL [--json]",
		Short: "Describe a model: tensors, operators, signatures, metadata, support",
		Long: `Inspect prints a model's schema version, description and size; each subgraph's
inputs and outputs (name, type, shape, shape_signature, quantisation) and
operators (index, name, version, options, input and output tensors); its
signature defs and metadata buffers; its TensorFlow Lite Metadata (name,
version, author, licence, what each input and output is, normalisation,
associated files such as labels, and the files zipped onto the model); the
total size of its constant buffers; which operators tflrun has no kernel for
(looked up in the default resolver, with the reason); and whether tensor
allocation succeeds within the memory bound (--max-memory).`,
		Args:  exactArgs("tflrun inspect", 1, "exactly one MODEL"),
		Flags: cli.NewFlagSet(),
		Run: func(args []string) error {
			m, err := interpreter.Load(args[0])
			if err != nil {
				return err
			}
			defer m.Close()
			rep := describeModel(args[0], m, &mem)
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			rep.writeText(stdout)
			return nil
		},
	}
	cmd.Flags.BoolVar(&asJSON, "json", false, "print a JSON document instead of text")
	cmd.Flags.Var(&mem, "max-memory", memoryFlagUsage)
	return cmd
}

type inspectReport struct {
	Model       string            `json:"model"`
	Size        int               `json:"size"`
	Version     uint32            `json:"schema_version"`
	Description string            `json:"description"`
	Subgraphs   []inspectSubgraph `json:"subgraphs"`
	Signatures  []inspectSig      `json:"signatures"`
	Metadata    []inspectMeta     `json:"metadata"`
	// TFLiteMetadata is the decoded TFLITE_METADATA buffer, and
	// AssociatedFiles the files zipped onto the model;
	// TFLiteMetadataError says why they could not be read.
	TFLiteMetadata      *metadata.ModelMetadata `json:"tflite_metadata,omitempty"`
	AssociatedFiles     []inspectFile           `json:"associated_files,omitempty"`
	TFLiteMetadataError string                  `json:"tflite_metadata_error,omitempty"`
	BufferBytes         int64                   `json:"buffer_bytes"`
	Unsupported         []inspectUnsup          `json:"unsupported_operators"`
	// Flex lists the Flex (TensorFlow) operators of the model, by custom
	// code in order of first appearance, and whether tflrun runs each.
	Flex []inspectFlex `json:"flex_operators"`
	// RecurrentLoops counts the WHILE loops that look like unfused
	// recurrent layers (tflrun convert can fuse them).
	RecurrentLoops int    `json:"recurrent_loops"`
	Allocation     string `json:"allocation"`
	// Blockers are every error preparing the operators met (each
	// unsupported operator, version, type combination or shape), not
	// only the first, which Allocation reports; empty when it is ok.
	Blockers      []string `json:"blockers"`
	ArenaBytes    int      `json:"arena_bytes"`
	VariableBytes int      `json:"variable_bytes"`
	// PrecomputedBytes is what the outputs of DEQUANTIZE operators with
	// constant inputs occupy, computed once at allocation (bytes).
	PrecomputedBytes int `json:"precomputed_bytes"`
}

type inspectSubgraph struct {
	Index     int             `json:"index"`
	Name      string          `json:"name"`
	Tensors   int             `json:"tensor_count"`
	Inputs    []inspectTensor `json:"inputs"`
	Outputs   []inspectTensor `json:"outputs"`
	Operators []inspectOp     `json:"operators"`
}

type inspectTensor struct {
	Tensor       int        `json:"tensor"`
	Name         string     `json:"name"`
	Type         string     `json:"type"`
	Shape        []int      `json:"shape"`
	Signature    []int      `json:"shape_signature,omitempty"`
	Quantization *quantJSON `json:"quantization,omitempty"`
	Variable     bool       `json:"is_variable,omitempty"`
	quant        *ops.Quantization
}

type inspectOp struct {
	Index         int    `json:"index"`
	Name          string `json:"name"`
	Version       int    `json:"version"`
	Inputs        []int  `json:"inputs"`
	Outputs       []int  `json:"outputs"`
	Intermediates []int  `json:"intermediates,omitempty"`
	OptionsType   string `json:"options_type,omitempty"`
	// Options is the decoded options as Go prints them (%+v), or a note
	// that tflrun does not decode this options table.
	Options string `json:"options,omitempty"`
}

type inspectSig struct {
	Key      string           `json:"key"`
	Subgraph int              `json:"subgraph"`
	Inputs   []inspectSigPort `json:"inputs"`
	Outputs  []inspectSigPort `json:"outputs"`
}

type inspectSigPort struct {
	Name   string `json:"name"`
	Tensor int    `json:"tensor"`
}

type inspectMeta struct {
	Name  string `json:"name"`
	Bytes int    `json:"bytes"`
}

type inspectFile struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

type inspectUnsup struct {
	Subgraph int    `json:"subgraph"`
	Index    int    `json:"index"`
	Name     string `json:"name"`
	Version  int    `json:"version"`
	Reason   string `json:"reason"`
}

// inspectFlex is one Flex operator of a model: its custom code, how many
// operators use it, and whether tflrun has a kernel (Reason: why not).
type inspectFlex struct {
	Name   string `json:"name"`
	Count  int    `json:"count"`
	Runs   bool   `json:"runs"`
	Reason string `json:"reason,omitempty"`
}

func describeModel(path string, m *interpreter.Model, mem *memoryFlag) *inspectReport {
	rep := &inspectReport{
		Model: path, Size: m.Size, Version: m.Version, Description: m.Description,
		BufferBytes: m.BufferBytes,
		Subgraphs:   []inspectSubgraph{}, Signatures: []inspectSig{}, Metadata: []inspectMeta{}, Unsupported: []inspectUnsup{},
		Flex: []inspectFlex{}, RecurrentLoops: recurrentLoops(m),
	}
	resolver := interpreter.DefaultResolver()
	for si := range m.Subgraphs {
		sg := &m.Subgraphs[si]
		s := inspectSubgraph{Index: si, Name: sg.Name, Tensors: len(sg.Tensors), Inputs: []inspectTensor{}, Outputs: []inspectTensor{}, Operators: []inspectOp{}}
		for _, t := range sg.Inputs {
			s.Inputs = append(s.Inputs, describeTensor(sg, t))
		}
		for _, t := range sg.Outputs {
			s.Outputs = append(s.Outputs, describeTensor(sg, t))
		}
		for oi := range sg.Operators {
			op := &sg.Operators[oi]
			d := inspectOp{Index: oi, Name: op.Name, Version: op.Version, Inputs: op.Inputs, Outputs: op.Outputs, Intermediates: op.Intermediates, OptionsType: op.OptionsType}
			switch {
			case op.Options != nil:
				d.Options = strings.TrimPrefix(fmt.Sprintf("%+v", op.Options), "&")
			case op.OptionsType != "":
				d.Options = "(" + op.OptionsType + ", not decoded by tflrun)"
			}
			s.Operators = append(s.Operators, d)
			var err error
			if op.Op == ops.BuiltinCustom {
				_, err = resolver.FindCustom(op.Name)
			} else {
				_, err = resolver.FindBuiltin(op.Op, op.Version)
			}
			if err != nil {
				rep.Unsupported = append(rep.Unsupported, inspectUnsup{Subgraph: si, Index: oi, Name: op.Name, Version: op.Version, Reason: err.Error()})
			}
			if op.Op == ops.BuiltinCustom && strings.HasPrefix(op.Name, "Flex") {
				rep.addFlex(op.Name, err)
			}
		}
		rep.Subgraphs = append(rep.Subgraphs, s)
	}
	for _, sig := range m.Signatures {
		s := inspectSig{Key: sig.Key, Subgraph: sig.Subgraph, Inputs: []inspectSigPort{}, Outputs: []inspectSigPort{}}
		for _, p := range sig.Inputs {
			s.Inputs = append(s.Inputs, inspectSigPort{p.Name, p.Tensor})
		}
		for _, p := range sig.Outputs {
			s.Outputs = append(s.Outputs, inspectSigPort{p.Name, p.Tensor})
		}
		rep.Signatures = append(rep.Signatures, s)
	}
	for _, md := range m.Metadata {
		rep.Metadata = append(rep.Metadata, inspectMeta{md.Name, len(md.Data)})
		if md.Name == metadata.BufferName {
			p, err := metadata.Parse(md.Data)
			if err != nil {
				rep.TFLiteMetadataError = err.Error()
			}
			rep.TFLiteMetadata = p
		}
	}
	if rep.TFLiteMetadata != nil {
		if err := rep.readArchive(path); err != nil && rep.TFLiteMetadataError == "" {
			rep.TFLiteMetadataError = err.Error()
		}
	}
	// Allocation runs every kernel's Prepare: it finds type and shape
	// combinations the kernels refuse, beyond missing kernels.
	// Diagnose goes on past a failure, so every blocker is listed.
	rep.Blockers = []string{}
	it, err := interpreter.New(m, mem.options())
	if err == nil {
		for _, e := range it.Diagnose() {
			rep.Blockers = append(rep.Blockers, e.Error())
		}
		err = it.AllocateTensors()
	}
	if err != nil {
		rep.Allocation = "failed: " + err.Error()
	} else {
		rep.Allocation = "ok"
		rep.ArenaBytes, rep.VariableBytes = it.ArenaBytes(), it.VariableBytes()
		rep.PrecomputedBytes = it.PrecomputedBytes()
	}
	return rep
}

// readArchive lists the associated files zipped onto the model file.
func (r *inspectReport) readArchive(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	a, err := metadata.OpenArchive(f, st.Size())
	if err != nil {
		return err
	}
	for _, name := range a.Names() {
		n, _ := a.Size(name)
		r.AssociatedFiles = append(r.AssociatedFiles, inspectFile{name, n})
	}
	return nil
}

func describeTensor(sg *interpreter.SubgraphInfo, i int) inspectTensor {
	if i < 0 || i >= len(sg.Tensors) {
		return inspectTensor{Tensor: i, Name: "(invalid tensor index)"}
	}
	t := &sg.Tensors[i]
	d := inspectTensor{Tensor: i, Name: t.Name, Type: t.Type.String(), Shape: t.Shape, Signature: t.Signature, Variable: t.IsVariable}
	if d.Shape == nil {
		d.Shape = []int{}
	}
	if t.Quant != nil && len(t.Quant.Scale) > 0 {
		d.Quantization = &quantJSON{t.Quant.Scale, t.Quant.ZeroPoint, t.Quant.QuantizedDimension}
		d.quant = t.Quant
	}
	return d
}

func (r *inspectReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "model: %s (%d bytes), schema version %d\n", r.Model, r.Size, r.Version)
	if r.Description != "" {
		fmt.Fprintf(w, "description: %s\n", r.Description)
	}
	for _, s := range r.Subgraphs {
		fmt.Fprintf(w, "\nsubgraph %d %q: %d tensors, %d operators\n", s.Index, s.Name, s.Tensors, len(s.Operators))
		for _, part := range []struct {
			title string
			ts    []inspectTensor
		}{{"inputs", s.Inputs}, {"outputs", s.Outputs}} {
			fmt.Fprintf(w, "  %s:\n", part.title)
			for k, t := range part.ts {
				fmt.Fprintf(w, "    %d: tensor %d %q %s %v", k, t.Tensor, t.Name, t.Type, t.Shape)
				if t.Signature != nil && !ops.SameShape(t.Signature, t.Shape) {
					fmt.Fprintf(w, " signature %v", t.Signature)
				}
				if q := quantString(t.quant); q != "" {
					fmt.Fprintf(w, " (%s)", q)
				}
				fmt.Fprintln(w)
			}
		}
		fmt.Fprintf(w, "  operators:\n")
		for _, o := range s.Operators {
			fmt.Fprintf(w, "    %d: %s v%d %v -> %v", o.Index, o.Name, o.Version, o.Inputs, o.Outputs)
			if len(o.Intermediates) > 0 {
				fmt.Fprintf(w, " intermediates %v", o.Intermediates)
			}
			fmt.Fprintln(w)
			if o.Options != "" {
				fmt.Fprintf(w, "       options: %s\n", o.Options)
			}
		}
	}
	if len(r.Signatures) > 0 {
		fmt.Fprintf(w, "\nsignatures:\n")
		for _, s := range r.Signatures {
			fmt.Fprintf(w, "  %q (subgraph %d):", s.Key, s.Subgraph)
			for _, p := range s.Inputs {
				fmt.Fprintf(w, " in %s=tensor %d", p.Name, p.Tensor)
			}
			for _, p := range s.Outputs {
				fmt.Fprintf(w, " out %s=tensor %d", p.Name, p.Tensor)
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Metadata) > 0 {
		fmt.Fprintf(w, "\nmetadata:\n")
		for _, m := range r.Metadata {
			fmt.Fprintf(w, "  %s (%d bytes)\n", m.Name, m.Bytes)
		}
	}
	if r.TFLiteMetadata != nil || r.TFLiteMetadataError != "" {
		writeTFLiteMetadata(w, r.TFLiteMetadata, r.AssociatedFiles, r.TFLiteMetadataError)
	}
	fmt.Fprintf(w, "\nconstant buffers: %d bytes\n", r.BufferBytes)
	if len(r.Unsupported) == 0 {
		fmt.Fprintf(w, "unsupported operators: none\n")
	} else {
		fmt.Fprintf(w, "unsupported operators (%d):\n", len(r.Unsupported))
		for _, u := range r.Unsupported {
			fmt.Fprintf(w, "  subgraph %d operator %d %s v%d: %s\n", u.Subgraph, u.Index, u.Name, u.Version, u.Reason)
		}
	}
	if len(r.Flex) > 0 {
		fmt.Fprintf(w, "flex operators (TensorFlow ops for TFLite's Flex delegate; tflrun runs those it has kernels for without it):\n")
		for _, f := range r.Flex {
			status := "runs"
			if !f.Runs {
				status = "not run: " + f.Reason
			}
			fmt.Fprintf(w, "  %s x%d: %s\n", f.Name, f.Count, status)
		}
	}
	if r.RecurrentLoops > 0 {
		fmt.Fprintf(w, "recurrent loops: %d (WHILE loops that look like unfused recurrent layers: tflrun convert MODEL -o OUT.tflite can fuse them)\n", r.RecurrentLoops)
	}
	if r.Allocation == "ok" {
		if r.PrecomputedBytes > 0 {
			fmt.Fprintf(w, "allocation: ok (arena %d bytes, variables %d bytes, precomputed %d bytes: DEQUANTIZE of constants, run once)\n",
				r.ArenaBytes, r.VariableBytes, r.PrecomputedBytes)
		} else {
			fmt.Fprintf(w, "allocation: ok (arena %d bytes, variables %d bytes)\n", r.ArenaBytes, r.VariableBytes)
		}
	} else {
		fmt.Fprintf(w, "allocation: %s\n", r.Allocation)
	}
	if len(r.Blockers) > 1 {
		fmt.Fprintf(w, "blockers (%d, each operator that cannot be prepared):\n", len(r.Blockers))
		for _, b := range r.Blockers {
			fmt.Fprintf(w, "  %s\n", b)
		}
	}
}

// addFlex counts one operator of Flex custom code name; err is the
// resolver's answer for it.
func (r *inspectReport) addFlex(name string, err error) {
	for i := range r.Flex {
		if r.Flex[i].Name == name {
			r.Flex[i].Count++
			return
		}
	}
	f := inspectFlex{Name: name, Count: 1, Runs: err == nil}
	if err != nil {
		f.Reason = err.Error()
	}
	r.Flex = append(r.Flex, f)
}
