package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// UnidirectionalSequenceLSTM is the kernel of TFLite's
// UNIDIRECTIONAL_SEQUENCE_LSTM (unidirectional_sequence_lstm.cc and
// lstm_eval.cc), versions 1 to 4.
//
// Inputs (TFLite's lstm::full numbering, 20 or 24 of them): 0 the input
// [max_time, n_batch, n_input] when time_major, else [n_batch, max_time,
// n_input]; 1–4 input-to-gate weights [n_cell, n_input] for the input,
// forget, cell and output gates (1 omitted for CIFG); 5–8 recurrent weights
// [n_cell, n_output] (5 omitted for CIFG; the float and hybrid paths also
// take diagonal [n_cell] weights, version 4); 9–11 optional peephole
// weights [n_cell]; 12–15 gate biases [n_cell] (12 omitted for CIFG); 16
// optional projection weights [n_output, n_cell] and 17 bias [n_output];
// 18 the output state and 19 the cell state, variable tensors of
// n_batch·n_output and n_batch·n_cell elements, read and updated by every
// Eval; 20–23 optional layer-norm coefficients [n_cell] (present for all
// used gates or none; 20 omitted for CIFG). Output 0 has the input's shape
// with the last dimension n_output. Options come as
// *UnidirectionalSequenceLSTMOptions (nil means all defaults).
//
// Paths, chosen by the input and weight types as TFLite does:
//   - float32: everything float32 (TFLite's EvalFloat), CIFG, peephole,
//     projection with or without bias, layer norm, cell and projection
//     clipping, diagonal recurrent weights; the cell-gate and cell-output
//     activation is the option's (RELU, RELU_N1_TO_1, RELU6, TANH,
//     SIGN_BIT; NONE is refused because TFLite leaves its gate buffer
//     unwritten then).
//   - hybrid (TFLite's EvalHybrid): float32 input, state, output, biases
//     and layer-norm coefficients; int8 weights quantised symmetrically per
//     tensor (peephole and projection weights too; diagonal recurrent
//     weights stay float32, as TFLite reads them). Every step quantises the
//     input and the previous output state to int8 per batch row,
//     symmetrically or, with asymmetric_quantize_inputs, with a zero point
//     corrected by the weights' row sums.
//   - int8x8_16 full integer (TFLite's EvalInteger8x8_16): int8 input,
//     weights, output state and output; int16 cell state (any power-of-two
//     scale from 2^-30 to 2^1, see below), peephole and layer-norm
//     weights; int32 biases; exactly 5
//     intermediate tensors (gate pre-activation scales for layer norm, and
//     the hidden state). The activation option is ignored (always tanh),
//     and without projection the output uses intermediate 4's scale and
//     zero point, as in TFLite.
//
// The gate weights are packed at Prepare into one panel per operand (see
// lstm_cell.go); every weight and bias must be a constant tensor.
//
// Beyond TFLite, Prepare refuses with an error naming the input: rank other
// than 3, int16 activations (the 16x8 variant that would be version 5,
// which TFLite does not register), uint8 weights with float input,
// per-channel or asymmetric hybrid weights (TFLite reads a per-tensor scale
// of 0 and ignores the zero point), activation NONE in the float and
// hybrid paths, n_output ≠ n_cell without projection, diagonal recurrent
// weights with n_output ≠ n_cell or in the integer path, the integer
// peephole with n_output > n_cell, layer-norm coefficients given for only
// some gates, a cell-state scale that is not a power of two or lies
// outside 2^-30..2^1 (TFLite's cell update would shift by a negative or
// more than 31 bits, undefined in its C++), and non-constant weights or
// biases. A cell-state scale outside 2^-15..2^-9 gives the cell state
// 15+log2(scale) integer bits, beyond the 0..6 TFLite's ApplyTanh
// handles; TFLite then writes nothing into the buffer the hidden product
// reads, which holds that step's input gate, and computes o⊙i instead of
// o⊙tanh(c): tflrun does the same, and refuses the CIFG case, where that
// buffer is never written (TFLite's result is undefined). A projection larger
// than the cell (n_output > n_cell), where TFLite writes past its scratch,
// is computed correctly. Diagonal recurrent weights are recognised by their
// rank, as in TFLite; the DiagonalRecurrentTensors option is not
// consulted.
//
// State: Prepare gives the state tensors n_batch rows for the input's
// batch (see prepareStateTensor), so AllocateTensors after resizing the
// input re-sizes (and resets) the state.
type UnidirectionalSequenceLSTM struct {
	full lstmFullKernel
}

