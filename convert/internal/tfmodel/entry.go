package tfmodel

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
)

// EntryOptions choose the entry point of a model.
type EntryOptions struct {
	// Signature is the SavedModel signature key ("" means
	// "serving_default", or the only signature).
	Signature string
	// InputArrays and OutputArrays name graph tensors ("node" or
	// "node:index") that become the inputs and outputs, cutting the
	// graph. For a GraphDef they are required (OutputArrays at least;
	// inputs default to every Placeholder the outputs need). For a
	// SavedModel they override the signature's.
	InputArrays  []string
	OutputArrays []string
	// InputShapes, when given, has one shape per input (in input order)
	// replacing the declared shape; it pins dynamic batch or time
	// dimensions. Each must agree with the input's declared shape (the
	// signature's or the Placeholder's) where that is known: same rank,
	// same size in every dimension the declared shape fixes (see
	// CheckInputShape); a -1 in a given shape keeps the declared size.
	InputShapes []ir.Shape
	// Budget bounds the entry function (the nodes of the graph as read
	// and after the cut, the checkpoint values it reads) and becomes its
	// Function.Budget; nil applies ir.DefaultLimits.
	Budget *ir.Budget
}

// Entry is the IR of one entry point: Func's parameters are the inputs
// and its results the outputs, with the names a TFLite signature uses.
type Entry struct {
	Func *ir.Function
	// SignatureKey is the SavedModel signature key ("serving_default"),
	// or "serving_default" for a GraphDef. It also names Func, except
	// that for a GraphDef Func.Graph is the GraphDef's path, so errors
	// say "graph PATH" rather than "function serving_default".
	SignatureKey string
	// InputNames and OutputNames are the signature's input and output
	// keys (for a GraphDef, the tensor names), parallel to Func.Params
	// and Func.Results.
	InputNames  []string
	OutputNames []string
	// Notes say what the entry point chose on its own, for the user to
	// confirm or override: a GraphDef's outputs inferred from its sink
	// nodes, a WAV string input replaced by DecodeWav's outputs.
	Notes []string
}

// ParseInputShapes parses the --input_shapes syntax of TensorFlow's
// converter: shapes separated by ":", dimensions by "," ("1,49,10,1:1,5";
// an empty shape is a scalar; -1, ? or None is unknown). Every other
// dimension must be a size from 1 to 2³⁰: zero and negative sizes are
// refused, naming the shape and the dimension.
func ParseInputShapes(s string) ([]ir.Shape, error) {
	if s == "" {
		return nil, nil
	}
	var out []ir.Shape
	for _, part := range strings.Split(s, ":") {
		shape := ir.Shape{}
		if strings.TrimSpace(part) != "" {
			for _, d := range strings.Split(part, ",") {
				d = strings.TrimSpace(d)
				if d == "?" || d == "-1" || d == "None" {
					shape = append(shape, -1)
					continue
				}
				k, err := strconv.Atoi(d)
				if err != nil || k > 1<<30 {
					return nil, fmt.Errorf("input shape %q: dimension %q is not a size", part, d)
				}
				if k <= 0 {
					// A zero dimension would write a model whose input
					// holds nothing (a batch of 0); -1 is the only
					// negative value, meaning unknown.
					return nil, fmt.Errorf("input shape %q: dimension %d is not a positive size (use -1 or ? for an unknown dimension)", part, k)
				}
				shape = append(shape, k)
			}
		}
		out = append(out, shape)
	}
	return out, nil
}

