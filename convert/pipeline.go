package convert

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/internal/quantize"
	"github.com/tflrun/tflrun/convert/internal/stateful"
	"github.com/tflrun/tflrun/convert/ir"
)

// Pass is one stage of the conversion pipeline (the list is in
// tf_tfl_passes.go; Passes returns it). A pass rewrites the entry
// function in place.
type Pass struct {
	// Name identifies the pass (--print-ir-after, Options.PrintIRAfter).
	Name string
	// Doc says in one line what the pass does.
	Doc string
	// Loop, when set, makes the pass a fixed-point loop over other passes
	// instead of a rewrite of its own.
	Loop *Loop

	// run applies the pass; applied is false when it had nothing to do
	// (for a step of a Loop: when it did not apply, so the loop goes on
	// to the next step).
	run func(s *state) (applied bool, err error)
}

// Loop is a fixed-point loop of passes: each round runs every pass of
// Each, then the first pass of Steps that applies; the loop ends after a
// round in which no step applied.
type Loop struct {
	Each, Steps []Pass
}

// state is what the passes of one conversion share.
type state struct {
	f      *ir.Function
	m      *ir.Module
	opts   Options
	reg    *fusion.Registry
	budget *ir.Budget
	report *fusion.Report
	// offeredLoops are the While nodes already offered to the fusion loop
	// rules (each is offered once).
	offeredLoops map[*ir.Node]bool
	// rolledFrom are the Unpack nodes fusion.RollStaticRNNs has tried to
	// roll a static RNN chain from (each is tried once), rolls the
	// number of chains rolled (at most maxRolls).
	rolledFrom map[*ir.Node]bool
	rolls      int
	// states and quant are what lower-state and quantize found.
	states []stateful.State
	quant  *quantize.Summary
	// printer writes the IR after the passes Options.PrintIRAfter names
	// (nil: none).
	printer *irPrinter
	// inc keeps f simplified incrementally between the inline loop's
	// simplify and inline-call steps (nil: not running; see simplify).
	inc *passes.Incremental
}

// simplify is the inline loop's simplify pass. After a full
// simplification it keeps f simplified incrementally (passes.Incremental)
// for as long as the rounds only inline calls, so that each round costs
// what the inlined call changed rather than the whole function; the
// result is the same. Not while the IR is printed (which needs f.Nodes in
// order after every step) or a deep cut is pending (which looks for its
// tensors after every inlining).
func simplify(s *state) (bool, error) {
	if s.inc != nil {
		return true, s.inc.Simplify()
	}
	if err := passes.Simplify(s.f); err != nil {
		return false, err
	}
	if !s.opts.noIncremental && s.printer == nil && (s.opts.cut == nil || s.opts.cut.done) {
		s.inc = passes.NewIncremental(s.f)
	}
	return true, nil
}

// release ends incremental simplification, putting f.Nodes in order for
// the steps that read it.
func (s *state) release() {
	if s.inc != nil {
		s.inc.Release()
		s.inc = nil
	}
}

// newState prepares a conversion of f, checking Options.PrintIRAfter.
func newState(f *ir.Function, m *ir.Module, opts Options, report *fusion.Report) (*state, error) {
	if f.Budget == nil {
		f.Budget = opts.newBudget()
	}
	s := &state{f: f, m: m, opts: opts, reg: opts.Registry, budget: f.Budget, report: report,
		offeredLoops: map[*ir.Node]bool{}, rolledFrom: map[*ir.Node]bool{}}
	if s.reg == nil {
		s.reg = fusion.Default
	}
	if len(opts.PrintIRAfter) > 0 {
		if err := CheckPassNames(opts.PrintIRAfter); err != nil {
			return nil, fmt.Errorf("Options.PrintIRAfter: %w", err)
		}
		p := &irPrinter{w: opts.PrintIRTo, names: map[string]bool{}}
		if p.w == nil {
			p.w = os.Stderr
		}
		for _, name := range opts.PrintIRAfter {
			p.names[name] = true
		}
		s.printer = p
	}
	return s, nil
}

