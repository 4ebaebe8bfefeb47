package ir

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/schema"
)

// Value is one tensor of the graph: a node output or a function
// parameter.
type Value struct {
	// Name identifies the value in messages and becomes the TFLite tensor
	// name: the producing node's name for output 0, "node:i" for output i,
	// the parameter name for a parameter.
	Name  string
	DType DType
	// Shape is the static shape as far as known (nil: unknown rank).
	Shape Shape
	// Const is the value when it is a known constant.
	Const *Tensor
	// Producer is the node computing the value, nil for a parameter.
	Producer *Node
	// Index is the output index in Producer, or the parameter index.
	Index int
	// Variable is set on a DT_RESOURCE value known to be a handle of a
	// variable whose checkpoint value is resolved (VarHandleOp outputs and
	// resource arguments bound to them).
	Variable *Variable
	// Quant is the TFLite quantisation of the tensor (nil: float/none).
	Quant *Quantization
	// IsVariableTensor marks a TFLite variable tensor (recurrent state
	// that persists across invocations; written with is_variable).
	IsVariableTensor bool

	// The use index of the function while a pass tracks uses (see
	// useIndex): valid when useEpoch is the index's epoch.
	useEpoch uint64
	users    []UseRef
	results  int32
}

// Variable is a resource variable with its value from the checkpoint.
type Variable struct {
	// Name is the variable's shared_name in the graph (or its object-graph
	// path when it has none).
	Name string
	// Key is the TensorBundle key its value was read from.
	Key string
	// Value is the checkpoint value.
	Value *Tensor
	// State marks a variable the model updates (an RNN state kept across
	// calls): its reads are not constants and its updates are kept until
	// package stateful turns them into state inputs/outputs or variable
	// tensors.
	State bool
}

// Quantization holds TFLite quantisation parameters: real = scale ×
// (q − zero_point), per tensor (one scale) or per channel along Dim.
type Quantization struct {
	Scale     []float32
	ZeroPoint []int64
	Dim       int
	Min, Max  []float32
}

// String is "name dtype[shape]".
func (v *Value) String() string {
	if v == nil {
		return "<none>"
	}
	s := fmt.Sprintf("%q %s%s", v.Name, v.DType, v.Shape)
	if v.Const != nil {
		s += " const"
	}
	return s
}

// IsParam reports whether v is a function parameter.
func (v *Value) IsParam() bool { return v.Producer == nil }

// Node is an operation: a TensorFlow op (Op, Attrs) or, once legalised, a
// TFLite operator (TFL).
type Node struct {
	Name    string
	Op      string
	Attrs   map[string]*tfpb.AttrValue
	Inputs  []*Value // nil entries are omitted optional inputs (TFLite -1)
	Outputs []*Value
	Func    *Function
	// TFL is set when the node is a TFLite operator.
	TFL *TFLOp
	// InlinedFrom lists the functions the node was inlined through,
	// outermost call first (for messages and cycle detection).
	InlinedFrom []string

	// mark is scratch state of the traversal running over the node's
	// function (see newMarks); removed is the epoch of the use index
	// that saw the node removed (see useIndex).
	mark, removed uint64
}

// markEpoch numbers traversals of functions (TopoSort, RemoveUnused):
// each takes fresh mark values, so that a node's mark from an earlier
// traversal means nothing to a later one and no traversal needs a map of
// every node.
var markEpoch atomic.Uint64

// newMarks returns the first of k fresh mark values.
func newMarks(k uint64) uint64 { return markEpoch.Add(k) - k + 1 }

