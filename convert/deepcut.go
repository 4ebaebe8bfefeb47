package convert

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// deepCut is a cut of a SavedModel at tensors that live inside its
// functions (TF2 graphs keep every layer inside a function body, so
// "model/lambda/Abs" exists only there). TensorFlow's converter cuts such
// a graph after inlining its functions into one graph; tflrun does the
// same: the entry point starts as the signature, and the cut is applied
// right after the inlining step that brings every named tensor into the
// entry function (before simplification could bypass a named Identity).
//
// Names match an inlined node by its full path or by a suffix that starts
// at a path element ("model/lambda/Abs" matches
// "StatefulPartitionedCall/StatefulPartitionedCall/model/lambda/Abs").
// A key of the signature's outputs ("dense_1") names that result; input
// arrays that are exactly the signature's input keys leave its inputs as
// they are (signatureArrays, allSignatureInputs).
type deepCut struct {
	inputs, outputs []string
	shapes          []ir.Shape
	// entry receives the new input and output names.
	entry *tfmodel.Entry
	done  bool
	// identities maps the name of each Identity node in the model's
	// function library to its input's node and output index, for names
	// that simplification of a function body bypassed before inlining
	// ("…/embedding_lookup/Identity", what TensorFlow prints).
	identities map[string]identityInput
}

// identityInput is the input of a library Identity node.
type identityInput struct {
	node  string
	index int
	// plain tells whether index is a graph output index ("n" or "n:k");
	// else it is the index within a function output argument ("n:arg:k"),
	// which is the output index only for a node with one output list.
	plain bool
}

// libraryIdentities collects the Identity nodes of m's function library
// (see deepCut.identities).
func libraryIdentities(m *tfmodel.Model) map[string]identityInput {
	if m.Graph == nil {
		return nil
	}
	out, ambiguous := map[string]identityInput{}, map[string]bool{}
	for _, fn := range m.Graph.GetLibrary().GetFunction() {
		for _, n := range fn.GetNodeDef() {
			if n.GetOp() != "Identity" || len(n.GetInput()) == 0 {
				continue
			}
			in := n.GetInput()[0]
			if strings.HasPrefix(in, "^") {
				continue
			}
			parts := strings.Split(in, ":")
			id := identityInput{node: parts[0], plain: len(parts) < 3}
			if len(parts) > 1 {
				k, err := strconv.Atoi(parts[len(parts)-1])
				if err != nil || k < 0 {
					continue
				}
				id.index = k
			}
			if prev, seen := out[n.GetName()]; seen && prev != id {
				ambiguous[n.GetName()] = true
			}
			out[n.GetName()] = id
		}
	}
	// A name two functions give to different Identities (every body's
	// "Identity") says nothing about which one is meant.
	for k := range ambiguous {
		delete(out, k)
	}
	return out
}

// resolveIdentity follows a cut name that names a library Identity no
// longer in f (bypassed by simplification) to the tensor it passes on:
// the node and output index, ok false when name is no such Identity or
// its input cannot be found unambiguously.
func (c *deepCut) resolveIdentity(f *ir.Function, name string) (*ir.Node, int, bool, error) {
	for hop := 0; hop < 16; hop++ {
		id, ok := c.identities[name]
		if !ok {
			return nil, 0, false, nil
		}
		n, ok, err := resolveCutNode(f, id.node)
		if err != nil {
			return nil, 0, false, err
		}
		if ok {
			if !id.plain && len(n.Outputs) != 1 && id.index != 0 {
				return nil, 0, false, nil // an argument index of a node with several outputs
			}
			if id.index >= len(n.Outputs) {
				return nil, 0, false, nil
			}
			return n, id.index, true, nil
		}
		name = id.node // an Identity of an Identity
	}
	return nil, 0, false, nil
}

// needsDeepCut reports whether a SavedModel's --input_arrays or
// --output_arrays name a tensor that is not in its main graph.
func needsDeepCut(m *tfmodel.Model, opts Options) bool {
	if !m.IsSavedModel() || m.Graph == nil || len(opts.InputArrays)+len(opts.OutputArrays) == 0 {
		return false
	}
	have := make(map[string]bool, len(m.Graph.Node))
	for _, n := range m.Graph.Node {
		have[n.GetName()] = true
	}
	for _, name := range append(append([]string(nil), opts.InputArrays...), opts.OutputArrays...) {
		ref, _, err := ir.ParseTensorRef(name)
		if err != nil || !have[ref.Node] {
			return true
		}
	}
	return false
}

