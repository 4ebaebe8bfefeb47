package tfmodel

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/proto"
)

// A SavedModel's main graph creates each variable with a VarHandleOp (TF2)
// or VariableV2 (TF1) node and passes the handles to the functions that
// read them. The values live in the checkpoint under keys that are not the
// node names. Two records connect the two, and TensorFlow 2 SavedModels
// carry both:
//
//   - The object graph. The call node of a signature calls a concrete
//     function whose SavedConcreteFunction.bound_inputs lists, for its
//     trailing (captured) arguments, SavedObjectGraph nodes of kind
//     variable. The checkpoint's own TrackableObjectGraph (stored under
//     the key "_CHECKPOINTABLE_OBJECT_GRAPH") has the same objects reached
//     by the same child names from the root; its node for the variable
//     has an attribute "VARIABLE_VALUE" whose checkpoint_key is the key.
//   - The restore graph. saver_def.restore_op_name names the node that
//     restores the checkpoint: RestoreV2(prefix, tensor_names,
//     shape_and_slices) produces one tensor per name, and
//     AssignVariableOp (or Assign for TF1 ref variables) stores output j
//     into a variable handle, in the main graph or in a function the
//     restore node calls with the handles as arguments.
//
// VariableKeys uses the object graph first and the restore graph for any
// variable it leaves unmapped.

// objectGraphKey is the checkpoint key under which TensorFlow 2 stores
// the serialized TrackableObjectGraph.
const objectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH"

// VariableKeys maps each variable node of the main graph (VarHandleOp,
// VariableV2) to its checkpoint key. source tells, per node, which record
// gave the key ("object graph" or "restore graph").
func (m *Model) VariableKeys() (keys, source map[string]string, err error) {
	if m.varKeys != nil || m.varKeysErr != nil {
		return m.varKeys, m.varSources, m.varKeysErr
	}
	m.varKeys, m.varSources = map[string]string{}, map[string]string{}
	if m.MetaGraph == nil {
		return m.varKeys, m.varSources, nil
	}
	main, err := ir.ImportGraph(m.Module, m.Graph, "main graph")
	if err != nil {
		m.varKeysErr = err
		return nil, nil, err
	}
	if m.Bundle != nil {
		obj, err := m.objectGraphKeys(main)
		if err != nil {
			m.varKeysErr = err
			return nil, nil, err
		}
		for k, v := range obj {
			m.varKeys[k], m.varSources[k] = v, "object graph"
		}
	}
	rest, err := m.restoreGraphKeys(main)
	if err != nil {
		m.varKeysErr = err
		return nil, nil, err
	}
	for k, v := range rest {
		if _, done := m.varKeys[k]; !done {
			m.varKeys[k], m.varSources[k] = v, "restore graph"
		}
	}
	return m.varKeys, m.varSources, nil
}

// RestoreGraphKeys returns the variable-node → key map found through the
// restore graph alone (for tests comparing the two records).
func (m *Model) RestoreGraphKeys() (map[string]string, error) {
	main, err := ir.ImportGraph(m.Module, m.Graph, "main graph")
	if err != nil {
		return nil, err
	}
	return m.restoreGraphKeys(main)
}

// ObjectGraphKeys returns the variable-node → key map found through the
// object graph alone.
func (m *Model) ObjectGraphKeys() (map[string]string, error) {
	main, err := ir.ImportGraph(m.Module, m.Graph, "main graph")
	if err != nil {
		return nil, err
	}
	return m.objectGraphKeys(main)
}

// checkpointObjectGraph reads and decodes the TrackableObjectGraph.
func (m *Model) checkpointObjectGraph() (*tfpb.TrackableObjectGraph, error) {
	if m.Bundle == nil || m.Bundle.Entry(objectGraphKey) == nil {
		return nil, nil
	}
	t, err := m.Bundle.Read(objectGraphKey)
	if err != nil {
		return nil, err
	}
	if t.DType != ir.String || len(t.Strings) != 1 {
		return nil, fmt.Errorf("checkpoint %s: %s is %s%s, want one string", m.Bundle.Prefix, objectGraphKey, t.DType, t.Shape)
	}
	tog := &tfpb.TrackableObjectGraph{}
	if err := proto.Unmarshal(t.Strings[0], tog); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %s: %v", m.Bundle.Prefix, objectGraphKey, err)
	}
	return tog, nil
}