// TFLOp describes a TFLite operator: a builtin code or a custom name,
// its operator version and its options.
type TFLOp struct {
	Builtin schema.BuiltinOperator
	// Custom is the custom operator name (Builtin must be CUSTOM).
	Custom  string
	Version int32
	// Options is the builtin options union (nil for none).
	Options *schema.BuiltinOptionsT
	// Options2 is the second options union of newer operators.
	Options2      *schema.BuiltinOptions2T
	CustomOptions []byte
	// Intermediates are extra tensors some operators (integer LSTM) need.
	Intermediates []*Value
	// Subgraphs are the functions the operator's options name by
	// subgraph index, in the order of those fields (WHILE: cond, body;
	// IF: then, else; CALL_ONCE: init; see package tflite's
	// SubgraphFields), for an operator read from a .tflite model. The
	// writer numbers the subgraphs it writes and sets the indices from
	// them, so that dropping a subgraph renumbers the others.
	Subgraphs []*Function
}

// OpName is the op for messages: the TensorFlow op, or "tfl.NAME" for a
// TFLite operator.
func (n *Node) OpName() string {
	if n.TFL != nil {
		if n.TFL.Builtin == schema.BuiltinOperatorCUSTOM {
			return "tfl.custom." + n.TFL.Custom
		}
		return "tfl." + schema.BuiltinOperatorName(int32(n.TFL.Builtin))
	}
	return n.Op
}

// String is "name (op)".
func (n *Node) String() string { return fmt.Sprintf("%q (%s)", n.Name, n.OpName()) }

// Function is a graph with parameters and results: the main graph, a
// FunctionDef, or a copy being rewritten.
type Function struct {
	// Name is the FunctionDef's name, or for the entry function the
	// SavedModel signature key ("serving_default"; a GraphDef's entry is
	// given the same key, which is its TFLite signature key).
	Name string
	// Graph, when non-empty, marks the main graph of a GraphDef, which
	// is no function of its own: it is the GraphDef's file as the user
	// named it, and errors say "graph GRAPH" rather than "function Name"
	// (see Where). Empty for FunctionDefs and a SavedModel's entry.
	Graph string
	// Params are the inputs, in order.
	Params []*Value
	// Results are the outputs, in order, with ResultNames their names
	// (FunctionDef output args, or signature output keys).
	Results     []*Value
	ResultNames []string
	Nodes       []*Node
	// Attrs are function attributes ("_implements", "api_implements", ...).
	Attrs map[string]*tfpb.AttrValue
	// ArgAttrs[i] are the attributes of parameter i (may be nil).
	ArgAttrs []map[string]*tfpb.AttrValue
	Module   *Module
	// Budget holds the limits and the constant accounting of the
	// conversion the function belongs to (shared by every function of
	// it: Clone and passes.Specialize pass it on); nil applies
	// DefaultLimits and counts nothing.
	Budget *Budget
	names  map[string]int
	// uses indexes the uses of values while a pass tracks them
	// (TrackUses); nil otherwise.
	uses *useIndex
}

// NewFunction returns an empty function of module m (m may be nil).
func NewFunction(name string, m *Module) *Function {
	return &Function{Name: name, Module: m, Attrs: map[string]*tfpb.AttrValue{}}
}

// Where names the function in error messages: "graph GRAPH" for the
// main graph of a GraphDef (Graph set), "function NAME" otherwise.
func (f *Function) Where() string {
	if f.Graph != "" {
		return "graph " + f.Graph
	}
	return "function " + f.Name
}

// UniqueName returns base, or base_N when a node of that name exists.
func (f *Function) UniqueName(base string) string {
	if f.names == nil {
		// Room for as many new names again: a pass that rewrites every
		// node (legalisation) then never regrows the map.
		f.names = make(map[string]int, 2*(len(f.Nodes)+len(f.Params))+16)
		for _, n := range f.Nodes {
			f.names[n.Name] = 0
		}
		for _, p := range f.Params {
			f.names[p.Name] = 0
		}
	}
	if _, taken := f.names[base]; !taken {
		f.names[base] = 0
		return base
	}
	for {
		f.names[base]++
		c := base + "_" + strconv.Itoa(f.names[base])
		if _, taken := f.names[c]; !taken {
			f.names[c] = 0
			return c
		}
	}
}

