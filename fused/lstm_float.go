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
	// nAux is the auxiliary input size (BIDIRECTIONAL_SEQUENCE_LSTM with
	// auxiliary weights), 0 without.
	nAux                  int
	timeMajor             bool
	cifg, peephole        bool
	projection, layerNorm bool
	// recurrentDiag marks recurrent weights given as [n_cell] diagonals
	// (UNIDIRECTIONAL_SEQUENCE_LSTM version 4, float and hybrid).
	recurrentDiag [numGates]bool
	// activation is the float and hybrid paths' cell-gate and cell-output
	// activation; the integer path always uses tanh.
	activation         ops.Activation
	cellClip, projClip float32
	// asymmetric selects asymmetric (zero-point) quantisation of the
	// hybrid path's float operands.
	asymmetric bool
}

// lstmFloatPacked is the float path's copy of one direction's constants:
// gate weight panels (see lstm_cell.go) in arch's packed layout
// (arch.PackMatrix: blocks of 16 rows stored column by column, multiplied
// by arch.MatVecMulAccPacked without horizontal sums) and per-gate
// vectors, nil where omitted.
type lstmFloatPacked struct {
	wx   []float32 // packed [nG·n_cell, n_input]
	wAux []float32 // packed [nG·n_cell, n_aux], nil without auxiliary input
	// wh is the packed recurrent panel [nG·n_cell, n_output]; nil when
	// every gate has diagonal recurrent weights, which are then in diag.
	wh   []float32
	diag [numGates][]float32 // [n_cell]
	bias [numGates][]float32 // [n_cell]
	// biasAll is the biases in slot order, [nG·n_cell]: the initial value
	// of one batch row's gate buffer without layer norm.
	biasAll []float32
	peep    [numGates][]float32 // [n_cell] peephole weights
	ln      [numGates][]float32 // [n_cell] layer-norm coefficients
	proj    []float32           // packed [n_output, n_cell]
	// projBias is [n_output], nil for none.
	projBias []float32
}

// packFloat copies and packs the float weights of t (and aux, if any).
// Shapes and types are already checked.
func (c *lstmCell) packFloat(t *lstmTensors, aux *lstmAuxTensors) {
	cfg := &c.cfg
	p := &lstmFloatPacked{}
	rows := c.rows()
	p.wx = arch.PackMatrix(packPanel(c, cfg.nCell, cfg.nInput, func(g int) []float32 { return t.inputToGate[g].Float32s() }), rows, cfg.nInput)
	if cfg.nAux > 0 {
		p.wAux = arch.PackMatrix(packPanel(c, cfg.nCell, cfg.nAux, func(g int) []float32 { return aux.weights[g].Float32s() }), rows, cfg.nAux)
	}
	for g := 0; g < numGates; g++ {
		if c.slot[g] >= 0 && cfg.recurrentDiag[g] {
			p.diag[g] = cloneF32(t.recurrentToGate[g])
		}
	}
	if !allDiag(c) {
		// A model mixing diagonal and full recurrent weights is rare: the
		// panel then holds zeros in the diagonal gates' rows.
		p.wh = arch.PackMatrix(packPanel(c, cfg.nCell, cfg.nOutput, func(g int) []float32 {
			if cfg.recurrentDiag[g] {
				return make([]float32, cfg.nCell*cfg.nOutput)
			}
			return t.recurrentToGate[g].Float32s()
		}), rows, cfg.nOutput)
	}
	for g := 0; g < numGates; g++ {
		if c.slot[g] < 0 {
			continue
		}
		p.bias[g] = cloneF32(t.gateBias[g])
		if g != gateCell {
			p.peep[g] = cloneF32(t.cellToGate[g])
		}
		if cfg.layerNorm {
			p.ln[g] = cloneF32(t.layerNorm[g])
		}
	}
	p.biasAll = packVector(c, cfg.nCell, func(g int) []float32 { return p.bias[g] })
	if cfg.projection {
		p.proj = arch.PackMatrix(t.projWeights.Float32s(), cfg.nOutput, cfg.nCell)
		p.projBias = cloneF32(t.projBias)
	}
	c.fl = p
}

// allDiag reports whether every used gate has diagonal recurrent weights.
func allDiag(c *lstmCell) bool {
	for g := 0; g < numGates; g++ {
		if c.slot[g] >= 0 && !c.cfg.recurrentDiag[g] {
			return false
		}
	}
	return true
}

// lstmFloatScratch are the float step's scratch views: the gate buffer
// [nb][nG][n_cell] and the hidden buffer [nb][n_cell].
type lstmFloatScratch struct {
	gates, hidden []float32
	// node is the node whose threads split the gate products.
	node *ops.Node
}

