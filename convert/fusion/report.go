package fusion

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Report lists every annotated (composite) function call the converter
// met, in the order met.
type Report struct {
	Composites []Entry `json:"composites"`
	// Error is set when the conversion failed after these composites were
	// examined: the entries say what the rules decided, but no model was
	// written.
	Error string `json:"error,omitempty"`
	// Notes are remarks on the whole conversion (a dynamic batch that
	// could not be kept, and why).
	Notes []string `json:"notes,omitempty"`
}

// Entry is one composite call and what became of it.
type Entry struct {
	// Function is the called function's name, Call the call node's name
	// in the entry function (its path through the inlined callers).
	Function string `json:"function"`
	Call     string `json:"call"`
	// Attr is the annotation attribute and Implements its value.
	Attr       string `json:"attr"`
	Implements string `json:"implements"`
	// Rule is the rule that examined the call ("" when none matched).
	Rule string `json:"rule,omitempty"`
	// Fused tells whether the call became fused TFLite operators; when not,
	// it was inlined and lowered op by op.
	Fused bool `json:"fused"`
	// Reason says why it was not fused (or notes on the fusion).
	Reason string `json:"reason,omitempty"`
	// Ops are the TFLite operators emitted by the rule.
	Ops []string `json:"ops,omitempty"`
	// FusedAfterUnrolling, for a loop no rule fused, are the calls of the
	// loops its unrolled steps were rolled back into (RollStaticRNNs, one
	// per cell of a stack such as TF1's MultiRNNCell) that a rule fused.
	FusedAfterUnrolling []string `json:"fused_after_unrolling,omitempty"`
}

// noteRolledLoops records, on each loop entry not fused, the fused loops
// whose calls lie in its unrolled iterations (CALL/iteration_N/...).
func (r *Report) noteRolledLoops() {
	for i := range r.Composites {
		e := &r.Composites[i]
		if e.Fused || e.Attr != "loop" {
			continue
		}
		for _, g := range r.Composites {
			if !g.Fused || g.Attr != "loop" || !strings.HasPrefix(g.Call, e.Call+"/iteration_") || slices.Contains(e.FusedAfterUnrolling, g.Call) {
				continue
			}
			if len(e.FusedAfterUnrolling) == 0 {
				e.Reason += "; unrolled, then its steps were rolled back into one loop per cell and fused (see the entries below)"
			}
			e.FusedAfterUnrolling = append(e.FusedAfterUnrolling, g.Call)
		}
	}
}

// Add appends an entry.
func (r *Report) Add(e Entry) { r.Composites = append(r.Composites, e) }

// Fused counts the fused entries.
func (r *Report) Fused() int {
	k := 0
	for _, e := range r.Composites {
		if e.Fused {
			k++
		}
	}
	return k
}

// Text renders the report for people: one block per composite call. A
// call a rule examined heads its block with "rule NAME: fused" or
// "rule NAME: not fused" and gives the rule's reason on its own line; a
// call no rule examined (none registered, or fusion turned off) says why
// in the heading: "not fused: REASON".
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fusion report: %d composite call(s), %d fused\n", len(r.Composites), r.Fused())
	if r.Error != "" {
		fmt.Fprintf(&b, "conversion failed, no model written: %s\n", r.Error)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, e := range r.Composites {
		reason := e.Reason
		if e.Rule == "" && !e.Fused {
			if reason == "" {
				reason = "no rule examined it"
			}
			fmt.Fprintf(&b, "- %s: %s=%q: not fused: %s\n", e.Call, e.Attr, e.Implements, reason)
			reason = ""
		} else {
			state := "not fused"
			if e.Fused {
				state = "fused"
			}
			rule := e.Rule
			if rule == "" {
				rule = "(none named)"
			}
			fmt.Fprintf(&b, "- %s: %s=%q rule %s: %s\n", e.Call, e.Attr, e.Implements, rule, state)
		}
		fmt.Fprintf(&b, "    function %s\n", e.Function)
		if len(e.Ops) > 0 {
			fmt.Fprintf(&b, "    ops: %s\n", strings.Join(e.Ops, ", "))
		}
		if reason != "" {
			fmt.Fprintf(&b, "    reason: %s\n", reason)
		}
	}
	return b.String()
}

// JSON renders the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	if r.Composites == nil {
		r.Composites = []Entry{}
	}
	return json.MarshalIndent(r, "", "  ")
}
