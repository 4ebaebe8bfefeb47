package fused

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// This file is the full-integer LSTM step, TFLite's int8x8_16 kernel
// (LstmStepInteger8x8_16 in lstm_eval.cc): int8 input, weights, output
// state and output; int16 gates, cell state, peephole and layer-norm
// weights; int32 biases. Its parameters come from lstm_integer_params.go.
//
// With packed panels the int32 sums of all gates come from one product per
// operand; each gate's sums are then requantised with that gate's own
// multiplier, and the input and recurrent contributions are added with
// TFLite's two int16 saturations, so the bits are TFLite's.

// lstmIntegerPacked is the integer path's copy of one direction's
// constants.
type lstmIntegerPacked struct {
	p      *lstmIntegerParams
	wx, wh []int8 // [nG·n_cell, n_input], [nG·n_cell, n_output]
	// biasX and biasH are the effective biases of the two products
	// (gate bias and zero-point corrections, TFLite's *_effective_bias),
	// packed like the panels.
	biasX, biasH []int32
	peep         [numGates][]int16
	ln           [numGates][]int16
	lnBias       [numGates][]int32
	proj         []int8 // [n_output, n_cell]
}

// packInteger packs the integer weights of t with the derived parameters.
func (c *lstmCell) packInteger(t *lstmTensors, params *lstmIntegerParams) {
	cfg := &c.cfg
	q := &lstmIntegerPacked{p: params}
	q.wx = packPanel(c, cfg.nCell, cfg.nInput, func(g int) []int8 { return t.inputToGate[g].Int8s() })
	q.wh = packPanel(c, cfg.nCell, cfg.nOutput, func(g int) []int8 { return t.recurrentToGate[g].Int8s() })
	q.biasX = packVector(c, cfg.nCell, func(g int) []int32 { return params.inputEffectiveBias[g] })
	q.biasH = packVector(c, cfg.nCell, func(g int) []int32 { return params.recurrentEffectiveBias[g] })
	for g := 0; g < numGates; g++ {
		if c.slot[g] < 0 {
			continue
		}
		if cfg.peephole && g != gateCell {
			q.peep[g] = cloneI16(t.cellToGate[g])
		}
		if cfg.layerNorm {
			q.ln[g] = cloneI16(t.layerNorm[g])
			q.lnBias[g] = cloneI32(t.gateBias[g])
		}
	}
	if cfg.projection {
		q.proj = append([]int8(nil), t.projWeights.Int8s()[:cfg.nOutput*cfg.nCell]...)
	}
	c.iq = q
}

// lstmIntegerScratch are the integer step's scratch views: the int16 gate
// buffer [nb][nG][n_cell], the int32 accumulator nb·max(nG·n_cell,
// n_output), the int8 hidden buffer and an int16 buffer of nb·n_cell.
type lstmIntegerScratch struct {
	gates  []int16
	acc    []int32
	hidden []int8
	tmp    []int16
}

// integerScratch returns the integer scratch views of the node, ok=false
// when the interpreter did not provide them.
func (c *lstmCell) integerScratch(n *ops.Node) (s lstmIntegerScratch, ok bool) {
	cfg := &c.cfg
	nb := cfg.nBatch
	var o [4]bool
	s.gates, o[0] = scratchView[int16](scratchOf(n, c.scr.gates), nb*c.rows())
	s.acc, o[1] = scratchView[int32](scratchOf(n, c.scr.acc), nb*max(c.rows(), cfg.nOutput))
	s.hidden, o[2] = scratchView[int8](scratchOf(n, c.scr.hidden), nb*cfg.nCell)
	s.tmp, o[3] = scratchView[int16](scratchOf(n, c.scr.tmp), nb*cfg.nCell)
	return s, o[0] && o[1] && o[2] && o[3]
}

// passInteger runs the integer direction over a sequence: x holds int8
// input rows in seq's layout, h (int8, n_batch×n_output) and cs (int16,
// n_batch×n_cell) the state, updated in place; row r's output goes to
// out[r·outStride+outOff].
func (c *lstmCell) passInteger(seq lstmSeq, x, h []int8, cs []int16, out []int8, outStride, outOff int, s *lstmIntegerScratch) {
	cfg := &c.cfg
	for i := 0; i < seq.calls(); i++ {
		row, b0, nb := seq.at(i)
		hs := h[b0*cfg.nOutput : (b0+nb)*cfg.nOutput]
		c.stepInteger(x[row*cfg.nInput:(row+nb)*cfg.nInput], nb, hs, cs[b0*cfg.nCell:(b0+nb)*cfg.nCell], s)
		copyRows(out[row*outStride+outOff:], outStride, hs, nb, cfg.nOutput)
	}
}

