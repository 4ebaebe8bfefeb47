package ir

import (
	"fmt"
	"sort"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// OpRecord is everything tflrun knows about one TensorFlow op, in one
// place: what the importer needs (its outputs), what simplification needs
// (minimum inputs, shape inference, constant folding) and what the legalize
// pass needs (its TFLite lowering). Package tfops registers one record per
// op it knows, each in the file of its op (or of its family of ops); a
// test there checks that every record is complete.
type OpRecord struct {
	// Name is the TensorFlow op name ("MatMul").
	Name string
	// Outputs lists the op's output arguments as TensorFlow's op
	// registration declares them, for graphs that carry no op list
	// (frozen GraphDefs, hand-written .pbtxt) or whose list leaves out the
	// ops used inside functions (SavedModels written by TensorFlow 2.2–2.4
	// strip only the main graph's ops): FunctionDef bodies name tensors
	// "node:output_arg:index", so the argument names and sizes are needed
	// to find the flat output index. It is a space-separated list of
	// "name:TYPE" ("" for an op with no outputs), where TYPE is
	//
	//	=dtype          a fixed type (=int32, =bool, =resource, =variant, ...)
	//	attr            the type in attribute attr
	//	attr=dtype      the same, with that default when the attribute is absent
	//	TYPE*numattr    a list of numattr tensors of that type
	//	[listattr]      a list of tensors whose types are in attribute listattr
	Outputs string
	// MinInputs is the number of inputs a node needs; shape inference
	// reports a node with fewer as an error and folding declines it.
	MinInputs int
	// Infer sets the output types and shapes of a node as far as its
	// inputs and attributes determine them (it may read constant inputs).
	// Nil: the types the importer found and the graph's shape hints stay.
	Infer func(n *Node) error
	// Fold computes a node's outputs when every input is constant (in
	// holds the input values); it returns nil, nil to decline. Nil: the op
	// is never folded.
	Fold func(n *Node, in []*Tensor) ([]*Tensor, error)
	// Legalize replaces a node of f by TFLite operators computing the
	// same: it adds them to f and points the users of the node's outputs
	// at theirs (the node, then unused, is removed afterwards). Errors
	// describe what the node asks that TFLite cannot do.
	Legalize func(f *Function, n *Node) error
	// NoLegalize says, for an op without Legalize, what becomes of its
	// nodes instead (bypassed or folded by simplification, lowered by
	// package controlflow, inlined, or refused by the legalize pass as
	// having no TFLite equivalent). A record has exactly one of Legalize
	// and NoLegalize.
	NoLegalize string

	// opDef is Outputs parsed (ParseOutputs), once, at registration.
	opDef *tfpb.OpDef
}

// opRecords holds the registered records by op name.
var opRecords = map[string]*OpRecord{}

// RegisterOp adds the record of an op. It panics when the name is empty
// or already registered: records are registered once, at
// initialisation, by the files that define them.
func RegisterOp(r OpRecord) {
	if r.Name == "" {
		panic("ir.RegisterOp: a record without a name")
	}
	if _, dup := opRecords[r.Name]; dup {
		panic(fmt.Sprintf("ir.RegisterOp: op %s is registered twice", r.Name))
	}
	r.opDef, _ = ParseOutputs(r.Name, r.Outputs) // every record's spec parses (tfops' tests)
	opRecords[r.Name] = &r
}

// LookupOp returns the record of op (ok=false when none is registered).
// The record is shared: callers must not change it.
func LookupOp(op string) (r *OpRecord, ok bool) {
	r, ok = opRecords[op]
	return r, ok
}

// OpNames lists the ops with a record, sorted.
func OpNames() []string {
	names := make([]string, 0, len(opRecords))
	for name := range opRecords {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
