// Package fusion is the converter's composite-op fusion hook: a registry
// of rules keyed by the name a TensorFlow function is annotated with
// (the function attribute "_implements", set by tf.function's
// experimental_implements, or "api_implements", which Keras sets on its
// LSTM/GRU layer functions as "lstm_<uuid>" / "gru_<uuid>").
//
// While the converter inlines function calls (outermost first, so every
// call ends up in the entry function), it offers each call of an annotated
// function to the rule registered for the annotation, before inlining it:
//
//  1. The call's callee is copied and specialised to the call: parameter
//     types and shapes come from the call's inputs, constant inputs and
//     resolved variables are bound (Value.Const / Value.Variable on the
//     parameters), and the copy is simplified (constants folded, shapes
//     inferred, identities removed).
//  2. Registry.Lookup finds the rule: an exact name first, then the
//     longest registered prefix ("lstm_" matches "lstm_acb16a99-...").
//  3. Rule.Fuse either rewrites the call into TFLite operators (Fused) or
//     declines with a reason; a declined call is inlined and lowered like
//     any other.
//
// Every annotated call and every While loop ends up in the Report: the
// rule that saw it (or none), fused or not, and why.
//
// Built-in rules (RegisterBuiltins; all registered in Default):
//
//   - KerasLSTM, "lstm_*" and "indy_lstm_*" → UNIDIRECTIONAL_SEQUENCE_LSTM,
//     TensorFlow Lite's mapping (gates i, f, c, o; REVERSE_V2 for
//     go_backwards; STRIDED_SLICE for the last output; cell_clip 10 and
//     proj_clip 0, the values TensorFlow's converter writes — see
//     BuiltinOptions to write no clip, Keras's own semantics). A Keras
//     Bidirectional(LSTM) is two such calls merged by ordinary ops.
//   - KerasGRU, "gru_*" → the custom UNIDIRECTIONAL_SEQUENCE_GRU (beyond
//     TensorFlow's converter), both reset_after forms.
//   - LSTMCellSimple, "LSTMCellSimple[,CoupleInputForgetGates]" and
//     "LayerNormalizedLstmCellSimple" → LSTM; EmbeddingMatmul,
//     "embedding_matmul" → EMBEDDING_LOOKUP.
//   - the loop rules (see RegisterLoop, OfferLoops), for layers that run
//     their cell in a plain While loop with no annotation (a non-default
//     activation, recurrent_dropout, Keras 3 exports, TF1 graphs):
//     KerasLSTMLoop → UNIDIRECTIONAL_SEQUENCE_LSTM with the activation
//     found, KerasGRULoop → UNIDIRECTIONAL_SEQUENCE_GRU, KerasSimpleRNN →
//     UNIDIRECTIONAL_SEQUENCE_RNN. TF1's BasicLSTMCell and GRUCell loops
//     are recognised too.
//
// The Keras rules recognise a composite by evaluating its loop body and
// the code around the loop on probe values (constant folding) and
// comparing with the cell equations, so the preconditions (sigmoid gates,
// the layer's weights, layout, which outputs are used) are checked on what
// the function computes. Fused recurrent operators keep their state in
// TFLite variable tensors, as TensorFlow Lite's converted models do: see
// state.go for stateful layers and for the state carried across invokes.
// Site.ConstInput, Site.Evaluate and the Site.Emit* methods serve user
// rules:
//
// Writing a rule: a user rule is any Rule (RuleFunc adapts a function)
// registered under the annotation it handles, on a registry the
// conversion uses:
//
//	reg := fusion.Default.Clone() // the built-in rules, plus:
//	reg.Register("user.tanh_rnn", fusion.RuleFunc{RuleName: "tanh-rnn", Func: fuseTanhRNN})
//	res, err := convert.Convert(path, convert.Options{Registry: reg})
//
// (RegisterPrefix handles every annotation with a prefix, as "lstm_"
// does.) The rule checks the site — the call's inputs and outputs
// (types, static shapes), ConstInput for weights known at conversion
// time, Evaluate to check on probe values what the body computes — and
// either refuses with a reason (Result.Reason; the call is then lowered
// op by op and the report says why) or emits TFLite operators into the
// caller (the Emit* methods, or Caller.NewTFL / NewConst for any other
// operator) and rewires every used output with ReplaceOutput.
package fusion

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tflrun/tflrun/convert/ir"
)

// Site is one call of an annotated (composite) function, as offered to a
// rule.
type Site struct {
	// Caller is the function the call sits in: the entry function being
	// converted. A rule that fuses adds its TFLite nodes here.
	Caller *ir.Function
	// Call is the call node (StatefulPartitionedCall, PartitionedCall, or
	// a node whose op is the function's name). Its Inputs are the
	// composite's arguments (with types, static shapes and, when known,
	// constant values or resolved variables); its Outputs are what the
	// rest of the graph uses.
	Call *ir.Node
	// Callee is a private copy of the called function specialised to this
	// call (see the package comment). The rule may read and modify it.
	Callee *ir.Function
	// Attr is the annotation attribute ("_implements", "api_implements",
	// ...) and Name its value ("lstm_acb16a99-...", "LSTMCellSimple").
	Attr, Name string
	// Module gives access to the model's other functions (a While loop's
	// body and cond, for instance).
	Module *ir.Module

	// loop caches the analysis of a loop site (see Site.loop), which
	// every built-in loop rule starts with.
	loop *loopAnalysis
}

// loopAnalysis is the result of analyseLoop on a loop site.
type loopAnalysis struct {
	L   *loopInfo
	err error
}