// Entry builds the entry function: the main graph imported, its inputs
// bound to parameters, its outputs made results, cut to what the outputs
// need, with every variable it reads resolved to its checkpoint value.
func (m *Model) Entry(opts EntryOptions) (*Entry, error) {
	var ins []ir.InputSpec
	var outs []ir.OutputSpec
	e := &Entry{SignatureKey: "serving_default"}
	if m.MetaGraph != nil && len(opts.OutputArrays) == 0 {
		key := opts.Signature
		sigs := m.Signatures()
		if key == "" {
			key = "serving_default"
			if len(sigs) == 1 {
				key = sigs[0]
			}
		}
		sig, ok := m.MetaGraph.SignatureDef[key]
		if (!ok || key == "__saved_model_init_op") && opts.Signature == "" {
			// No serving_default: a tf.Module saved for inference through
			// its __call__ method (its signatures, if any, being others).
			var err error
			ins, outs, e.InputNames, e.OutputNames, ok, err = m.rootCall()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.Path, err)
			}
			if ok {
				e.SignatureKey = "serving_default"
				e.Notes = append(e.Notes, fmt.Sprintf("no serving_default signature: converted the root object's %s method (its only concrete function); choose a signature with --signature (signatures: %s)", rootCallName, strings.Join(sigs, ", ")))
			}
		}
		if ok && sig == nil {
			// The root __call__ entry above.
		} else if !ok || key == "__saved_model_init_op" {
			if len(sigs) > 1 && opts.Signature == "" {
				return nil, fmt.Errorf("%s: no signature %q, and the model has %d others: choose one with --signature (Options.Signature): %s", m.Path, key, len(sigs), strings.Join(sigs, ", "))
			}
			return nil, fmt.Errorf("%s: no signature %q (signatures: %s)", m.Path, key, strings.Join(sigs, ", "))
		} else {
			e.SignatureKey = key
			for _, k := range sortedKeys(sig.Inputs) {
				ti := sig.Inputs[k]
				ref, _, err := ir.ParseTensorRef(ti.GetName())
				if err != nil {
					return nil, fmt.Errorf("signature %q input %q: %v", key, k, err)
				}
				dt, err := ir.FromTF(ti.Dtype)
				if err != nil {
					return nil, fmt.Errorf("signature %q input %q: %v", key, k, err)
				}
				shape, err := ir.ShapeFromTF(ti.TensorShape)
				if err != nil {
					return nil, fmt.Errorf("signature %q input %q: %v", key, k, err)
				}
				ins = append(ins, ir.InputSpec{Name: tensorName(ti.GetName()), Tensor: ref, DType: dt, Shape: shape})
				e.InputNames = append(e.InputNames, k)
			}
			for _, k := range sortedKeys(sig.Outputs) {
				ref, _, err := ir.ParseTensorRef(sig.Outputs[k].GetName())
				if err != nil {
					return nil, fmt.Errorf("signature %q output %q: %v", key, k, err)
				}
				outs = append(outs, ir.OutputSpec{Name: tensorName(sig.Outputs[k].GetName()), Tensor: ref})
				e.OutputNames = append(e.OutputNames, k)
			}
		}
	} else {
		outputArrays := opts.OutputArrays
		if len(outputArrays) == 0 {
			// No signature: the outputs are the graph's sinks (SinkNodes).
			outputArrays = SinkNodes(m.Graph)
			if len(outputArrays) == 0 {
				return nil, fmt.Errorf("%s: a GraphDef needs output arrays naming its output tensors (OutputArrays in the options; --output_arrays on the command line), and it has no sink node to take as output; %s", m.Path, graphCandidates(m.Graph))
			}
			e.Notes = append(e.Notes, fmt.Sprintf("outputs inferred as the graph's sink nodes (the nodes whose outputs nothing reads): %s; name others with --output_arrays", strings.Join(outputArrays, ", ")))
		}
		for _, name := range outputArrays {
			ref, _, err := ir.ParseTensorRef(name)
			if err != nil {
				return nil, fmt.Errorf("output array %q: %v", name, err)
			}
			outs = append(outs, ir.OutputSpec{Name: tensorName(name), Tensor: ref})
			e.OutputNames = append(e.OutputNames, ref.Node)
		}
	}
	if len(opts.InputArrays) > 0 {
		ins, e.InputNames = nil, nil
		for _, name := range opts.InputArrays {
			ref, _, err := ir.ParseTensorRef(name)
			if err != nil {
				return nil, fmt.Errorf("input array %q: %v", name, err)
			}
			ins = append(ins, ir.InputSpec{Name: tensorName(name), Tensor: ref, DType: ir.Invalid})
			e.InputNames = append(e.InputNames, ref.Node)
		}
	}
	if k, max := len(m.Graph.GetNode()), opts.Budget.Get().MaxNodes; k > max {
		// Refused before importing, which would cost a few kilobytes a
		// node.
		return nil, fmt.Errorf("%s: the graph has %d nodes, past the node budget of %d (%s)", m.Path, k, max, opts.Budget.Name("MaxNodes"))
	}
	f, err := ir.ImportGraph(m.Module, m.Graph, e.SignatureKey)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	if m.MetaGraph == nil {
		// A GraphDef's main graph is no function: errors say
		// "graph PATH", not "function serving_default".
		f.Graph = m.Path
		if f.Graph == "" {
			f.Graph = "GraphDef"
		}
	}
	if len(opts.InputArrays) == 0 && m.MetaGraph == nil {
		// A GraphDef without input arrays: every Placeholder the outputs
		// depend on is an input.
		needed, err := f.Needed(outs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (%s)", m.Path, err, graphCandidates(m.Graph))
		}
		neededSet := make(map[*ir.Node]bool, len(needed))
		for _, n := range needed {
			neededSet[n] = true
		}
		for _, n := range needed {
			if n.Op != "Placeholder" {
				continue
			}
			if wav := wavDecoder(f, n, neededSet); wav != nil {
				// TFLite has no DecodeWav: the decoded audio (and the
				// sample rate, when the graph reads it) become the inputs.
				for _, in := range wav.inputs {
					ins = append(ins, in)
					e.InputNames = append(e.InputNames, in.Name)
				}
				e.Notes = append(e.Notes, wav.note)
				continue
			}
			ins = append(ins, ir.InputSpec{Name: n.Name, Tensor: ir.TensorRef{Node: n.Name}, DType: ir.Invalid})
			e.InputNames = append(e.InputNames, n.Name)
		}
	}
	if opts.InputShapes != nil && len(opts.InputShapes) != len(ins) {
		return nil, fmt.Errorf("%s: %d input shapes given for %d inputs (%s): InputShapes (--input_shapes on the command line) needs one shape per input", m.Path, len(opts.InputShapes), len(ins), strings.Join(e.InputNames, ", "))
	}
	if err := f.Cut(ins, outs); err != nil {
		if m.MetaGraph == nil {
			return nil, fmt.Errorf("%s: %w (%s)", m.Path, err, graphCandidates(m.Graph))
		}
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	for i, p := range f.Params {
		if p.DType == ir.Invalid {
			return nil, fmt.Errorf("%s: input %q: its type is unknown (not a Placeholder with a dtype)", m.Path, e.InputNames[i])
		}
		if opts.InputShapes != nil {
			// The parameter has the declared shape; the given one must
			// agree with it before it replaces it.
			shape, err := CheckInputShape(i, e.InputNames[i], p.Shape, opts.InputShapes[i])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.Path, err)
			}
			p.Shape = shape
		}
	}
	f.Budget = opts.Budget
	notes, err := m.resolveVariables(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	e.Notes = append(e.Notes, notes...)
	e.Func = f
	return e, nil
}