// SavedVariableKeys maps SavedObjectGraph node ids of kind variable to
// checkpoint keys by walking the saved and checkpoint object graphs
// together from their roots, child name by child name.
func (m *Model) SavedVariableKeys() (map[int32]string, error) {
	sog := m.MetaGraph.GetObjectGraphDef()
	tog, err := m.checkpointObjectGraph()
	if err != nil || sog == nil || tog == nil || len(sog.Nodes) == 0 || len(tog.Nodes) == 0 {
		return nil, err
	}
	out := map[int32]string{}
	seen := map[int32]bool{0: true}
	type pair struct{ s, t int32 }
	queue := []pair{{0, 0}}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		sn, tn := sog.Nodes[p.s], tog.Nodes[p.t]
		if sn.GetVariable() != nil {
			for _, a := range tn.Attributes {
				if a.Name == "VARIABLE_VALUE" {
					out[p.s] = a.CheckpointKey
				}
			}
		}
		tchild := map[string]int32{}
		for _, c := range tn.Children {
			tchild[c.LocalName] = c.NodeId
		}
		for _, c := range sn.Children {
			tid, ok := tchild[c.LocalName]
			if !ok || seen[c.NodeId] {
				continue
			}
			if c.NodeId < 0 || int(c.NodeId) >= len(sog.Nodes) || tid < 0 || int(tid) >= len(tog.Nodes) {
				return nil, fmt.Errorf("object graph child %q points to node %d/%d, outside the graphs", c.LocalName, c.NodeId, tid)
			}
			seen[c.NodeId] = true
			queue = append(queue, pair{c.NodeId, tid})
		}
	}
	return out, nil
}

// objectGraphKeys maps variable nodes of the main graph to keys through
// the bound inputs of the concrete functions the main graph calls.
func (m *Model) objectGraphKeys(main *ir.Function) (map[string]string, error) {
	saved, err := m.SavedVariableKeys()
	if err != nil || len(saved) == 0 {
		return nil, err
	}
	concrete := m.MetaGraph.GetObjectGraphDef().GetConcreteFunctions()
	out := map[string]string{}
	for _, n := range main.Nodes {
		if n.Op != "StatefulPartitionedCall" && n.Op != "PartitionedCall" {
			continue
		}
		fname, err := n.AttrFunc("f")
		if err != nil {
			return nil, err
		}
		cf, ok := concrete[fname]
		if !ok {
			continue
		}
		bound := cf.BoundInputs
		if len(bound) > len(n.Inputs) {
			return nil, n.Errorf("concrete function %s binds %d captured inputs, the call passes %d inputs", fname, len(bound), len(n.Inputs))
		}
		first := len(n.Inputs) - len(bound)
		for j, id := range bound {
			key, ok := saved[id]
			if !ok {
				continue
			}
			v := n.Inputs[first+j]
			if v.Producer != nil && (v.Producer.Op == "VarHandleOp" || v.Producer.Op == "VariableV2") {
				out[v.Producer.Name] = key
			}
		}
	}
	return out, nil
}

// restoreGraphKeys maps variable nodes to keys through RestoreV2 and the
// assignments of its outputs, in the main graph and in the functions it
// calls.
func (m *Model) restoreGraphKeys(main *ir.Function) (map[string]string, error) {
	out := map[string]string{}
	// handleOf follows a resource value back to a variable node, through
	// identities and, inside a callee, its arguments to the caller's
	// inputs.
	var handleOf func(v *ir.Value, args []*ir.Value) *ir.Node
	handleOf = func(v *ir.Value, args []*ir.Value) *ir.Node {
		for depth := 0; v != nil && depth < 64; depth++ {
			if v.Producer == nil {
				if args == nil || v.Index >= len(args) {
					return nil
				}
				v, args = args[v.Index], nil
				continue
			}
			switch v.Producer.Op {
			case "VarHandleOp", "VariableV2":
				return v.Producer
			case "Identity", "RefIdentity":
				v = v.Producer.Inputs[0]
			case "IdentityN":
				if v.Index >= len(v.Producer.Inputs) {
					return nil
				}
				v = v.Producer.Inputs[v.Index]
			default:
				return nil
			}
		}
		return nil
	}
	scan := func(f *ir.Function, args []*ir.Value) error {
		for _, n := range f.Nodes {
			if (n.Op != "AssignVariableOp" && n.Op != "Assign") || len(n.Inputs) < 2 {
				continue
			}
			key, err := restoredKey(n.Inputs[1])
			if err != nil {
				return n.Wrap(err)
			}
			if key == "" {
				continue
			}
			if h := handleOf(n.Inputs[0], args); h != nil {
				out[h.Name] = key
			}
		}
		return nil
	}
	if err := scan(main, nil); err != nil {
		return nil, err
	}
	for _, n := range main.Nodes {
		if n.Op != "StatefulPartitionedCall" && n.Op != "PartitionedCall" {
			continue
		}
		fname, err := n.AttrFunc("f")
		if err != nil {
			return nil, err
		}
		fd, ok := m.Module.Library[fname]
		if !ok || !containsOp(fd, "RestoreV2") {
			continue
		}
		// A restore function is read only for its keys: inference never
		// calls it, so an op tflrun does not know there (a lookup table's
		// import, say) is no error unless a variable the entry needs is
		// left without a key (see ResolveVariables).
		callee, err := m.Module.Function(fname)
		if err == nil {
			err = scan(callee, n.Inputs)
		}
		if err != nil {
			m.restoreErrs = append(m.restoreErrs, err)
		}
	}
	return out, nil
}

