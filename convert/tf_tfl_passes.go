package convert

import (
	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/controlflow"
	"github.com/tflrun/tflrun/convert/internal/legalize"
	"github.com/tflrun/tflrun/convert/internal/optimize"
	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/internal/quantize"
	"github.com/tflrun/tflrun/convert/internal/stateful"
)

// The conversion pipeline, in order: the counterpart of TensorFlow Lite's
// tflite/converter/tf_tfl_passes.cc (AddTFToTFLConversionPasses). Every
// pass works on the entry function the model's signature or input and
// output arrays define (package tfmodel built it, its variables resolved
// to their checkpoint values and a dynamic batch pinned). tflrun convert
// --print-passes lists this pipeline, --print-ir-after=PASS|all prints the
// IR after a pass (Options.PrintIRAfter).
//
// The pipeline has two halves, as TensorFlow's has its TF-level passes
// before and its TFL-level passes after legalisation:
//
//   - tfPasses bring the entry function to one graph of TensorFlow ops:
//     every call inlined (or fused), every loop and list lowered, shapes
//     inferred and constants folded. InlineCalls runs them.
//   - tflPasses turn that graph into TFLite operators ready to write.
func pipeline() []Pass {
	return append(append([]Pass(nil), tfPasses...), tflPasses...)
}

var tfPasses = []Pass{
	// Before anything sorts or simplifies the function: a TF1 loop is a
	// cycle of Enter/Merge/Switch/NextIteration/Exit nodes until it is
	// functionalised.
	{Name: "functionalize-tf1-loops", Doc: "TF1 while-loop frames become While nodes over new functions (package controlflow)",
		run: func(s *state) (bool, error) {
			had := controlflow.HasV1Loops(s.f)
			return had, controlflow.FunctionalizeV1(s.f, s.m)
		}},
	// Also before simplification: an updated variable's reads must not
	// fold to its checkpoint value.
	{Name: "mark-state", Doc: "variables the model updates are marked as state, so their reads stay reads (package stateful)",
		run: func(s *state) (bool, error) {
			vars, err := stateful.MarkState(s.f, s.m)
			return len(vars) > 0, err
		}},
	// Calls are inlined outermost first, one at a time, because a call's
	// specialisation (and a fusion rule's decision) depends on the
	// constants and shapes its caller's simplification has found; a loop
	// body or a conditional branch may hold calls again once lowered.
	{Name: "inline", Doc: "repeated until no step applies: simplify, then the first step below that applies", Loop: &Loop{
		Each: []Pass{
			{Name: "simplify", Doc: "shape inference, constant folding, identity and dead-node removal, to a fixed point (package passes)",
				run: simplify},
		},
		Steps: []Pass{
			{Name: "inline-call", Doc: "the first call: offered to its fusion rule when the callee is annotated _implements/api_implements, else inlined",
				run: inlineCall},
			// Only once no call is left: a loop's body must be final
			// before a loop rule looks at it.
			{Name: "fuse-loops", Doc: "an unannotated recurrent While loop offered to the fusion loop rules (Keras and TF1 LSTM, GRU, SimpleRNN; a TF1 static_rnn chain rolled into a loop first); not with NoFuse",
				run: func(s *state) (bool, error) {
					if s.opts.NoFuse {
						return false, nil
					}
					s.release()
					if s.rolls < maxRolls {
						k, err := fusion.RollStaticRNNs(s.f, s.m, s.rolledFrom)
						if err != nil {
							return false, err
						}
						s.rolls += k
					}
					return fusion.OfferLoops(s.f, s.m, s.reg, s.report, s.offeredLoops)
				}},
			{Name: "lower-control-flow", Doc: "the next loop unrolled over its static trip count, conditional or TensorList/TensorArray lowered (package controlflow)",
				run: func(s *state) (bool, error) {
					s.release()
					return controlflow.Step(s.f, s.m, s.budget.Get().MaxNodes)
				}},
		},
	}},
	// inline-call cuts the graph as soon as a deep cut's tensors are all
	// inlined; this pass fails when some never were.
	{Name: "check-deep-cut", Doc: "input/output arrays naming tensors inside functions were all found",
		run: func(s *state) (bool, error) { return false, s.opts.cut.finish(s.f) }},
}

// maxRolls bounds the static RNN chains one conversion rolls into loops
// (a stack of cells is rolled one layer at a time).
const maxRolls = 64

var tflPasses = []Pass{
	{Name: "lower-state", Doc: "updated variables become state inputs and outputs or a fused operator's variable tensors, then simplify (package stateful)",
		run: func(s *state) (bool, error) {
			states, err := stateful.Lower(s.f)
			if err != nil {
				return false, err
			}
			s.states = states
			if len(states) == 0 {
				return false, nil
			}
			return true, passes.Simplify(s.f)
		}},
	// After lower-state, a variable update left is one the model would
	// lose silently.
	{Name: "check-state-writes", Doc: "no variable update is left that conversion would drop (package passes)",
		run: func(s *state) (bool, error) { return false, passes.CheckNoStateWrites(s.f) }},
	{Name: "legalize", Doc: "TensorFlow ops become TFLite operators, each by its op record (package legalize; the records are in tfops)",
		run: func(s *state) (bool, error) { return true, legalize.Func(s.f) }},
	{Name: "optimize", Doc: "per-channel MUL/ADD/SUB folded into weights and bias, RELU/RELU6/RELU_N1_TO_1 into fused activations (package optimize)",
		run: func(s *state) (bool, error) { return true, optimize.Func(s.f) }},
	{Name: "pair-bidirectional", Doc: "a forward and a go_backwards UNIDIRECTIONAL_SEQUENCE_LSTM over one input become one BIDIRECTIONAL_SEQUENCE_LSTM; not with NoFuse",
		run: func(s *state) (bool, error) {
			if s.opts.NoFuse {
				return false, nil
			}
			k, err := pairBidirectionalLSTM(s.f, s.report)
			return k > 0, err
		}},
	// Unrolled loops legalise the same weights once per time step.
	{Name: "share-constants", Doc: "identical constants merged into one (package passes)",
		run: func(s *state) (bool, error) { return passes.ShareConstants(s.f) > 0, nil }},
	// Last, so that it sees the weights as they will be written.
	{Name: "quantize", Doc: "post-training weight quantisation, dynamic range or float16, with Options.Quantize (package quantize)",
		run: func(s *state) (bool, error) {
			if s.opts.Quantize.Mode == quantize.None {
				return false, nil
			}
			qs, err := quantize.Apply(s.f, s.opts.Quantize)
			s.quant = qs
			return err == nil, err
		}},
}
