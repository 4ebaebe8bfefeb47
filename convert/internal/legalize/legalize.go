// Package legalize is the converter's legalize pass: it rewrites the
// TensorFlow ops left in a converted function into TensorFlow Lite
// builtin operators, each by its op record's Legalize (ir.OpRecord; the
// records and their legalisations are in package tfops, which follows the
// mapping of TensorFlow's own converter). Package optimize then folds and
// fuses the result the way TFLite's converter does.
//
// An op without a legalisation is an error naming the node, its op and
// the function it sits in.
package legalize

import (
	_ "github.com/tflrun/tflrun/convert/internal/tfops" // the op records
	"github.com/tflrun/tflrun/convert/ir"
)

// Supported lists the TensorFlow ops with a legalisation, sorted.
func Supported() []string {
	var out []string
	for _, op := range ir.OpNames() {
		if r, _ := ir.LookupOp(op); r.Legalize != nil {
			out = append(out, op)
		}
	}
	return out
}

// Func legalises every TensorFlow node of f (Const nodes stay: their
// values become constant tensors). f must have been simplified (shapes
// inferred, constants folded). Errors name the node, op and function.
func Func(f *ir.Function) error {
	if err := f.TopoSort(); err != nil {
		return err
	}
	defer f.TrackUses()()
	f.Budget.AddWork(len(f.Nodes))
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if n.TFL != nil || n.Op == "Const" {
			continue
		}
		r, ok := ir.LookupOp(n.Op)
		if !ok || r.Legalize == nil {
			if n.Op == "Placeholder" {
				return n.Errorf("is needed by the outputs but is not an input (name it in --input_arrays)")
			}
			return n.Errorf("no TFLite legalisation for op %s", n.Op)
		}
		if err := r.Legalize(f, n); err != nil {
			return n.Wrap(err)
		}
	}
	f.RemoveUnused()
	return nil
}
