package fused

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// lstmConfig is what an LSTM kernel derives at Prepare: sizes, which
// optional parts are present, and the options that matter to Eval.
type lstmConfig struct {
	nBatch, maxTime        int
	nInput, nCell, nOutput int
	timeMajor              bool
	cifg, peephole         bool
	projection, layerNorm  bool
	// recurrentDiag marks recurrent weights given as [n_cell] diagonals
	// (float path only).
	recurrentDiag [numGates]bool
	// activation is the float path's cell-gate and cell-output activation;
	// the integer path always uses tanh.
	activation         ops.Activation
	cellClip, projClip float32
}

// lstmFloatWeights are float32 views of one LSTM direction's constant
// inputs, nil where an input is omitted.
type lstmFloatWeights struct {
	inputToGate     [numGates][]float32 // [n_cell, n_input]
	recurrentToGate [numGates][]float32 // [n_cell, n_output] or diagonal [n_cell]
	cellToGate      [numGates][]float32 // [n_cell] peephole
	gateBias        [numGates][]float32 // [n_cell]
	layerNorm       [numGates][]float32 // [n_cell]
	projWeights     []float32           // [n_output, n_cell]
	projBias        []float32           // [n_output]
}

// lstmStepFloat advances nBatch sequences by one time step, as TFLite's
// LstmStepFloat (lstm_eval.cc): x holds nBatch input vectors of n_input,
// outputState (nBatch×n_output) and cellState (nBatch×n_cell) are read and
// updated in place, and row b of the new output state is also written to
// out[b*outStride:]. gates are four scratch buffers of at least
// nBatch×n_cell floats; the input-gate buffer is unused with CIFG.
func lstmStepFloat(cfg *lstmConfig, w *lstmFloatWeights, x []float32, nBatch int,
	outputState, cellState []float32, gates *[numGates][]float32, out []float32, outStride int) {
	// TFLite skips the input products when the input is all zeros; the
	// result is the same and padded sequences get cheaper.
	inputZero := isZeroFloat(x[:nBatch*cfg.nInput])
	if !cfg.cifg {
		lstmGateFloat(cfg, w, gateInput, x, inputZero, outputState, cellState, nBatch, gates[gateInput])
	}
	lstmGateFloat(cfg, w, gateForget, x, inputZero, outputState, cellState, nBatch, gates[gateForget])
	lstmGateFloat(cfg, w, gateCell, x, inputZero, outputState, cellState, nBatch, gates[gateCell])
	lstmUpdateCellFloat(cfg, nBatch, cellState, gates)
	// The output gate's peephole sees the updated cell state.
	lstmGateFloat(cfg, w, gateOutput, x, inputZero, outputState, cellState, nBatch, gates[gateOutput])
	lstmOutputFloat(cfg, w, nBatch, cellState, gates, outputState)
	for b := 0; b < nBatch; b++ {
		copy(out[b*outStride:b*outStride+cfg.nOutput], outputState[b*cfg.nOutput:])
	}
}

// lstmGateFloat computes one gate for nBatch sequences (TFLite's
// CalculateLstmGateFloat):
//
//	gate = act(W_x·x + W_h·h + w_c⊙c + bias)               without layer norm
//	gate = act(ln⊙normalize(W_x·x + W_h·h + w_c⊙c) + bias) with layer norm
//
// act is the sigmoid, except for the cell gate, which uses the option's
// activation.
func lstmGateFloat(cfg *lstmConfig, w *lstmFloatWeights, g int, x []float32, inputZero bool,
	outputState, cellState []float32, nBatch int, gate []float32) {
	nCell := cfg.nCell
	gate = gate[:nBatch*nCell]
	bias := w.gateBias[g][:nCell]
	ln := w.layerNorm[g]
	if ln != nil {
		clear(gate)
	} else {
		for b := 0; b < nBatch; b++ {
			copy(gate[b*nCell:], bias)
		}
	}
	if !inputZero {
		arch.MatBatchVecMulAcc(gate, w.inputToGate[g], nCell, cfg.nInput, x, nBatch)
	}
	if cfg.recurrentDiag[g] {
		// Diagonal recurrent weights (n_output == n_cell, checked at Prepare).
		wr := w.recurrentToGate[g][:nCell]
		for b := 0; b < nBatch; b++ {
			row := gate[b*nCell : b*nCell+nCell]
			h := outputState[b*nCell : b*nCell+nCell]
			for i, wi := range wr {
				row[i] += float32(wi * h[i])
			}
		}
	} else {
		arch.MatBatchVecMulAcc(gate, w.recurrentToGate[g], nCell, cfg.nOutput, outputState, nBatch)
	}
	if peep := w.cellToGate[g]; peep != nil {
		peep = peep[:nCell]
		for b := 0; b < nBatch; b++ {
			row := gate[b*nCell : b*nCell+nCell]
			c := cellState[b*nCell : b*nCell+nCell]
			for i, wi := range peep {
				row[i] += float32(wi * c[i])
			}
		}
	}
	if ln != nil {
		ln = ln[:nCell]
		meanStddevNormalization(gate, nCell, nBatch)
		for b := 0; b < nBatch; b++ {
			row := gate[b*nCell : b*nCell+nCell]
			for i, li := range ln {
				row[i] = float32(li*row[i]) + bias[i]
			}
		}
	}
	if g == gateCell {
		applyActivationFloat(gate, cfg.activation)
	} else {
		applySigmoidFloat(gate)
	}
}

// lstmUpdateCellFloat sets c = clip(f⊙c + i⊙g), with i = 1-f for CIFG
// (TFLite's UpdateLstmCellFloat).
func lstmUpdateCellFloat(cfg *lstmConfig, nBatch int, cellState []float32, gates *[numGates][]float32) {
	n := nBatch * cfg.nCell
	c := cellState[:n]
	f := gates[gateForget][:n]
	g := gates[gateCell][:n]
	for k := range c {
		c[k] = f[k] * c[k]
	}
	if cfg.cifg {
		for k := range c {
			c[k] += float32(g[k] * (1 - f[k]))
		}
	} else {
		in := gates[gateInput][:n]
		for k := range c {
			c[k] += float32(g[k] * in[k])
		}
	}
	if cfg.cellClip > 0 {
		cwiseClipFloat(c, cfg.cellClip)
	}
}

// lstmOutputFloat sets the output state to o⊙act(c), projected and clipped
// when the LSTM has a projection (TFLite's CalculateLstmOutputFloat). The
// cell-gate buffer holds the unprojected output, as in TFLite.
func lstmOutputFloat(cfg *lstmConfig, w *lstmFloatWeights, nBatch int, cellState []float32,
	gates *[numGates][]float32, outputState []float32) {
	n := nBatch * cfg.nCell
	hidden := gates[gateCell][:n]
	o := gates[gateOutput][:n]
	copy(hidden, cellState[:n])
	applyActivationFloat(hidden, cfg.activation)
	for k := range hidden {
		hidden[k] *= o[k]
	}
	nOut := cfg.nOutput
	h := outputState[:nBatch*nOut]
	if !cfg.projection {
		copy(h, hidden) // n_output == n_cell without projection
		return
	}
	for b := 0; b < nBatch; b++ {
		if w.projBias != nil {
			copy(h[b*nOut:b*nOut+nOut], w.projBias)
		} else {
			clear(h[b*nOut : b*nOut+nOut])
		}
	}
	arch.MatBatchVecMulAcc(h, w.projWeights, nOut, cfg.nCell, hidden, nBatch)
	if cfg.projClip > 0 {
		cwiseClipFloat(h, cfg.projClip)
	}
}