func containsOp(fd *tfpb.FunctionDef, op string) bool {
	for _, n := range fd.NodeDef {
		if n.Op == op {
			return true
		}
	}
	return false
}

// restoredKey follows a value back through identities to output j of a
// RestoreV2 node and returns tensor_names[j] ("" when the value does not
// come from a RestoreV2).
func restoredKey(v *ir.Value) (string, error) {
	for depth := 0; v != nil && v.Producer != nil && depth < 64; depth++ {
		p := v.Producer
		switch p.Op {
		case "Identity":
			v = p.Inputs[0]
			continue
		case "IdentityN":
			if v.Index >= len(p.Inputs) {
				return "", nil
			}
			v = p.Inputs[v.Index]
			continue
		case "RestoreV2":
			if len(p.Inputs) < 2 || p.Inputs[1].Producer == nil || p.Inputs[1].Producer.Op != "Const" {
				return "", p.Errorf("tensor_names is not a constant")
			}
			names, err := p.Inputs[1].Producer.AttrTensor("value")
			if err != nil {
				return "", err
			}
			if names.DType != ir.String || v.Index >= len(names.Strings) {
				return "", p.Errorf("tensor_names has no entry %d", v.Index)
			}
			return string(names.Strings[v.Index]), nil
		}
		return "", nil
	}
	return "", nil
}

// VariableInfo describes one variable of a SavedModel.
type VariableInfo struct {
	// Node is the VarHandleOp/VariableV2 node in the main graph.
	Node string
	// SharedName is the node's shared_name attribute.
	SharedName string
	// Key is the checkpoint key (empty when unresolved), Source how it
	// was found.
	Key, Source string
	DType       ir.DType
	Shape       ir.Shape
}

