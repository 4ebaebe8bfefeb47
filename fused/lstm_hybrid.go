package fused

import (
	"github.com/tflrun/tflrun/ops"
)

// This file is the hybrid LSTM step, TFLite's LstmStepHybrid
// (lstm_eval.cc): float32 input, state, biases and layer-norm coefficients;
// int8 symmetric gate, auxiliary, peephole and projection weights with one
// scale each. Each step quantises the input, the auxiliary input and the
// previous output state to int8, one scale per batch row (and one zero
// point with asymmetric_quantize_inputs), multiplies them with the int8
// weights in int32 and scales the sums back to float with
// row scale × weight scale; with a projection the hidden state is
// quantised the same way. The rest of the step is the float path's.

// lstmHybridPacked is the hybrid path's copy of one direction's constants.
type lstmHybridPacked struct {
	wx, wAux, wh []int8 // panels as in lstmFloatPacked; wh nil when all gates are diagonal
	// Per-gate weight scales of the panels, indexed by slot.
	scaleX, scaleAux, scaleH [numGates]float32
	// Row sums of the panels, for the asymmetric zero-point correction
	// (nil when inputs are quantised symmetrically).
	sumX, sumAux, sumH []int32
	// diag holds diagonal recurrent weights; TFLite's hybrid kernel reads
	// them as float32 and multiplies them with the float output state.
	diag [numGates][]float32
	bias [numGates][]float32
	// peep holds the peephole weights scaled back to float (TFLite's
	// "recovered" cell weights: scale·int8, computed once here).
	peep     [numGates][]float32
	ln       [numGates][]float32
	proj     []int8 // [n_output, n_cell]
	projSum  []int32
	projBias []float32
	// projScale is the projection weights' scale in a one-element group.
	projScale [1]float32
}

// packHybrid copies and packs the hybrid weights of t (and aux).
func (c *lstmCell) packHybrid(t *lstmTensors, aux *lstmAuxTensors) {
	cfg := &c.cfg
	p := &lstmHybridPacked{}
	p.wx = packPanel(c, cfg.nCell, cfg.nInput, func(g int) []int8 { return t.inputToGate[g].Int8s() })
	for g := 0; g < numGates; g++ {
		if s := c.slot[g]; s >= 0 {
			p.scaleX[s] = t.inputToGate[g].Scale()
		}
	}
	if cfg.nAux > 0 {
		p.wAux = packPanel(c, cfg.nCell, cfg.nAux, func(g int) []int8 { return aux.weights[g].Int8s() })
		for g := 0; g < numGates; g++ {
			if s := c.slot[g]; s >= 0 {
				p.scaleAux[s] = aux.weights[g].Scale()
			}
		}
	}
	if !allDiag(c) {
		p.wh = packPanel(c, cfg.nCell, cfg.nOutput, func(g int) []int8 {
			if cfg.recurrentDiag[g] {
				return make([]int8, cfg.nCell*cfg.nOutput)
			}
			return t.recurrentToGate[g].Int8s()
		})
	}
	for g := 0; g < numGates; g++ {
		s := c.slot[g]
		if s < 0 {
			continue
		}
		if cfg.recurrentDiag[g] {
			p.diag[g] = cloneF32(t.recurrentToGate[g])
		} else {
			p.scaleH[s] = t.recurrentToGate[g].Scale()
		}
		p.bias[g] = cloneF32(t.gateBias[g])
		if w := t.cellToGate[g]; w != nil && g != gateCell {
			scale := w.Scale()
			q := w.Int8s()[:cfg.nCell]
			p.peep[g] = make([]float32, cfg.nCell)
			for i, v := range q {
				p.peep[g][i] = scale * float32(v)
			}
		}
		if cfg.layerNorm {
			p.ln[g] = cloneF32(t.layerNorm[g])
		}
	}
	if cfg.projection {
		p.proj = append([]int8(nil), t.projWeights.Int8s()[:cfg.nOutput*cfg.nCell]...)
		p.projScale[0] = t.projWeights.Scale()
		p.projBias = cloneF32(t.projBias)
	}
	if cfg.asymmetric {
		rows := c.rows()
		p.sumX = rowSums(p.wx, rows, cfg.nInput)
		if p.wAux != nil {
			p.sumAux = rowSums(p.wAux, rows, cfg.nAux)
		}
		if p.wh != nil {
			p.sumH = rowSums(p.wh, rows, cfg.nOutput)
		}
		if p.proj != nil {
			p.projSum = rowSums(p.proj, cfg.nOutput, cfg.nCell)
		}
	}
	c.hy = p
}