// analysedLoop analyses the site's While loop once for all loop rules
// (the rules only read the result).
func (s *Site) analysedLoop() (*loopInfo, error) {
	if s.loop == nil {
		L, err := analyseLoop(s.Caller, s.Call, s.Module)
		s.loop = &loopAnalysis{L, err}
	}
	return s.loop.L, s.loop.err
}

// OutputUsed reports whether output i of the call is used by any node or
// is an entry-function result.
func (s *Site) OutputUsed(i int) bool {
	if i < 0 || i >= len(s.Call.Outputs) {
		return false
	}
	v := s.Call.Outputs[i]
	if s.Caller.IsResult(v) {
		return true
	}
	for _, n := range s.Caller.Nodes {
		for _, in := range n.Inputs {
			if in == v {
				return true
			}
		}
	}
	return false
}

// ReplaceOutput makes every user of call output i use v instead. A rule
// that fuses must replace every output that OutputUsed reports.
func (s *Site) ReplaceOutput(i int, v *ir.Value) {
	s.Caller.ReplaceAllUses(s.Call.Outputs[i], v)
}

// Result is what a rule did with a site.
type Result struct {
	// Fused is true when the rule replaced the call by TFLite operators.
	Fused bool
	// Reason explains a refusal ("mask input is not supported", "batch
	// size is not static"); for a fusion it may note details.
	Reason string
	// Ops names the TFLite operators emitted
	// ("UNIDIRECTIONAL_SEQUENCE_LSTM"), for the report.
	Ops []string
}

// Rule fuses one family of composite functions.
type Rule interface {
	// Name identifies the rule in the report ("keras-lstm").
	Name() string
	// Fuse examines the site. To fuse, it adds TFLite nodes to
	// site.Caller computing the call's used outputs, calls
	// site.ReplaceOutput for each, and returns Fused=true (the call node
	// is then removed). To refuse, it must leave site.Caller unchanged
	// and return Fused=false with the reason. An error aborts the
	// conversion: use it for a malformed model, not for an unsupported
	// variant.
	Fuse(site *Site) (Result, error)
}

// Offer calls rule.Fuse on site and turns a panic inside the rule (a
// user rule indexing past a slice, say) into an error naming the rule and
// the call, so that a faulty rule aborts the conversion with a message
// instead of crashing the program. The converter offers every composite
// and loop through it.
func Offer(rule Rule, site *Site) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			call := "<nil>"
			if site != nil && site.Call != nil {
				call = site.Call.Name
			}
			res, err = Result{}, fmt.Errorf("fusion rule %s panicked on call %q: %v", rule.Name(), call, p)
		}
	}()
	return rule.Fuse(site)
}

// RuleFunc adapts a function to Rule.
type RuleFunc struct {
	RuleName string
	Func     func(site *Site) (Result, error)
}

// Name implements Rule.
func (r RuleFunc) Name() string { return r.RuleName }

// Fuse implements Rule.
func (r RuleFunc) Fuse(site *Site) (Result, error) { return r.Func(site) }

// Registry maps annotation names and name prefixes to rules. It is safe
// for concurrent use.
type Registry struct {
	mu       sync.RWMutex
	exact    map[string]Rule
	prefixes map[string]Rule
	loops    []Rule // see RegisterLoop
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{exact: map[string]Rule{}, prefixes: map[string]Rule{}}
}

// Default is the registry the converter uses unless told otherwise; the
// built-in rules register themselves here, and users may add their own.
var Default = NewRegistry()

// Register adds a rule for functions annotated exactly name. It fails
// when name is empty or already registered.
func (r *Registry) Register(name string, rule Rule) error {
	if name == "" || rule == nil {
		return fmt.Errorf("fusion: Register needs a name and a rule")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, dup := r.exact[name]; dup {
		return fmt.Errorf("fusion: %q is already handled by rule %s", name, old.Name())
	}
	r.exact[name] = rule
	return nil
}

// RegisterPrefix adds a rule for every annotation starting with prefix
// ("lstm_"). The longest matching prefix wins; an exact registration
// beats any prefix.
func (r *Registry) RegisterPrefix(prefix string, rule Rule) error {
	if prefix == "" || rule == nil {
		return fmt.Errorf("fusion: RegisterPrefix needs a prefix and a rule")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, dup := r.prefixes[prefix]; dup {
		return fmt.Errorf("fusion: prefix %q is already handled by rule %s", prefix, old.Name())
	}
	r.prefixes[prefix] = rule
	return nil
}

// Lookup returns the rule for an annotation value.
func (r *Registry) Lookup(name string) (Rule, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if rule, ok := r.exact[name]; ok {
		return rule, true
	}
	best := ""
	for p := range r.prefixes {
		if strings.HasPrefix(name, p) && len(p) > len(best) {
			best = p
		}
	}
	if best == "" {
		return nil, false
	}
	return r.prefixes[best], true
}

// Clone returns an independent copy (to add rules for one conversion
// without touching Default).
func (r *Registry) Clone() *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := NewRegistry()
	for k, v := range r.exact {
		c.exact[k] = v
	}
	for k, v := range r.prefixes {
		c.prefixes[k] = v
	}
	c.loops = append([]Rule(nil), r.loops...)
	return c
}

// Keys lists the registrations, exact names as-is and prefixes with a
// trailing "*", sorted.
func (r *Registry) Keys() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for k := range r.exact {
		out = append(out, k)
	}
	for k := range r.prefixes {
		out = append(out, k+"*")
	}
	sort.Strings(out)
	return out
}