// stepInteger advances nb sequences by one time step (TFLite's
// LstmStepInteger8x8_16): x holds nb int8 input vectors; h and cs are read
// and updated in place.
func (c *lstmCell) stepInteger(x []int8, nb int, h []int8, cs []int16, s *lstmIntegerScratch) {
	cfg, q := &c.cfg, c.iq
	p := q.p
	nCell, rows := cfg.nCell, c.rows()
	gates := s.gates[:nb*rows]
	// Input product: gate = sat16(MBQM(biasX + W_x·x)) per gate multiplier.
	c.integerProduct(q.wx, q.biasX, cfg.nInput, x, nb, &p.inputToGate, gates, s.acc, true)
	// Recurrent product: gate = sat16(gate + MBQM(biasH + W_h·h)).
	c.integerProduct(q.wh, q.biasH, cfg.nOutput, h, nb, &p.recurrentToGate, gates, s.acc, false)
	// Peephole terms with the old cell state, then the gate activations.
	for _, g := range [...]int{gateInput, gateForget} {
		if c.slot[g] >= 0 && q.peep[g] != nil {
			c.peepholeInteger(g, gates, cs, nb)
		}
	}
	for b := 0; b < nb; b++ {
		if !cfg.cifg {
			c.finishGateInteger(gateInput, gateRow(c, gates, b, gateInput))
		}
		c.finishGateInteger(gateForget, gateRow(c, gates, b, gateForget))
		c.finishGateInteger(gateCell, gateRow(c, gates, b, gateCell))
		var ig []int16
		if !cfg.cifg {
			ig = gateRow(c, gates, b, gateInput)
		}
		updateCellInteger(cs[b*nCell:(b+1)*nCell], gateRow(c, gates, b, gateForget), ig,
			gateRow(c, gates, b, gateCell), p.cellScale, p.cellClip)
	}
	// The output gate's peephole sees the updated cell state.
	if q.peep[gateOutput] != nil {
		c.peepholeInteger(gateOutput, gates, cs, nb)
	}
	for b := 0; b < nb; b++ {
		c.finishGateInteger(gateOutput, gateRow(c, gates, b, gateOutput))
	}
	c.outputInteger(nb, cs, gates, h, s)
}

// integerProduct computes acc = bias + W·v for the nb vectors v (int32,
// wrapping) and requantises each gate's rows into gates with that gate's
// multiplier: gates = sat16(MBQM(acc)) when first, else
// sat16(gates + MBQM(acc)) (TFLite's MatrixBatchVectorMultiplyAccumulate
// with int16 output and output zero point 0).
func (c *lstmCell) integerProduct(w []int8, bias []int32, cols int, v []int8, nb int,
	mult *[numGates]quantMultiplier, gates []int16, acc []int32, first bool) {
	rows := c.rows()
	acc = acc[:nb*rows]
	for b := 0; b < nb; b++ {
		copy(acc[b*rows:(b+1)*rows], bias)
	}
	matBatchVecMulAccI8(acc, w, rows, cols, v, nb)
	nCell := c.cfg.nCell
	for b := 0; b < nb; b++ {
		for g := 0; g < numGates; g++ {
			if c.slot[g] < 0 {
				continue
			}
			m := mult[g]
			off := (b*c.nG + c.slot[g]) * nCell
			out := gates[off : off+nCell]
			if first {
				clear(out)
			}
			arch.RequantizeAccInt16(out, acc[off:off+nCell], m.multiplier, m.shift)
		}
	}
}

