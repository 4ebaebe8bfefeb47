package fused

// This file is the full-integer LSTM step, TFLite's int8x8_16 kernel
// (LstmStepInteger8x8_16 in lstm_eval.cc): int8 input, weights, output
// state and output; int16 gates, cell state, peephole and layer-norm
// weights; int32 biases. Its parameters come from lstm_integer_params.go.

// lstmIntegerWeights are views of one LSTM direction's integer constant
// inputs, nil where an input is omitted.
type lstmIntegerWeights struct {
	inputToGate     [numGates][]int8  // [n_cell, n_input]
	recurrentToGate [numGates][]int8  // [n_cell, n_output]
	cellToGate      [numGates][]int16 // [n_cell] peephole
	gateBias        [numGates][]int32 // [n_cell]; read directly only with layer norm
	layerNorm       [numGates][]int16 // [n_cell]
	projWeights     []int8            // [n_output, n_cell]
}

// lstmIntegerScratch are the integer step's scratch buffers: four int16
// gate buffers and an int8 hidden buffer of nBatch×n_cell, and an int32
// accumulator of nBatch×max(n_cell, n_output).
type lstmIntegerScratch struct {
	gates  [numGates][]int16
	hidden []int8
	acc    []int32
}

// lstmStepInteger advances nBatch sequences by one time step: x holds
// nBatch int8 input vectors, outputState (int8, nBatch×n_output) and
// cellState (int16, nBatch×n_cell) are read and updated in place, and the
// new output state is copied to out.
func lstmStepInteger(cfg *lstmConfig, p *lstmIntegerParams, w *lstmIntegerWeights, x []int8, nBatch int,
	outputState []int8, cellState []int16, s *lstmIntegerScratch, out []int8) {
	if !cfg.cifg {
		lstmGateInteger(cfg, p, w, gateInput, x, outputState, cellState, nBatch, s)
	}
	lstmGateInteger(cfg, p, w, gateForget, x, outputState, cellState, nBatch, s)
	lstmGateInteger(cfg, p, w, gateCell, x, outputState, cellState, nBatch, s)
	lstmUpdateCellInteger(cfg, p, nBatch, cellState, s)
	lstmGateInteger(cfg, p, w, gateOutput, x, outputState, cellState, nBatch, s)
	lstmOutputInteger(cfg, p, w, nBatch, cellState, s, outputState)
	copy(out[:nBatch*cfg.nOutput], outputState)
}

// lstmGateInteger computes one gate as Q0.15 (TFLite's
// CalculateLstmGateInteger8x8_16): the two matrix products, each rescaled
// to the gate's pre-activation scale and added with int16 saturation, the
// peephole term, the integer layer norm, then the fixed-point sigmoid
// (tanh for the cell gate) of the Q3.12 result.
//
// TFLite's peephole term covers only n_output values per batch, strided by
// n_output, although the peephole weights and cell state have n_cell: with
// a projection (n_output < n_cell) the last cells get no peephole
// contribution. That is reproduced (Prepare refuses n_output > n_cell).
func lstmGateInteger(cfg *lstmConfig, p *lstmIntegerParams, w *lstmIntegerWeights, g int,
	x, outputState []int8, cellState []int16, nBatch int, s *lstmIntegerScratch) {
	nCell := cfg.nCell
	gate := s.gates[g][:nBatch*nCell]
	clear(gate)
	in, rec := p.inputToGate[g], p.recurrentToGate[g]
	matBatchVecMulAccInt16(x, p.inputEffectiveBias[g], w.inputToGate[g], in.multiplier, in.shift,
		nBatch, cfg.nInput, nCell, 0, s.acc, gate)
	matBatchVecMulAccInt16(outputState, p.recurrentEffectiveBias[g], w.recurrentToGate[g], rec.multiplier, rec.shift,
		nBatch, cfg.nOutput, nCell, 0, s.acc, gate)
	if peep := w.cellToGate[g]; peep != nil {
		c := p.cellToGate[g]
		vecBatchVecCwiseProdAccInt16(peep, cfg.nOutput, cellState, nBatch, c.multiplier, c.shift, gate)
	}
	if ln := w.layerNorm[g]; ln != nil {
		l := p.layerNorm[g]
		applyLayerNormInt16(gate, ln, w.gateBias[g], l.multiplier, l.shift, p.varianceGuard[g], nBatch, nCell, gate)
	}
	if g == gateCell {
		applyTanhInt16(3, gate, gate)
	} else {
		applySigmoidInt16(gate, gate)
	}
}

// lstmUpdateCellInteger sets c = clip(sat(f⊙c + i⊙g)) in the cell state's
// 2^cellScale format (TFLite's UpdateLstmCellInteger); with CIFG i is
// 1-f. The forget-gate buffer is overwritten.
func lstmUpdateCellInteger(cfg *lstmConfig, p *lstmIntegerParams, nBatch int, cellState []int16, s *lstmIntegerScratch) {
	n := nBatch * cfg.nCell
	c := cellState[:n]
	f := s.gates[gateForget][:n]
	g := s.gates[gateCell][:n]
	cwiseMulShift16(f, c, 15, c)
	shift := 30 + p.cellScale
	if cfg.cifg {
		sub1Int16(f, f)
		cwiseMulShift16(f, g, shift, f)
	} else {
		cwiseMulShift16(s.gates[gateInput][:n], g, shift, f)
	}
	cwiseAddSat16(c, f, c)
	if p.cellClip > 0 {
		cwiseClip16(c, p.cellClip)
	}
}

// lstmOutputInteger sets the int8 output state to o⊙tanh(c) (TFLite's
// CalculateLstmOutputInteger8x8_16; the fused activation option is ignored,
// as in TFLite). Without projection the result is quantised with the hidden
// intermediate's scale and zero point; with projection the hidden value is
// quantised with the negated hidden zero point (TFLite's convention, undone
// by the projection's precomputed bias) and projected into the output
// state's quantisation, then clipped.
func lstmOutputInteger(cfg *lstmConfig, p *lstmIntegerParams, w *lstmIntegerWeights, nBatch int,
	cellState []int16, s *lstmIntegerScratch, outputState []int8) {
	n := nBatch * cfg.nCell
	t := s.gates[gateInput][:n] // free after the cell update, as in TFLite
	applyTanhInt16(15+p.cellScale, cellState[:n], t)
	o := s.gates[gateOutput][:n]
	hs := p.hidden
	if !cfg.projection {
		cwiseMulRescaleInt8(o, t, hs.multiplier, hs.shift, p.hiddenZP, outputState[:n])
		return
	}
	hidden := s.hidden[:n]
	cwiseMulRescaleInt8(o, t, hs.multiplier, hs.shift, -p.hiddenZP, hidden)
	h := outputState[:nBatch*cfg.nOutput]
	clear(h)
	ps := p.projection
	matBatchVecMulAccInt8(hidden, p.projectionEffectiveBias, w.projWeights, ps.multiplier, ps.shift,
		nBatch, cfg.nCell, cfg.nOutput, p.outputStateZP, s.acc, h)
	if p.projClip > 0 {
		cwiseClip8(h, p.projClip)
	}
}