// run runs passes in order.
func (s *state) run(passes []Pass) error {
	for _, p := range passes {
		if _, err := s.runPass(p, ""); err != nil {
			return err
		}
	}
	return nil
}

// runPass runs one pass (where says which loop round it belongs to, for
// the printed IR) and prints the IR after it when asked to.
func (s *state) runPass(p Pass, where string) (bool, error) {
	if p.Loop != nil {
		err := s.runLoop(p)
		s.release()
		if err != nil {
			return false, err
		}
		return true, s.printer.after(p.Name, where, true, s.f)
	}
	applied, err := p.run(s)
	if err == nil {
		// A constant made where no error could be returned
		// (ir.Function.NewConst) may have passed MaxConstantBytes.
		err = s.budget.Err()
	}
	if err != nil {
		return false, err
	}
	if where != "" && !applied {
		return false, nil // a loop step that did not apply changed nothing
	}
	return applied, s.printer.after(p.Name, where, applied, s.f)
}

// runLoop runs a Loop pass to its fixed point.
func (s *state) runLoop(p Pass) error {
	for round := 1; ; round++ {
		where := fmt.Sprintf("%s round %d", p.Name, round)
		for _, e := range p.Loop.Each {
			if _, err := s.runPass(e, where); err != nil {
				return err
			}
		}
		progressed := false
		for _, step := range p.Loop.Steps {
			applied, err := s.runPass(step, where)
			if err != nil {
				return err
			}
			if applied {
				progressed = true
				break
			}
		}
		if !progressed {
			return nil
		}
	}
}

// irPrinter writes the IR after the named passes (all of them when
// names holds "all").
type irPrinter struct {
	w     io.Writer
	names map[string]bool
}

// after prints f after pass name ran (where: its loop round; applied:
// whether it changed anything — a pass that did nothing gets its header
// only).
func (p *irPrinter) after(name, where string, applied bool, f *ir.Function) error {
	if p == nil || !(p.names["all"] || p.names[name]) {
		return nil
	}
	header := name
	if where != "" {
		header += " (" + where + ")"
	}
	if !applied {
		_, err := fmt.Fprintf(p.w, "// -----// IR after %s: nothing to do, unchanged //----- //\n", header)
		return err
	}
	if _, err := fmt.Fprintf(p.w, "// -----// IR after %s //----- //\n", header); err != nil {
		return err
	}
	return f.Print(p.w)
}

// Passes returns the conversion pipeline in order (a copy: changing it
// changes nothing). A Loop pass lists the passes it repeats.
func Passes() []Pass {
	return clonePasses(pipeline())
}

func clonePasses(ps []Pass) []Pass {
	out := append([]Pass(nil), ps...)
	for i, p := range out {
		if p.Loop != nil {
			out[i].Loop = &Loop{Each: clonePasses(p.Loop.Each), Steps: clonePasses(p.Loop.Steps)}
		}
	}
	return out
}

// PassNames lists the name of every pass, loop steps included, in
// pipeline order.
func PassNames() []string {
	var names []string
	var walk func([]Pass)
	walk = func(ps []Pass) {
		for _, p := range ps {
			names = append(names, p.Name)
			if p.Loop != nil {
				walk(p.Loop.Each)
				walk(p.Loop.Steps)
			}
		}
	}
	walk(pipeline())
	return names
}

// CheckPassNames checks names for Options.PrintIRAfter: each must be a
// pass of the pipeline (PassNames), of a .tflite conversion (import-tflite,
// fuse-tflite-loops, legalize, quantize), or "all". The error names the first
// unknown name and lists the passes.
func CheckPassNames(names []string) error {
	known := PassNames()
	for _, p := range tflitePasses {
		if !slices.Contains(known, p.Name) {
			known = append(known, p.Name)
		}
	}
	for _, name := range names {
		if name == "all" {
			continue
		}
		found := false
		for _, k := range known {
			if k == name {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("unknown pass %q (the passes are %s; or all)", name, strings.Join(known, ", "))
		}
	}
	return nil
}