// peepholeInteger adds gate g's peephole term, TFLite's integer
// VectorBatchVectorCwiseProductAccumulate called with n_output as the
// vector size: for the flat index k = b·n_output + v (v < n_output) of the
// gate buffer and the cell state,
//
//	gate[k] = sat16(gate[k] + MBQM(w[v]·c[k]))
//
// TFLite's gate and cell buffers are [nb][n_cell]; so with a projection
// (n_output < n_cell) the last cells get no peephole term and, for nb > 1
// (time-major input), rows after the first read shifted positions, i.e.
// other rows' cells. Both are reproduced on purpose: TFLite's own kernel
// test (NoCifgPeepholeProjectionLayerNorm, batch 2) expects these bits, and
// the reads stay inside the buffers. The consequence, as in TFLite: with
// peephole, projection and a time-major batch > 1, a row's result depends
// on the other rows (batch-major input runs rows alone and does not). The
// gate buffer here is packed, so k is mapped to its batch row and cell.
func (c *lstmCell) peepholeInteger(g int, gates []int16, cs []int16, nb int) {
	cfg, q := &c.cfg, c.iq
	nOut, nCell := cfg.nOutput, cfg.nCell
	m := q.p.cellToGate[g]
	w := q.peep[g]
	for b := 0; b < nb; b++ {
		for v := 0; v < nOut; v++ {
			k := b*nOut + v
			gb, gi := k/nCell, k%nCell
			idx := (gb*c.nG+c.slot[g])*nCell + gi
			prod := ops.MultiplyByQuantizedMultiplier(int32(w[v])*int32(cs[k]), m.multiplier, m.shift)
			gates[idx] = ops.SaturateInt16(prod + int32(gates[idx]))
		}
	}
}

// finishGateInteger applies gate g's integer layer norm (when enabled) and
// its activation to one batch row, giving Q0.15 values (TFLite's
// CalculateLstmGateInteger8x8_16 after the products): the sigmoid of the
// Q3.12 value, tanh for the cell gate.
func (c *lstmCell) finishGateInteger(g int, gate []int16) {
	q := c.iq
	if ln := q.ln[g]; ln != nil {
		l := q.p.layerNorm[g]
		applyLayerNormInt16(gate, ln, q.lnBias[g], l.multiplier, l.shift, q.p.varianceGuard[g], 1, len(gate), gate)
	}
	if g == gateCell {
		applyTanhInt16(3, gate, gate)
	} else {
		applySigmoidInt16(gate, gate)
	}
}

// updateCellInteger sets c = clip(sat(f⊙c + i⊙g)) in the cell state's
// 2^cellScale format for one batch row (TFLite's UpdateLstmCellInteger);
// with CIFG (ig nil) i is 1-f. The forget-gate row is overwritten.
func updateCellInteger(cb, f, ig, gc []int16, cellScale int, clip int16) {
	cwiseMulShift16(f, cb, 15, cb)
	shift := 30 + cellScale
	if ig == nil {
		sub1Int16(f, f)
		cwiseMulShift16(f, gc, shift, f)
	} else {
		cwiseMulShift16(ig, gc, shift, f)
	}
	cwiseAddSat16(cb, f, cb)
	if clip > 0 {
		cwiseClip16(cb, clip)
	}
}

// outputInteger sets the int8 output state to o⊙tanh(c) (TFLite's
// CalculateLstmOutputInteger8x8_16; the fused activation option is ignored,
// as in TFLite). Without projection the result is quantised with the hidden
// intermediate's scale and zero point; with projection the hidden value is
// quantised with the negated hidden zero point (TFLite's convention, undone
// by the projection's precomputed bias) and projected into the output
// state's quantisation, then clipped.
func (c *lstmCell) outputInteger(nb int, cs []int16, gates []int16, h []int8, s *lstmIntegerScratch) {
	cfg, q := &c.cfg, c.iq
	p := q.p
	nCell := cfg.nCell
	n := nb * nCell
	t := s.tmp[:n]
	if p.tanhSkipped {
		// TFLite's ApplyTanh did nothing: its output buffer still holds
		// the input gate of this step.
		for b := 0; b < nb; b++ {
			copy(t[b*nCell:(b+1)*nCell], gateRow(c, gates, b, gateInput))
		}
	} else {
		applyTanhInt16(15+p.cellScale, cs[:n], t)
	}
	hs := p.hidden
	zp := p.hiddenZP
	dst := h
	if cfg.projection {
		zp = -p.hiddenZP
		dst = s.hidden
	}
	for b := 0; b < nb; b++ {
		cwiseMulRescaleInt8(gateRow(c, gates, b, gateOutput), t[b*nCell:(b+1)*nCell], hs.multiplier, hs.shift, zp,
			dst[b*nCell:(b+1)*nCell])
	}
	if !cfg.projection {
		return
	}
	out := h[:nb*cfg.nOutput]
	clear(out)
	ps := p.projection
	matBatchVecMulAccInt8(s.hidden[:n], p.projectionEffectiveBias, q.proj, ps.multiplier, ps.shift,
		nb, nCell, cfg.nOutput, p.outputStateZP, s.acc, out)
	if p.projClip > 0 {
		cwiseClip8(out, p.projClip)
	}
}
