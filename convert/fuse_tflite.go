package convert

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/quantize"
	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// tfliteRules are the built-in rules with no LSTM cell_clip: an unfused
// loop clips nothing, so the fused operator must not either (the
// SavedModel path writes TensorFlow Lite's converter's clip of 10).
var tfliteRules = sync.OnceValue(func() *fusion.Registry {
	r := fusion.NewRegistry()
	if err := fusion.RegisterBuiltins(r, fusion.BuiltinOptions{}); err != nil {
		panic(err) // the built-in rules register in a fresh registry
	}
	return r
})

// fuseTFLiteLoops offers the WHILE loops of m's subgraphs to the fusion
// loop rules (Options.Registry, or the built-in rules without a
// cell_clip), as raise_tflite.go
// describes: each loop's condition and body are raised to private
// TensorFlow-op functions, the loop and the one-for-one operators around
// it are raised in place, a float loop input computed from constants
// (the zero initial state) becomes a constant, and the rules run as on a
// SavedModel's loop. What a rule fused replaces the loop, whose
// subgraphs are then no longer written; everything raised and not
// consumed is put back as it was, so a loop no rule fused stays exactly
// the WHILE it was. Every loop met is in the report, with the rule's
// reason when it was not fused. It reports whether a loop was fused.
//
// A fused loop whose body had int8 FULLY_CONNECTED weights (a
// dynamic-range model) is fused over the dequantised weights, and the
// subgraph is quantised again in dynamic-range mode (unless
// Options.Quantize asks for a mode of its own) with the loop's own
// per-tensor scales (quantize.Options.Scales), so that the fused
// operator runs hybrid too, over the same int8 values, whatever the size
// of its per-gate weights.
func fuseTFLiteLoops(m *tflite.Model, opts Options, report *fusion.Report) (bool, error) {
	reg := opts.Registry
	if reg == nil {
		reg = tfliteRules()
	}
	if len(reg.LoopRules()) == 0 {
		return false, nil
	}
	any := false
	mv := readVars(m)
	for _, f := range m.Subgraphs {
		first := len(report.Composites)
		fused, hybrid, err := fuseLoopsOf(f, mv, reg, report)
		if err != nil {
			return false, err
		}
		if fused && hybrid.hybrid && opts.Quantize.Mode == quantize.None {
			// The fused operator's weights are the loop's int8 ones split
			// per gate: quantised with the loop's scales they are the same
			// integers, whatever their size.
			qo := quantize.Options{Mode: quantize.Dynamic, Scales: hybrid.scales, Legacy: !hybrid.asymmetric}
			if _, err := quantize.Apply(f, qo); err != nil {
				return false, fmt.Errorf("%s: quantising the fused hybrid loop: %w", f.Where(), err)
			}
			note := "; hybrid loop: the fused operator's weights are the loop's int8 weights with their scales"
			if small := floatSequenceOps(f); small > 0 && small < quantize.DefaultMinElements {
				note = hybridFloatNote(small)
			}
			for i := first; i < len(report.Composites); i++ {
				if e := &report.Composites[i]; e.Fused {
					e.Reason += note
				}
			}
		}
		any = any || fused
	}
	return any, nil
}