// floatScratch returns the float scratch views of the node, ok=false when
// the interpreter did not provide them.
func (c *lstmCell) floatScratch(n *ops.Node) (s lstmFloatScratch, ok bool) {
	nb := c.cfg.nBatch
	var ok1, ok2 bool
	s.gates, ok1 = scratchView[float32](scratchOf(n, c.scr.gates), nb*c.rows())
	s.hidden, ok2 = scratchView[float32](scratchOf(n, c.scr.hidden), nb*c.cfg.nCell)
	s.node = n
	return s, ok1 && ok2
}

// passFloat runs the float direction over a sequence: x holds the input
// rows (n_input each) in seq's layout, aux the auxiliary input rows (n_aux
// each, nil without), h and cs the state (n_batch rows of n_output and
// n_cell), updated in place; row r's output goes to out[r·outStride+outOff].
func (c *lstmCell) passFloat(seq lstmSeq, x, aux, h, cs, out []float32, outStride, outOff int, s *lstmFloatScratch) {
	cfg := &c.cfg
	for i := 0; i < seq.calls(); i++ {
		row, b0, nb := seq.at(i)
		var auxRows []float32
		if aux != nil {
			auxRows = aux[row*cfg.nAux : (row+nb)*cfg.nAux]
		}
		hs := h[b0*cfg.nOutput : (b0+nb)*cfg.nOutput]
		c.stepFloat(x[row*cfg.nInput:(row+nb)*cfg.nInput], auxRows, nb,
			hs, cs[b0*cfg.nCell:(b0+nb)*cfg.nCell], s)
		copyRows(out[row*outStride+outOff:], outStride, hs, nb, cfg.nOutput)
	}
}

// stepFloat advances nb sequences by one time step, as TFLite's
// LstmStepFloat (lstm_eval.cc): x holds nb input vectors, aux nb auxiliary
// vectors (or nil), h (nb×n_output) and cs (nb×n_cell) are read and
// updated in place.
//
//	gate = act(W_x·x + W_aux·aux + W_h·h + w_c⊙c + bias)               without layer norm
//	gate = act(ln⊙normalize(W_x·x + W_aux·aux + W_h·h + w_c⊙c) + bias) with layer norm
//
// act is the sigmoid except for the cell gate (the option's activation);
// the output gate's peephole sees the updated cell state. The float
// path's slots put the sigmoid gates first (input, forget, output, then
// cell; see newLSTMCell), so one arch.Sigmoid call covers all of a batch
// row's sigmoid gates whose inputs are complete. Each gate's arithmetic is
// TFLite's; only the grouping of the vector calls differs.
func (c *lstmCell) stepFloat(x, aux []float32, nb int, h, cs []float32, s *lstmFloatScratch) {
	cfg, p := &c.cfg, c.fl
	nCell, rows := cfg.nCell, c.rows()
	acc := s.gates[:nb*rows]
	// Bias first (zero with layer norm, where it is added after the
	// normalisation), then the products, as TFLite accumulates.
	for b := 0; b < nb; b++ {
		if cfg.layerNorm {
			clear(acc[b*rows : (b+1)*rows])
		} else {
			copy(acc[b*rows:(b+1)*rows], p.biasAll)
		}
	}
	// TFLite skips the products of an all-zero input; the result is the
	// same and padded sequences get cheaper.
	if !isZeroFloat(x[:nb*cfg.nInput]) {
		c.productOn(s.node, acc, p.wx, rows, cfg.nInput, x, nb)
	}
	if aux != nil && !isZeroFloat(aux[:nb*cfg.nAux]) {
		c.productOn(s.node, acc, p.wAux, rows, cfg.nAux, aux, nb)
	}
	if p.wh != nil {
		c.productOn(s.node, acc, p.wh, rows, cfg.nOutput, h, nb)
	}
	// The sigmoid gates occupy slots 0..nSig-1. With peepholes the output
	// gate (the last of them) needs the updated cell state and is
	// finished after the update; the others are finished together.
	nSig := c.nG - 1
	early := nSig
	if cfg.peephole {
		early--
	}
	pre := cfg.peephole || cfg.layerNorm
	for b := 0; b < nb; b++ {
		hb := h[b*cfg.nOutput : (b+1)*cfg.nOutput]
		cb := cs[b*nCell : (b+1)*nCell]
		for g := 0; g < numGates; g++ {
			if d := p.diag[g]; d != nil {
				// Diagonal recurrent weights (n_output == n_cell).
				vecCwiseMulAccFloat(gateRow(c, acc, b, g), d, hb)
			}
		}
		if pre {
			for g := 0; g < numGates; g++ {
				if c.slot[g] >= 0 && c.slot[g] < early {
					c.preActivationFloat(g, gateRow(c, acc, b, g), cb)
				}
			}
			c.preActivationFloat(gateCell, gateRow(c, acc, b, gateCell), cb)
		}
		sig := acc[b*rows : b*rows+early*nCell]
		arch.Sigmoid(sig, sig)
		gc := gateRow(c, acc, b, gateCell)
		applyActivationFloat(gc, cfg.activation)
		var ig []float32
		if !cfg.cifg {
			ig = gateRow(c, acc, b, gateInput)
		}
		updateCellFloat(cb, gateRow(c, acc, b, gateForget), ig, gc, cfg.cellClip)
		o := gateRow(c, acc, b, gateOutput)
		if early < nSig {
			c.preActivationFloat(gateOutput, o, cb)
			arch.Sigmoid(o, o)
		}
		// hidden = o ⊙ act(c) (TFLite's CalculateLstmOutputFloat), written
		// straight into the output state when there is no projection
		// (n_output == n_cell; this row's h was read above and is not
		// needed again).
		hid := hb
		if cfg.projection {
			hid = s.hidden[b*nCell : (b+1)*nCell]
		}
		if cfg.activation == ops.ActTanh {
			arch.Tanh(hid, cb)
		} else {
			copy(hid, cb)
			applyActivationFloat(hid, cfg.activation)
		}
		arch.VecMul(hid, hid, o)
	}
	if cfg.projection {
		c.projectFloat(s.hidden[:nb*nCell], nb, h)
	}
}