// lstmHybridScratch are the hybrid step's scratch views.
type lstmHybridScratch struct {
	gates, hidden []float32 // [nb][nG][n_cell], [nb][n_cell]
	acc           []int32   // nb·max(nG·n_cell, n_output)
	qIn, qAux     []int8    // quantised input and auxiliary rows
	// qState holds the quantised output state, later the quantised hidden
	// state (never both at once).
	qState []int8
	// Scaling factors and zero points of the input, auxiliary and state
	// rows (the hidden state reuses the input's, as TFLite does).
	sfIn, sfAux, sfState []float32
	zpIn, zpAux, zpState []int32
}

// hybridScratch returns the hybrid scratch views of the node, ok=false when
// the interpreter did not provide them.
func (c *lstmCell) hybridScratch(n *ops.Node) (s lstmHybridScratch, ok bool) {
	cfg := &c.cfg
	nb := cfg.nBatch
	var o [8]bool
	s.gates, o[0] = scratchView[float32](scratchOf(n, c.scr.gates), nb*c.rows())
	s.hidden, o[1] = scratchView[float32](scratchOf(n, c.scr.hidden), nb*cfg.nCell)
	s.acc, o[2] = scratchView[int32](scratchOf(n, c.scr.acc), nb*max(c.rows(), cfg.nOutput))
	s.qIn, o[3] = scratchView[int8](scratchOf(n, c.scr.qIn), nb*cfg.nInput)
	s.qAux, o[4] = scratchView[int8](scratchOf(n, c.scr.qAux), nb*cfg.nAux)
	s.qState, o[5] = scratchView[int8](scratchOf(n, c.scr.qState), nb*max(cfg.nOutput, cfg.nCell))
	var sf []float32
	var zp []int32
	sf, o[6] = scratchView[float32](scratchOf(n, c.scr.factors), 3*nb)
	zp, o[7] = scratchView[int32](scratchOf(n, c.scr.offsets), 3*nb)
	for _, v := range o {
		if !v {
			return s, false
		}
	}
	if nb > 0 {
		s.sfIn, s.sfAux, s.sfState = sf[:nb], sf[nb:2*nb], sf[2*nb:3*nb]
		s.zpIn, s.zpAux, s.zpState = zp[:nb], zp[nb:2*nb], zp[2*nb:3*nb]
	}
	return s, true
}

// passHybrid runs the hybrid direction over a sequence; the arguments are
// passFloat's.
func (c *lstmCell) passHybrid(seq lstmSeq, x, aux, h, cs, out []float32, outStride, outOff int, s *lstmHybridScratch) {
	cfg := &c.cfg
	for i := 0; i < seq.calls(); i++ {
		row, b0, nb := seq.at(i)
		var auxRows []float32
		if aux != nil {
			auxRows = aux[row*cfg.nAux : (row+nb)*cfg.nAux]
		}
		hs := h[b0*cfg.nOutput : (b0+nb)*cfg.nOutput]
		c.stepHybrid(x[row*cfg.nInput:(row+nb)*cfg.nInput], auxRows, nb,
			hs, cs[b0*cfg.nCell:(b0+nb)*cfg.nCell], s)
		copyRows(out[row*outStride+outOff:], outStride, hs, nb, cfg.nOutput)
	}
}