// fuseLoopsOf fuses the loops of one subgraph, reading the model's
// variables assigned once at init (mv) as their constants; hybrid says
// whether a fused loop's weights were int8.
func fuseLoopsOf(f *ir.Function, mv *modelVars, reg *fusion.Registry, report *fusion.Report) (fused bool, hybrid hybridLoop, err error) {
	var whiles []*ir.Node
	for _, n := range f.Nodes {
		if n.TFL != nil && n.TFL.Builtin == schema.BuiltinOperatorWHILE && len(n.TFL.Subgraphs) == 2 {
			whiles = append(whiles, n)
		}
	}
	if len(whiles) == 0 {
		return false, hybridLoop{}, nil
	}
	mod := ir.NewModule(nil, nil)
	bodies := map[*ir.Node][2]string{}
	hybridOf := map[*ir.Node]hybridLoop{}
	// kept lists the operators of each loop's functions left TFLite
	// nodes, which the rules cannot evaluate (for the report).
	kept := map[*ir.Node][]string{}
	// vars says why the loop's variable reads were not folded.
	vars := map[*ir.Node][]string{}
	first := len(report.Composites)
	for k, w := range whiles {
		var names [2]string
		for j, g := range w.TFL.Subgraphs {
			name := fmt.Sprintf("%s_%d", g.Name, k)
			raised, hy, err := raiseBody(g, name, w.Inputs, func(c *ir.Function) { mv.foldReads(c, f, w, w.Inputs) })
			if err != nil {
				return false, hybridLoop{}, err
			}
			if why := mv.why(raised, w.Inputs); why != "" {
				vars[w] = append(vars[w], why)
			}
			if err := mod.AddFunction(raised); err != nil {
				return false, hybridLoop{}, err
			}
			names[j] = raised.Name
			h := hybridOf[w]
			h.hybrid = h.hybrid || hy.hybrid
			h.asymmetric = h.asymmetric || hy.asymmetric
			h.scales = append(h.scales, hy.scales...)
			hybridOf[w] = h
			for _, n := range raised.Nodes {
				if n.TFL != nil && !slices.Contains(kept[w], n.OpName()) {
					kept[w] = append(kept[w], n.OpName())
				}
			}
		}
		bodies[w] = names
	}
	raised := raiseEntry(f, bodies)
	// The initial states: constants for the rules (a FILL of zeros over
	// a static shape in the file).
	inputs := map[*ir.Node][]*ir.Value{}
	for _, w := range whiles {
		inputs[w] = append([]*ir.Value(nil), w.Inputs...)
		for i, in := range w.Inputs {
			if in == nil || in.Const != nil || in.Producer == nil || !in.DType.IsFloat() || !in.Shape.Static() {
				continue
			}
			got, err := probe(f, nil, nil, []*ir.Value{in})
			if err == nil && got[0] != nil {
				w.Inputs[i] = f.NewConst(in.Name+"/folded", got[0])
			}
		}
	}
	defer func() {
		live := map[*ir.Node]bool{}
		for _, n := range f.Nodes {
			live[n] = true
		}
		for _, w := range whiles {
			if live[w] {
				w.Inputs = inputs[w] // not fused: as it was
			}
		}
		restore(f, raised)
		f.RemoveUnused()
	}()
	seen := map[*ir.Node]bool{}
	for {
		ok, err := fusion.OfferLoops(f, mod, reg, report, seen)
		if err != nil {
			return false, hybridLoop{}, err
		}
		if !ok {
			break
		}
		fused = true
		f.RemoveUnused()
		live := map[*ir.Node]bool{}
		for _, n := range f.Nodes {
			live[n] = true
		}
		for _, w := range whiles {
			if h := hybridOf[w]; !live[w] && h.hybrid {
				hybrid.hybrid = true
				hybrid.asymmetric = hybrid.asymmetric || h.asymmetric
				hybrid.scales = append(hybrid.scales, h.scales...)
			}
		}
	}
	for i := first; i < len(report.Composites); i++ {
		e := &report.Composites[i]
		for _, w := range whiles {
			if e.Call == w.Name && !e.Fused && len(kept[w]) > 0 {
				e.Reason += fmt.Sprintf(" (the loop keeps operators tflrun does not evaluate at conversion time: %s)", strings.Join(kept[w], ", "))
			}
			if e.Call == w.Name && !e.Fused && len(vars[w]) > 0 {
				e.Reason += fmt.Sprintf(" (%s)", strings.Join(slices.Compact(vars[w]), "; "))
			}
		}
	}
	return fused, hybrid, nil
}

// hybridFloatNote explains, in the report, why a fused hybrid loop left
// float (its smallest weight having small elements) agrees with its loop
// only to the activations' quantisation step.
func hybridFloatNote(small int) string {
	return fmt.Sprintf("; hybrid loop fused as float: the fused operator's smallest weight (%d elements; LSTM and GRU weights are split per gate) "+
		"is below dynamic-range quantisation's %d-element minimum for every weight of the operator, so it runs float over the loop's dequantised int8 weights (the same values); "+
		"the unfused loop also quantised each step's input and state to int8 (per batch row, in each hybrid FULLY_CONNECTED call), "+
		"which the float operator does not, so outputs differ by that quantisation, not by float rounding", small, quantize.DefaultMinElements)
}

// floatSequenceOps returns the smallest weight's element count of the
// fused recurrent operators of f (LSTM, GRU or RNN family) whose weights
// all stayed float; 0 when there is none.
func floatSequenceOps(f *ir.Function) int {
	small := 0
	for _, n := range f.Nodes {
		t := n.TFL
		if t == nil {
			continue
		}
		switch {
		case t.Builtin == schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, t.Builtin == schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM,
			t.Builtin == schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN, t.Builtin == schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_RNN,
			t.Builtin == schema.BuiltinOperatorLSTM, t.Builtin == schema.BuiltinOperatorRNN,
			t.Builtin == schema.BuiltinOperatorCUSTOM && strings.Contains(t.Custom, "GRU"):
		default:
			continue
		}
		quantised, least := false, 0
		for _, in := range n.Inputs {
			if in == nil || in.Const == nil {
				continue
			}
			if in.DType == ir.Int8 {
				quantised = true
			}
			if in.DType == ir.Float32 && len(in.Const.Shape) == 2 {
				if k := in.Const.NumElements(); least == 0 || k < least {
					least = k
				}
			}
		}
		if !quantised && least > 0 && (small == 0 || least < small) {
			small = least
		}
	}
	return small
}