// AddParam appends a parameter.
func (f *Function) AddParam(name string, dt DType, shape Shape) *Value {
	v := &Value{Name: f.UniqueName(name), DType: dt, Shape: shape, Index: len(f.Params)}
	f.Params = append(f.Params, v)
	return v
}

// NewNode appends a node named after name (made unique) with nOut fresh
// outputs of unknown type and shape.
func (f *Function) NewNode(name, op string, inputs []*Value, nOut int) *Node {
	n := &Node{Name: f.UniqueName(name), Op: op, Inputs: inputs, Func: f, Attrs: map[string]*tfpb.AttrValue{}}
	n.SetNumOutputs(nOut)
	f.Nodes = append(f.Nodes, n)
	f.uses.add(n)
	return n
}

// SetNumOutputs grows or shrinks n's outputs to k, creating fresh values.
func (n *Node) SetNumOutputs(k int) {
	for len(n.Outputs) < k {
		i := len(n.Outputs)
		name := n.Name
		if i > 0 {
			name += ":" + strconv.Itoa(i)
		}
		n.Outputs = append(n.Outputs, &Value{Name: name, DType: Invalid, Producer: n, Index: i})
	}
	n.Outputs = n.Outputs[:k]
}

// TypeShape is an output description for NewTFL.
type TypeShape struct {
	DType DType
	Shape Shape
}

// NewTFL appends a TFLite operator node with outputs of the given types
// and shapes.
func (f *Function) NewTFL(name string, op *TFLOp, inputs []*Value, outs ...TypeShape) *Node {
	n := f.NewNode(name, "", inputs, len(outs))
	n.TFL = op
	for i, o := range outs {
		n.Outputs[i].DType = o.DType
		n.Outputs[i].Shape = o.Shape.Clone()
	}
	return n
}

// NewConst appends a Const node holding t and returns its output. t is
// counted against f's Budget; past MaxConstantBytes the Budget keeps the
// error (Budget.Err), which the converter checks after every pass.
func (f *Function) NewConst(name string, t *Tensor) *Value {
	if f.Budget != nil {
		f.Budget.Add(t, func() string { return fmt.Sprintf("%s: constant %q %s%s", f.Where(), name, t.DType, t.Shape) })
	}
	n := f.NewNode(name, "Const", nil, 1)
	n.Attrs["dtype"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: t.DType.TF()}}
	v := n.Outputs[0]
	v.DType, v.Shape, v.Const = t.DType, t.Shape.Clone(), t
	return v
}

// Node returns the node of that name, or nil.
func (f *Function) Node(name string) *Node {
	f.Budget.AddWork(len(f.Nodes))
	for _, n := range f.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// TopoSort orders f.Nodes so every node follows the producers of its
// inputs. A cycle (TF1 loops, or a malformed graph) gives an error naming
// the nodes on it.
func (f *Function) TopoSort() error {
	// Marks: fresh (in f, not visited), on the stack, done; a producer
	// with an older mark is not in f.
	f.Budget.AddWork(len(f.Nodes))
	fresh := newMarks(3)
	onStack, done := fresh+1, fresh+2
	order := make([]*Node, 0, len(f.Nodes))
	for _, n := range f.Nodes {
		n.mark = fresh
	}
	type frame struct {
		n   *Node
		i   int
		ins []*Value // the node's inputs, then its TFLite intermediates
	}
	push := func(stack []frame, n *Node) []frame {
		ins := n.Inputs
		if n.TFL != nil && len(n.TFL.Intermediates) > 0 {
			ins = append(append([]*Value(nil), ins...), n.TFL.Intermediates...)
		}
		return append(stack, frame{n, 0, ins})
	}
	var stack []frame
	for _, root := range f.Nodes {
		if root.mark != fresh {
			continue
		}
		stack = push(stack[:0], root)
		root.mark = onStack
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ins := top.ins
			if top.i < len(ins) {
				v := ins[top.i]
				top.i++
				if v == nil || v.Producer == nil {
					continue
				}
				p := v.Producer
				if p.mark < fresh || p.mark > done {
					return top.n.Errorf("input %q comes from a node that is not in the function", v.Name)
				}
				switch p.mark {
				case fresh:
					p.mark = onStack
					stack = push(stack, p)
				case onStack:
					var cyc []string
					for j := len(stack) - 1; j >= 0; j-- {
						cyc = append(cyc, stack[j].n.Name)
						if stack[j].n == p {
							break
						}
					}
					what := "the graph has a cycle"
					for _, name := range cyc {
						if n := f.Node(name); n != nil && (n.Op == "NextIteration" || n.Op == "Merge" || n.Op == "Enter") {
							what = "the graph has a TensorFlow 1 while loop (Enter/Merge/Switch/NextIteration/Exit control flow, which tflrun does not convert)"
							break
						}
					}
					return fmt.Errorf("%s: %s: cycle through nodes %s", f.Where(), what, strings.Join(cyc, " <- "))
				}
				continue
			}
			top.n.mark = done
			order = append(order, top.n)
			stack = stack[:len(stack)-1]
		}
	}
	copy(f.Nodes, order)
	return nil
}