// stepHybrid advances nb sequences by one time step, as TFLite's
// LstmStepHybrid: the float input, auxiliary input and previous output
// state are each quantised once per step (an all-zero operand is skipped,
// as in TFLite) and multiplied with the int8 panels; gates, cell update and
// output follow the float path, with the hybrid projection.
func (c *lstmCell) stepHybrid(x, aux []float32, nb int, h, cs []float32, s *lstmHybridScratch) {
	cfg, p := &c.cfg, c.hy
	nCell, rows := cfg.nCell, c.rows()
	acc := s.gates[:nb*rows]
	for b := 0; b < nb; b++ {
		for g := 0; g < numGates; g++ {
			if c.slot[g] < 0 {
				continue
			}
			dst := gateRow(c, acc, b, g)
			if cfg.layerNorm {
				clear(dst)
			} else {
				copy(dst, p.bias[g])
			}
		}
	}
	var zpIn, zpAux, zpState []int32
	if cfg.asymmetric {
		zpIn, zpAux, zpState = s.zpIn, s.zpAux, s.zpState
	}
	if !isZeroFloat(x[:nb*cfg.nInput]) {
		batchQuantizeFloats(x, nb, cfg.nInput, s.qIn, s.sfIn, s.zpIn, cfg.asymmetric)
		hybridProductAcc(acc, p.wx, rows, cfg.nInput, s.qIn, nb, s.sfIn, p.scaleX[:], nCell, zpIn, p.sumX, s.acc)
	}
	if aux != nil && !isZeroFloat(aux[:nb*cfg.nAux]) {
		batchQuantizeFloats(aux, nb, cfg.nAux, s.qAux, s.sfAux, s.zpAux, cfg.asymmetric)
		hybridProductAcc(acc, p.wAux, rows, cfg.nAux, s.qAux, nb, s.sfAux, p.scaleAux[:], nCell, zpAux, p.sumAux, s.acc)
	}
	if !isZeroFloat(h[:nb*cfg.nOutput]) {
		if p.wh != nil {
			batchQuantizeFloats(h, nb, cfg.nOutput, s.qState, s.sfState, s.zpState, cfg.asymmetric)
			hybridProductAcc(acc, p.wh, rows, cfg.nOutput, s.qState, nb, s.sfState, p.scaleH[:], nCell, zpState, p.sumH, s.acc)
		}
		for b := 0; b < nb; b++ {
			hb := h[b*cfg.nOutput : (b+1)*cfg.nOutput]
			for g := 0; g < numGates; g++ {
				if d := p.diag[g]; d != nil && c.slot[g] >= 0 {
					vecCwiseMulAccFloat(gateRow(c, acc, b, g), d, hb)
				}
			}
		}
	}
	for b := 0; b < nb; b++ {
		cb := cs[b*nCell : (b+1)*nCell]
		if !cfg.cifg {
			c.finishGateHybrid(gateInput, gateRow(c, acc, b, gateInput), cb)
		}
		f := gateRow(c, acc, b, gateForget)
		gc := gateRow(c, acc, b, gateCell)
		c.finishGateHybrid(gateForget, f, cb)
		c.finishGateHybrid(gateCell, gc, cb)
		var ig []float32
		if !cfg.cifg {
			ig = gateRow(c, acc, b, gateInput)
		}
		updateCellFloat(cb, f, ig, gc, cfg.cellClip)
		o := gateRow(c, acc, b, gateOutput)
		c.finishGateHybrid(gateOutput, o, cb)
		hid := s.hidden[b*nCell : (b+1)*nCell]
		copy(hid, cb)
		applyActivationFloat(hid, cfg.activation)
		for k, v := range o {
			hid[k] *= v
		}
	}
	c.outputHybrid(s.hidden[:nb*nCell], nb, h, s)
}

// finishGateHybrid is finishGateFloat with the hybrid constants.
func (c *lstmCell) finishGateHybrid(g int, gate, cb []float32) {
	p := c.hy
	if w := p.peep[g]; w != nil {
		vecCwiseMulAccFloat(gate, w, cb)
	}
	if ln := p.ln[g]; ln != nil {
		meanStddevNormalization(gate, len(gate), 1)
		bias := p.bias[g]
		for i, l := range ln {
			gate[i] = float32(l*gate[i]) + bias[i]
		}
	}
	if g == gateCell {
		applyActivationFloat(gate, c.cfg.activation)
	} else {
		applySigmoidFloat(gate)
	}
}

// outputHybrid sets the output state from the hidden vectors, as TFLite's
// CalculateLstmOutputHybrid: a copy without projection; else the
// projection bias (or zero), plus — unless the hidden vectors are all zero
// — the int8 projection of the quantised hidden state, then proj_clip.
// Any n_output works (TFLite sizes its projection accumulator by n_cell).
func (c *lstmCell) outputHybrid(hidden []float32, nb int, h []float32, s *lstmHybridScratch) {
	cfg, p := &c.cfg, c.hy
	nOut := cfg.nOutput
	h = h[:nb*nOut]
	if !cfg.projection {
		copy(h, hidden)
		return
	}
	for b := 0; b < nb; b++ {
		if p.projBias != nil {
			copy(h[b*nOut:(b+1)*nOut], p.projBias)
		} else {
			clear(h[b*nOut : (b+1)*nOut])
		}
	}
	if !isZeroFloat(hidden) {
		var zp []int32
		if cfg.asymmetric {
			zp = s.zpIn
		}
		batchQuantizeFloats(hidden, nb, cfg.nCell, s.qState, s.sfIn, s.zpIn, cfg.asymmetric)
		hybridProductAcc(h, p.proj, nOut, cfg.nCell, s.qState, nb, s.sfIn, p.projScale[:], max(nOut, 1), zp, p.projSum, s.acc)
	}
	if cfg.projClip > 0 {
		cwiseClipFloat(h, cfg.projClip)
	}
}