// NewUnidirectionalSequenceLSTM returns a kernel for one
// UNIDIRECTIONAL_SEQUENCE_LSTM node.
func NewUnidirectionalSequenceLSTM() ops.Kernel { return &UnidirectionalSequenceLSTM{} }

// UnidirectionalSequenceLSTMOptions is TFLite's
// UnidirectionalSequenceLSTMOptions.
type UnidirectionalSequenceLSTMOptions struct {
	Activation ops.Activation
	CellClip   float32
	ProjClip   float32
	// TimeMajor: input is [time, batch, input] when true, [batch, time,
	// input] when false.
	TimeMajor                bool
	AsymmetricQuantizeInputs bool
	// DiagonalRecurrentTensors: recurrent weights are diagonal vectors
	// [n_cell] instead of matrices (version 4).
	DiagonalRecurrentTensors bool
}

func init() {
	// TFLite registers 1-5. Version 4 adds diagonal recurrent weights, which
	// the float and hybrid paths implement and the integer path refuses at
	// Prepare; version 5, int16 activations, is not registered.
	register(ops.OpUnidirectionalSequenceLSTM, NewUnidirectionalSequenceLSTM, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions, decodeUnidirectionalSequenceLSTMOptions)
}

// decodeUnidirectionalSequenceLSTMOptions decodes TFLite's UnidirectionalSequenceLSTMOptions table.
func decodeUnidirectionalSequenceLSTMOptions(t ops.OptionsTable) (any, error) {
	var o schema.UnidirectionalSequenceLSTMOptions
	initTable(&o, t)
	return &UnidirectionalSequenceLSTMOptions{
		Activation:               ops.Activation(o.FusedActivationFunction()),
		CellClip:                 o.CellClip(),
		ProjClip:                 o.ProjClip(),
		TimeMajor:                o.TimeMajor(),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		DiagonalRecurrentTensors: o.DiagonalRecurrentTensors(),
	}, nil
}

// Prepare validates the node, sizes the state and output and packs the
// weights (see the type's documentation for what it refuses).
func (k *UnidirectionalSequenceLSTM) Prepare(n *ops.Node) error {
	opts := &UnidirectionalSequenceLSTMOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*UnidirectionalSequenceLSTMOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *UnidirectionalSequenceLSTMOptions", n.Options)
		}
		opts = o
	}
	return k.full.prepare(n, lstmFullOptions{
		activation: opts.Activation, cellClip: opts.CellClip, projClip: opts.ProjClip,
		timeMajor: opts.TimeMajor, asymmetric: opts.AsymmetricQuantizeInputs, sequence: true,
	})
}

// Eval runs the whole sequence, carrying the state tensors over from the
// previous Eval (or their initial values). It allocates nothing.
func (k *UnidirectionalSequenceLSTM) Eval(n *ops.Node) error { return k.full.eval(n) }

// errScratch reports scratch buffers missing or smaller than requested.
var errScratch = fmt.Errorf("scratch buffers are missing or smaller than requested at Prepare")

// scratchOf returns scratch buffer id, or nil when the interpreter did not
// provide it.
func scratchOf(n *ops.Node, id int) []byte {
	if id < 0 || id >= len(n.Scratch) {
		return nil
	}
	return n.Scratch[id]
}