// Variables lists the variable nodes of the main graph with their keys
// and checkpoint type and shape, sorted by node name.
func (m *Model) Variables() ([]VariableInfo, error) {
	keys, src, err := m.VariableKeys()
	if err != nil {
		return nil, err
	}
	var out []VariableInfo
	for _, nd := range m.Graph.GetNode() {
		if nd.Op != "VarHandleOp" && nd.Op != "VariableV2" {
			continue
		}
		vi := VariableInfo{Node: nd.Name, Key: keys[nd.Name], Source: src[nd.Name], DType: ir.Invalid}
		if a, ok := nd.Attr["shared_name"]; ok {
			vi.SharedName = string(a.GetS())
		}
		if e := m.bundleEntry(vi.Key); e != nil {
			vi.DType, _ = ir.FromTF(e.Dtype)
			vi.Shape, _ = ir.ShapeFromTF(e.Shape)
		}
		out = append(out, vi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out, nil
}

func (m *Model) bundleEntry(key string) *tfpb.BundleEntryProto {
	if m.Bundle == nil || key == "" {
		return nil
	}
	return m.Bundle.Entry(key)
}

// ResolveVariables attaches the checkpoint value to every variable node
// of f (an entry function cut from the main graph): each VarHandleOp
// output gets its ir.Variable, and each VariableV2 (a TF1 ref variable,
// whose output is the value itself, or its predecessor Variable) is
// replaced by a constant. A ref variable of a model without a checkpoint
// (a GraphDef, a SavedModel without variables/) takes its initialiser's
// value when that is a constant of the graph (initialValue), which the
// returned notes name. Errors name a variable
// without a key or constant initialiser, a missing checkpoint, or a value
// whose type or shape differs from the node's declaration.
func (m *Model) ResolveVariables(f *ir.Function) error {
	_, err := m.resolveVariables(f)
	return err
}

func (m *Model) resolveVariables(f *ir.Function) (notes []string, err error) {
	var vars []*ir.Node
	for _, n := range f.Nodes {
		if n.Op == "VarHandleOp" || n.Op == "VariableV2" || n.Op == "Variable" {
			vars = append(vars, n)
		}
	}
	if len(vars) == 0 {
		return nil, nil
	}
	keys, _, err := m.VariableKeys()
	if err != nil {
		return nil, err
	}
	defer f.TrackUses()()
	for _, n := range vars {
		key, ok := keys[n.Name]
		if !ok && m.Bundle != nil {
			// No saver in the graph (a TF1 Hub module): tf.train.Saver's
			// default key is the variable's name.
			name, _ := n.AttrString("shared_name", "")
			if name == "" {
				name = n.Name
			}
			if m.bundleEntry(name) != nil {
				key, ok = name, true
			}
		}
		if m.Bundle == nil && n.Op != "VarHandleOp" {
			// No checkpoint value: what the graph's own initialiser
			// gives, when that is a constant.
			if t, from, why := m.initialValue(n.Name); t != nil {
				if err := checkVariable(n, t); err != nil {
					return nil, err
				}
				f.ReplaceAllUses(n.Outputs[0], f.NewConst(n.Name+"/initial_value", t))
				notes = append(notes, fmt.Sprintf("variable %q has no checkpoint value: it takes its initial value, the constant %q its initialiser assigns", n.Name, from))
				continue
			} else if why != "" {
				return nil, n.Errorf("the model has no checkpoint value for this variable, and %s", why)
			}
		}
		if !ok {
			if len(m.restoreErrs) > 0 {
				return nil, n.Errorf("no checkpoint key for this variable: the object graph does not assign it, and the restore graph could not be read: %v", errors.Join(m.restoreErrs...))
			}
			return nil, n.Errorf("no checkpoint key for this variable: neither the object graph nor the restore graph assigns it")
		}
		if m.Bundle == nil {
			return nil, n.Errorf("variable needs checkpoint key %q but the SavedModel has no variables/variables.index", key)
		}
		t, err := m.Bundle.ReadWithin(key, f.Budget)
		if err != nil {
			return nil, n.Wrap(err)
		}
		if err := checkVariable(n, t); err != nil {
			return nil, err
		}
		shared, _ := n.AttrString("shared_name", n.Name)
		if shared == "" {
			shared = n.Name
		}
		if n.Op == "VarHandleOp" {
			out := n.Outputs[0]
			out.DType = ir.Resource
			out.Shape = ir.Scalar()
			out.Variable = &ir.Variable{Name: shared, Key: key, Value: t}
			continue
		}
		c := f.NewConst(n.Name+"/restored", t)
		f.ReplaceAllUses(n.Outputs[0], c)
	}
	f.RemoveUnused()
	return notes, nil
}

// initialValue finds the initial value of the TF1 variable named name in
// the main graph: the input of the Assign tf.Variable names NAME/Assign,
// through Identity nodes, when that is a Const. It returns the value and
// the Const's name, or nil and why not ("" when the graph has no such
// initialiser at all).
func (m *Model) initialValue(name string) (*ir.Tensor, string, string) {
	nodes := make(map[string]*tfpb.NodeDef, len(m.Graph.GetNode()))
	for _, n := range m.Graph.GetNode() {
		nodes[n.GetName()] = n
	}
	as := nodes[name+"/Assign"]
	if as == nil || as.GetOp() != "Assign" || len(as.GetInput()) < 2 || as.GetInput()[0] != name {
		return nil, "", ""
	}
	src := as.GetInput()[1]
	for hops := 0; ; hops++ {
		node, _, _ := strings.Cut(src, ":")
		n := nodes[node]
		switch {
		case n == nil:
			return nil, "", fmt.Sprintf("its initialiser %q names no node", src)
		case n.GetOp() == "Const":
			t, err := ir.FromProto(n.GetAttr()["value"].GetTensor())
			if err != nil {
				return nil, "", fmt.Sprintf("its initial value %q does not decode: %v", node, err)
			}
			return t, node, ""
		case n.GetOp() == "Identity" && len(n.GetInput()) > 0 && hops < 64:
			src = n.GetInput()[0]
		default:
			return nil, "", fmt.Sprintf("its initial value %q is computed (op %s), not a constant: restore a checkpoint into the graph and freeze it first", node, n.GetOp())
		}
	}
}

func checkVariable(n *ir.Node, t *ir.Tensor) error {
	if dt, err := n.AttrTypeOr("dtype", ir.Invalid); err != nil {
		return err
	} else if dt != ir.Invalid && dt != t.DType {
		return n.Errorf("variable is declared %s, the checkpoint holds %s", dt, t.DType)
	}
	if s, ok, err := n.AttrShape("shape"); err != nil {
		return err
	} else if ok && s != nil {
		if _, same := ir.Merge(s, t.Shape); !same {
			return n.Errorf("variable is declared with shape %s, the checkpoint holds %s", s, t.Shape)
		}
	}
	return nil
}
