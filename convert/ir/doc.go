// Package ir is the converter's graph intermediate representation: a
// Module of Functions, each a set of Nodes connected by Values that carry
// an element type, a static (possibly partly unknown) shape and, when
// known, a constant Tensor.
//
// One IR holds both TensorFlow operations (as imported from a GraphDef or a
// FunctionDef: Node.Op is the TensorFlow op name, Node.Attrs its
// attributes) and TensorFlow Lite operators (Node.TFL is set): the
// converter's passes rewrite the former into the latter in place, and the
// writer accepts a function only when every node is a TFLite operator.
//
// Values are SSA: each has one producer (a node output, or a function
// parameter) and any number of users. Users are not stored; Function.Uses
// computes them when a pass needs them, so rewriting a graph is a matter of
// changing Node.Inputs slices and Function.Results.
package ir