// CheckInputShape checks the shape given for input index (named name)
// against its declared shape (a signature's, a Placeholder's, or what is
// known of a cut tensor): when the declared rank is known the ranks must
// be equal, and every dimension both know must be the same size. It
// returns the given shape with any dimension it leaves unknown (-1) taken
// from the declared one. The error names the input by index and name and
// shows both shapes, so a contradiction is reported here rather than as a
// shape mismatch deep inside the graph.
func CheckInputShape(index int, name string, declared, given ir.Shape) (ir.Shape, error) {
	if given == nil {
		return declared.Clone(), nil
	}
	const what = "the given shape %v (InputShapes; --input_shapes on the command line)"
	if declared.RankKnown() && len(given) != len(declared) {
		return nil, fmt.Errorf("input %d %q: "+what+" has rank %d, but the input's declared shape %v has rank %d", index, name, given, len(given), declared, len(declared))
	}
	for i, d := range given {
		if d == 0 || d < -1 {
			return nil, fmt.Errorf("input %d %q: "+what+" has dimension %d of %d, which is not a positive size (-1 is unknown)", index, name, given, i, d)
		}
	}
	for i, d := range declared {
		if d >= 0 && given[i] >= 0 && given[i] != d {
			return nil, fmt.Errorf("input %d %q: "+what+" contradicts the input's declared shape %v: dimension %d is %d, not %d", index, name, given, declared, i, d, given[i])
		}
	}
	merged, _ := ir.Merge(given, declared)
	return merged, nil
}

// tensorName spells a tensor "node:index" with the index always present
// (TensorFlow's converter names TFLite tensors that way).
func tensorName(s string) string {
	if strings.Contains(s, ":") {
		return s
	}
	return s + ":0"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
