package ir

import "fmt"

// FormatError reports malformed input data (a tensor, a shape, an
// attribute) found while building the IR. What names the thing, Where the
// place (node, function, file) when known.
type FormatError struct {
	What   string
	Where  string
	Detail string
}

// Error implements error: "WHERE: malformed WHAT: DETAIL".
func (e *FormatError) Error() string {
	if e.Where != "" {
		return fmt.Sprintf("%s: malformed %s: %s", e.Where, e.What, e.Detail)
	}
	return fmt.Sprintf("malformed %s: %s", e.What, e.Detail)
}

// NodeError is an error about one node: it names the node, its op and the
// function (or GraphDef main graph) it sits in, so a user can find it in
// the TensorFlow graph.
type NodeError struct {
	// Func is the name of the function the node sits in, with " (inlined
	// from G)" when it was written in function G, or "".
	Func string
	// Where, when set, is the whole place as Function.Where spells it
	// ("function F" or "graph FILE", plus any " (inlined from G)") and
	// takes precedence over Func.
	Where string
	Node  string
	Op    string
	Err   error
}

// Error implements error: "WHERE: node "N" (op O): ...", where WHERE is
// Where, or "function Func", or "graph" when both are empty.
func (e *NodeError) Error() string {
	where := e.Where
	if where == "" {
		where = "graph"
		if e.Func != "" {
			where = "function " + e.Func
		}
	}
	return fmt.Sprintf("%s: node %q (op %s): %v", where, e.Node, e.Op, e.Err)
}

// Unwrap returns the underlying error.
func (e *NodeError) Unwrap() error { return e.Err }

// Errorf returns a NodeError for n.
func (n *Node) Errorf(format string, args ...any) error {
	return n.Wrap(fmt.Errorf(format, args...))
}

// Wrap returns err as a NodeError for n; an error that already is a
// NodeError is returned unchanged.
func (n *Node) Wrap(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*NodeError); ok {
		return err
	}
	fn, where := "", ""
	if n.Func != nil {
		fn, where = n.Func.Name, n.Func.Where()
	}
	if k := len(n.InlinedFrom); k > 0 {
		// Name the function the node was written in, too.
		from := " (inlined from " + n.InlinedFrom[k-1] + ")"
		fn += from
		if where != "" {
			where += from
		}
	}
	return &NodeError{Func: fn, Where: where, Node: n.Name, Op: n.OpName(), Err: err}
}
