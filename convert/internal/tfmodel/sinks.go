package tfmodel

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// A frozen GraphDef carries no signature: its outputs are whatever the
// user fetches. Without output arrays tflrun takes the graph's sinks, the
// nodes whose outputs no other node reads, as TensorFlow's
// freeze_graph users pick them by hand, leaving out what inference never
// fetches: ops with no data output or that only update state (NoOp,
// Assign…, Apply…, Save…/Restore…, Assert), the checkpoint saver's and
// the optimiser's name scopes, and unread Placeholders, Consts and
// variables.

// noSinkOps are ops never taken as an inferred output.
var noSinkOps = map[string]bool{
	"NoOp": true, "Assert": true, "Print": true, "PrintV2": true,
	"Assign": true, "AssignAdd": true, "AssignSub": true,
	"AssignVariableOp": true, "AssignAddVariableOp": true, "AssignSubVariableOp": true,
	"Save": true, "SaveV2": true, "SaveSlices": true, "MergeV2Checkpoints": true,
	"Restore": true, "RestoreV2": true, "RestoreSlice": true,
	"Placeholder": true, "PlaceholderWithDefault": true, "Const": true,
	"Variable": true, "VariableV2": true, "VarHandleOp": true,
	"VarIsInitializedOp": true, "IsVariableInitialized": true,
	"ScalarSummary": true, "HistogramSummary": true, "MergeSummary": true,
	"TensorSummary": true, "TensorSummaryV2": true, "ImageSummary": true, "AudioSummary": true,
	"DestroyResourceOp": true,
}

// noSinkScopes are top-level name scopes whose nodes are never taken as
// inferred outputs: tf.train.Saver's, the gradients and optimisers of a
// training graph, the variable initialisers.
var noSinkScopes = []string{"save", "gradients", "GradientDescent", "Adam", "Momentum", "RMSProp", "Adagrad",
	"init", "report_uninitialized_variables"}

// isNoSink reports whether node n is never an inferred output.
func isNoSink(n *tfpb.NodeDef) bool {
	op := n.GetOp()
	if noSinkOps[op] || strings.HasPrefix(op, "Apply") || strings.HasPrefix(op, "ResourceApply") ||
		strings.HasPrefix(op, "ResourceSparseApply") || strings.HasPrefix(op, "SparseApply") {
		return true
	}
	return inNoSinkScope(n.GetName())
}

// inNoSinkScope reports whether a node name is in one of noSinkScopes
// (or a numbered copy: "save_1", "gradients_2").
func inNoSinkScope(name string) bool {
	scope, _, _ := strings.Cut(name, "/")
	for _, s := range noSinkScopes {
		if scope == s || strings.HasPrefix(scope, s+"_") && isDigits(scope[len(s)+1:]) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// SinkNodes returns the names of g's nodes, in graph order, whose outputs
// no node reads as data and that are candidate outputs (not a state
// update, saver, initialiser, gradient, unread Placeholder or constant):
// the outputs tflrun infers for a GraphDef given without output arrays.
// A control input is no read, and neither is a read from inside the
// saver's, the gradients' or an optimiser's scope, so that a training
// graph's loss, read only by its gradients, is a sink. When that leaves
// nothing, unread PlaceholderWithDefault nodes (a default value fetched
// as is, as in TensorFlow's converter tests) are the sinks. The input of
// a _Retval node (a graph written as a function body) is a sink in its
// place. tf.cond's switch_t and switch_f (Identity nodes of a Switch
// output, read only by control inputs) are not sinks.
func SinkNodes(g *tfpb.GraphDef) []string {
	read := map[string]bool{}
	for _, n := range g.GetNode() {
		if inNoSinkScope(n.GetName()) {
			continue
		}
		for _, in := range n.GetInput() {
			if strings.HasPrefix(in, "^") {
				continue
			}
			node, _, _ := strings.Cut(in, ":")
			read[node] = true
		}
	}
	ops := make(map[string]string, len(g.GetNode()))
	for _, n := range g.GetNode() {
		ops[n.GetName()] = n.GetOp()
	}
	var sinks, defaults []string
	for _, n := range g.GetNode() {
		switch {
		case n.GetOp() == "Identity" && len(n.GetInput()) > 0 && ops[strings.Split(n.GetInput()[0], ":")[0]] == "Switch":
			// tf.cond's switch_t/switch_f: anchors for control inputs.
		case n.GetOp() == "_Retval" && len(n.GetInput()) > 0:
			// A graph written as a function body (TensorFlow's converter
			// tests): its _Retval nodes name the outputs.
			sinks = append(sinks, n.GetInput()[0])
		case read[n.GetName()]:
		case n.GetOp() == "PlaceholderWithDefault" && !inNoSinkScope(n.GetName()):
			defaults = append(defaults, n.GetName())
		case !isNoSink(n):
			sinks = append(sinks, n.GetName())
		}
	}
	if len(sinks) == 0 {
		return defaults
	}
	return sinks
}

// Placeholders returns the names of g's Placeholder nodes, in graph
// order: the candidate inputs.
func Placeholders(g *tfpb.GraphDef) []string {
	var out []string
	for _, n := range g.GetNode() {
		if n.GetOp() == "Placeholder" {
			out = append(out, n.GetName())
		}
	}
	return out
}

// candidates lists at most max names, saying how many were left out.
func candidates(names []string, max int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// graphCandidates describes g's candidate inputs and outputs for an error
// message.
func graphCandidates(g *tfpb.GraphDef) string {
	return fmt.Sprintf("candidate inputs (Placeholders): %s; candidate outputs (sink nodes): %s",
		candidates(Placeholders(g), 20), candidates(SinkNodes(g), 20))
}