// resolve finds the node a cut name refers to in f: an exact match, else
// the unique node whose name ends in "/"+name. ok is false when there is
// none; an ambiguous name is an error listing the candidates.
func resolveCutNode(f *ir.Function, name string) (*ir.Node, bool, error) {
	if n := f.Node(name); n != nil {
		return n, true, nil
	}
	var found []*ir.Node
	for _, n := range f.Nodes {
		if strings.HasSuffix(n.Name, "/"+name) {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return nil, false, nil
	case 1:
		return found[0], true, nil
	}
	names := make([]string, len(found))
	for i, n := range found {
		names[i] = n.Name
	}
	sort.Strings(names)
	return nil, false, fmt.Errorf("tensor name %q is ambiguous: it matches %s", name, strings.Join(names, ", "))
}

// try applies the cut when every named tensor is in f. It reports
// whether the cut was made.
func (c *deepCut) try(f *ir.Function) (bool, error) {
	if c == nil || c.done {
		return false, nil
	}
	type ref struct {
		node  *ir.Node
		index int
	}
	look := func(names []string, outputs bool) ([]ref, bool, error) {
		refs := make([]ref, len(names))
		for i, s := range names {
			r, _, err := ir.ParseTensorRef(s)
			if err != nil {
				return nil, false, fmt.Errorf("tensor name %q: %v", s, err)
			}
			n, ok, err := resolveCutNode(f, r.Node)
			if err != nil {
				return nil, false, err
			}
			if k := c.signatureOutput(f, s); !ok && outputs && k >= 0 {
				// A signature output key: the entry's result.
				refs[i] = ref{f.Results[k].Producer, f.Results[k].Index}
				continue
			}
			if !ok && r.Index == 0 {
				// An Identity simplification bypassed: cut at what it
				// passes on.
				var k int
				if n, k, ok, err = c.resolveIdentity(f, r.Node); err != nil || !ok {
					return nil, false, err
				}
				refs[i] = ref{n, k}
				continue
			}
			if !ok {
				return nil, false, nil
			}
			if r.Index >= len(n.Outputs) {
				return nil, false, fmt.Errorf("tensor %q: node %s has %d outputs", s, n, len(n.Outputs))
			}
			refs[i] = ref{n, r.Index}
		}
		return refs, true, nil
	}
	ins, okIn, err := look(c.inputs, false)
	if err != nil || !okIn {
		return false, err
	}
	outs, okOut, err := look(c.outputs, true)
	if err != nil || !okOut {
		return false, err
	}
	if len(c.outputs) == 0 {
		// Keep the signature's outputs.
		for _, r := range f.Results {
			if r.Producer == nil {
				return false, fmt.Errorf("a signature output is an input; name the outputs with output arrays (Options.OutputArrays; --output_arrays on the command line)")
			}
			outs = append(outs, ref{r.Producer, r.Index})
		}
	}
	if c.shapes != nil && len(c.shapes) != len(ins) {
		return false, fmt.Errorf("%d input shapes given for %d input arrays (InputShapes; --input_shapes on the command line)", len(c.shapes), len(ins))
	}
	old := map[*ir.Value]bool{}
	for _, p := range f.Params {
		old[p] = true
	}
	var inSpecs []ir.InputSpec
	for i, r := range ins {
		v := r.node.Outputs[r.index]
		var given ir.Shape
		if c.shapes != nil {
			given = c.shapes[i]
		}
		// As at the entry: the given shape must agree with what is known
		// of the cut tensor, and a -1 keeps the known size.
		shape, err := tfmodel.CheckInputShape(i, c.inputs[i], v.Shape, given)
		if err != nil {
			return false, err
		}
		inSpecs = append(inSpecs, ir.InputSpec{Name: cutTensorName(c.inputs[i]), Tensor: ir.TensorRef{Node: r.node.Name, Index: r.index}, DType: v.DType, Shape: shape})
	}
	var outSpecs []ir.OutputSpec
	var outNames []string
	for i, r := range outs {
		name := ""
		if i < len(c.outputs) {
			name = cutTensorName(c.outputs[i])
		} else if i < len(f.ResultNames) {
			name = f.ResultNames[i]
		}
		outSpecs = append(outSpecs, ir.OutputSpec{Name: name, Tensor: ir.TensorRef{Node: r.node.Name, Index: r.index}})
		outNames = append(outNames, name)
	}
	oldResults := f.Results
	if len(ins) == 0 {
		old = map[*ir.Value]bool{} // the signature's inputs stay
	} else {
		f.Params = nil
	}
	f.Results, f.ResultNames = nil, nil
	if err := f.Cut(inSpecs, outSpecs); err != nil {
		f.Results = oldResults
		return false, err
	}
	// Updates of state that the cut leaves outside (they depend on an
	// input that is no longer one) belong to the part cut away.
	dropUpdatesOutside(f, old)
	f.RemoveUnused()
	for _, n := range f.Nodes {
		for _, in := range n.Inputs {
			if in != nil && old[in] {
				return false, n.Errorf("the cut outputs still depend on model input %q, which is not among --input_arrays", in.Name)
			}
		}
	}
	for i, r := range f.Results {
		if old[r] {
			return false, fmt.Errorf("output %q is the model input %q, which is not among --input_arrays", outNames[i], r.Name)
		}
	}
	if c.entry != nil {
		if len(c.inputs) > 0 {
			c.entry.InputNames = nil
		}
		for _, s := range c.inputs {
			c.entry.InputNames = append(c.entry.InputNames, refNode(s))
		}
		c.entry.OutputNames = nil
		for i, s := range outNames {
			if i < len(c.outputs) {
				s = refNode(c.outputs[i])
			}
			c.entry.OutputNames = append(c.entry.OutputNames, s)
		}
	}
	c.done = true
	return true, nil
}

// dropUpdatesOutside removes variable updates whose value depends on one
// of the given (former) inputs.
func dropUpdatesOutside(f *ir.Function, old map[*ir.Value]bool) {
	dep := map[*ir.Value]bool{}
	for v := range old {
		dep[v] = true
	}
	if err := f.TopoSort(); err != nil {
		return
	}
	dead := map[*ir.Node]bool{}
	for _, n := range f.Nodes {
		d := false
		for _, in := range n.Inputs {
			if in != nil && dep[in] {
				d = true
			}
		}
		if !d {
			continue
		}
		for _, o := range n.Outputs {
			dep[o] = true
		}
		if len(n.Outputs) == 0 && strings.HasPrefix(n.Op, "Assign") {
			dead[n] = true
		}
	}
	f.RemoveNodes(dead)
}

// finish reports a cut that never found its tensors.
func (c *deepCut) finish(f *ir.Function) error {
	if c == nil || c.done {
		return nil
	}
	var missing []string
	for _, s := range append(append([]string(nil), c.inputs...), c.outputs...) {
		r, _, err := ir.ParseTensorRef(s)
		if err != nil {
			return err
		}
		if _, ok, _ := resolveCutNode(f, r.Node); !ok {
			missing = append(missing, s)
		}
	}
	return fmt.Errorf("%s: the input/output arrays (Options.InputArrays/OutputArrays; --input_arrays/--output_arrays on the command line) name tensors that are neither in the main graph nor in any inlined function: %s (a tensor inside a fused composite or folded to a constant cannot be cut at)", f.Where(), strings.Join(missing, ", "))
}

// signatureOutput is the index of the entry result that name, a key of
// the signature's outputs ("dense_1"), names, or -1.
func (c *deepCut) signatureOutput(f *ir.Function, name string) int {
	if c.entry == nil || c.entry.SignatureKey == "" {
		return -1
	}
	for k, key := range c.entry.OutputNames {
		if key == name && k < len(f.Results) && f.Results[k].Producer != nil {
			return k
		}
	}
	return -1
}

// signatureArrays rewrites the input and output arrays that are keys of
// the chosen signature of a SavedModel (signature, else serving_default,
// else its only one), and not node names of its main graph, as the
// tensor names the signature maps them to ("input_1" as
// "serving_default_input_1:0"): the names a user sees in the signature.
func signatureArrays(m *tfmodel.Model, signature string, inputs, outputs []string) ([]string, []string) {
	sig := chosenSignature(m, signature)
	if sig == nil {
		return inputs, outputs
	}
	have := map[string]bool{}
	for _, n := range m.Graph.GetNode() {
		have[n.GetName()] = true
	}
	rewrite := func(names []string, keys map[string]string) []string {
		var out []string
		for _, s := range names {
			if t, ok := keys[s]; ok && !have[s] {
				s = t
			}
			out = append(out, s)
		}
		return out
	}
	ins, outs := map[string]string{}, map[string]string{}
	for k, ti := range sig.GetInputs() {
		ins[k] = ti.GetName()
	}
	for k, ti := range sig.GetOutputs() {
		outs[k] = ti.GetName()
	}
	return rewrite(inputs, ins), rewrite(outputs, outs)
}

// allSignatureInputs tells whether inputs are exactly the keys of the
// chosen signature's inputs, in the entry's (sorted) order, and none of
// them a node of the main graph.
func allSignatureInputs(m *tfmodel.Model, signature string, inputs []string) bool {
	sig := chosenSignature(m, signature)
	if sig == nil || len(inputs) == 0 || len(inputs) != len(sig.GetInputs()) {
		return false
	}
	keys := make([]string, 0, len(inputs))
	for k := range sig.GetInputs() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, n := range m.Graph.GetNode() {
		for _, s := range inputs {
			if n.GetName() == s {
				return false
			}
		}
	}
	for i, k := range keys {
		if inputs[i] != k {
			return false
		}
	}
	return true
}

// chosenSignature is the SignatureDef Entry starts from, or nil (a
// GraphDef, or no such signature).
func chosenSignature(m *tfmodel.Model, signature string) *tfpb.SignatureDef {
	if m.MetaGraph == nil || m.Graph == nil {
		return nil
	}
	key := signature
	if key == "" {
		key = "serving_default"
		if sigs := m.Signatures(); len(sigs) == 1 {
			key = sigs[0]
		}
	}
	return m.MetaGraph.GetSignatureDef()[key]
}

// cutTensorName spells a tensor "node:index".
func cutTensorName(s string) string {
	if strings.Contains(s, ":") {
		return s
	}
	return s + ":0"
}

// refNode is the node part of "node:index".
func refNode(s string) string {
	if r, _, err := ir.ParseTensorRef(s); err == nil {
		return r.Node
	}
	return s
}