// Implements returns the composite-op annotation of the function: the
// attribute name ("_implements", "api_implements" or "tf._implements")
// and its value. A NameAttrList value (experimental_implements given as a
// function spec) yields its name. ok is false when there is none.
func (f *Function) Implements() (attr, value string, ok bool) {
	keys := make([]string, 0, 3)
	for _, k := range []string{"_implements", "api_implements", "tf._implements", "tf.api_implements"} {
		if _, has := f.Attrs[k]; has {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		a := f.Attrs[k]
		switch v := a.GetValue().(type) {
		case *tfpb.AttrValue_S:
			return k, string(v.S), true
		case *tfpb.AttrValue_Func:
			return k, v.Func.GetName(), true
		}
	}
	return "", "", false
}

// Module is the set of functions of a TensorFlow model plus the op
// definitions needed to read them.
type Module struct {
	// Library holds the FunctionDefs by name; Function imports them on
	// first use.
	Library map[string]*tfpb.FunctionDef
	// OpDefs holds op definitions by op name (from the MetaGraphDef's
	// stripped op list, completed with tflrun's built-in table).
	OpDefs    map[string]*tfpb.OpDef
	functions map[string]*Function
}

// NewModule returns a module over a function library and op definitions.
func NewModule(lib *tfpb.FunctionDefLibrary, ops *tfpb.OpList) *Module {
	m := &Module{Library: map[string]*tfpb.FunctionDef{}, OpDefs: map[string]*tfpb.OpDef{}, functions: map[string]*Function{}}
	for _, fd := range lib.GetFunction() {
		if fd.GetSignature().GetName() != "" {
			m.Library[fd.Signature.Name] = fd
		}
	}
	for _, od := range ops.GetOp() {
		m.OpDefs[od.Name] = od
	}
	return m
}

// FunctionNames returns the library's function names, sorted.
func (m *Module) FunctionNames() []string {
	names := make([]string, 0, len(m.Library))
	for k := range m.Library {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Function returns the imported function of that name (imported on first
// use and cached; callers that rewrite it must Clone it first).
func (m *Module) Function(name string) (*Function, error) {
	if f, ok := m.functions[name]; ok {
		return f, nil
	}
	fd, ok := m.Library[name]
	if !ok {
		return nil, fmt.Errorf("function %q is not in the graph's function library", name)
	}
	f, err := ImportFunction(m, fd)
	if err != nil {
		return nil, err
	}
	m.functions[name] = f
	return f, nil
}

// Outputs0 returns the node's first output, or nil when it has none.
func (n *Node) Outputs0() *Value {
	if len(n.Outputs) == 0 {
		return nil
	}
	return n.Outputs[0]
}