// preActivationFloat completes gate g of one batch row from its summed
// products up to its activation: the peephole term with the cell state
// cb, then layer norm and bias when enabled (TFLite's
// CalculateLstmGateFloat after the matrix products).
func (c *lstmCell) preActivationFloat(g int, gate, cb []float32) {
	p := c.fl
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
}

// updateCellFloat sets c = clip(f⊙c + i⊙g), with i = 1-f when ig is nil
// (CIFG), as TFLite's UpdateLstmCellFloat: each product is rounded to
// float32 before the sum (no FMA), as on TFLite's x86 build.
func updateCellFloat(cb, f, ig, gc []float32, clip float32) {
	f = f[:len(cb)]
	gc = gc[:len(cb)]
	if ig == nil {
		for k, v := range cb {
			cb[k] = float32(f[k]*v) + float32(gc[k]*(1-f[k]))
		}
	} else if len(cb) < 32 {
		// One pass for short rows (the arch calls would each loop in Go),
		// clipping included.
		ig = ig[:len(cb)]
		if clip > 0 {
			for k, v := range cb {
				cb[k] = stdMax(stdMin(clip, float32(f[k]*v)+float32(gc[k]*ig[k])), -clip)
			}
			return
		}
		for k, v := range cb {
			cb[k] = float32(f[k]*v) + float32(gc[k]*ig[k])
		}
		return
	} else {
		arch.VecMul(cb, f, cb)               // cb[k] = f[k]·cb[k]
		arch.VecMulAcc(cb, gc, ig[:len(cb)]) // cb[k] += float32(gc[k]·ig[k])
	}
	if clip > 0 {
		cwiseClipFloat(cb, clip)
	}
}

// projectFloat sets the output state h (nb×n_output) from the hidden
// vectors o⊙act(c) (nb×n_cell): projBias + W_proj·hidden, clipped by
// proj_clip. Unlike TFLite, whose projection scratch has n_cell floats per
// batch row, any n_output works.
func (c *lstmCell) projectFloat(hidden []float32, nb int, h []float32) {
	cfg, p := &c.cfg, c.fl
	nOut := cfg.nOutput
	h = h[:nb*nOut]
	for b := 0; b < nb; b++ {
		if p.projBias != nil {
			copy(h[b*nOut:(b+1)*nOut], p.projBias)
		} else {
			clear(h[b*nOut : (b+1)*nOut])
		}
	}
	matBatchVecMulAccPacked(h, p.proj, nOut, cfg.nCell, hidden, nb)
	if cfg.projClip > 0 {
		cwiseClipFloat(h, cfg.projClip)
	}
}

// vecCwiseMulAccFloat adds w⊙v to dst (TFLite's
// VectorBatchVectorCwiseProductAccumulate for one batch row); the product
// is rounded before the sum, as on TFLite's x86 build.
func vecCwiseMulAccFloat(dst, w, v []float32) {
	w = w[:len(dst)]
	v = v[:len(dst)]
	for i, wi := range w {
		dst[i] += float32(wi * v[i])
	}
}
