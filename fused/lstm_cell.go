package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// This file holds what every LSTM kernel of the package shares once its
// node is validated: one prepared LSTM direction (lstmCell) with its gate
// weights re-laid into panels, its scratch requests, and the walk over a
// sequence in either layout and direction (lstmSeq).
//
// Weight panels: TFLite multiplies each gate's weight matrix separately
// (eight matrix×vector products per step, plus four with an auxiliary
// input). Prepare instead concatenates the used gates' input weights into
// one [nG·n_cell, n_input] panel, the recurrent weights into one
// [nG·n_cell, n_output] panel and the auxiliary weights into one
// [nG·n_cell, n_aux] panel (nG = 3 with CIFG, else 4, gates in TFLite's
// order input, forget, cell, output, except that the float path puts the
// cell gate last: see newLSTMCell), so Eval runs one long product per
// operand and step. The product rows of batch b and gate g then sit at
// gates[b·nG·n_cell + slot(g)·n_cell ...]. Every gate sees the same input
// and previous output state, so the result is the same; only the float
// summation order within a gate differs from TFLite's, by float rounding.

// lstmPath selects the arithmetic of an LSTM direction.
type lstmPath uint8

const (
	lstmPathFloat   lstmPath = iota // float32 everywhere (TFLite's EvalFloat)
	lstmPathHybrid                  // float32 activations, int8 weights (EvalHybrid)
	lstmPathInteger                 // int8x8_16 full integer (EvalInteger8x8_16)
)

func (p lstmPath) String() string {
	switch p {
	case lstmPathFloat:
		return "float"
	case lstmPathHybrid:
		return "hybrid"
	}
	return "integer (int8x8_16)"
}

// lstmCell is one LSTM direction ready for Eval: sizes and options, the
// packed weights of its path and the ids of its scratch buffers. It holds
// copies of everything it needs from constant tensors, so Eval reads only
// the input, state and output tensors.
type lstmCell struct {
	cfg  lstmConfig
	path lstmPath
	// slot[g] is gate g's position in the panels, -1 for the input gate
	// with CIFG; nG is the number of gates in the panels.
	slot [numGates]int
	nG   int

	fl *lstmFloatPacked
	hy *lstmHybridPacked
	iq *lstmIntegerPacked

	scr lstmScratchIDs
	// prod is the gate product being split over threads and prodFn its
	// range function (packedProduct.run, bound once).
	prod   packedProduct
	prodFn func(worker, lo, hi int)
}

// rows is the number of rows of the gate panels, nG·n_cell.
func (c *lstmCell) rows() int { return c.nG * c.cfg.nCell }

// gateRow returns the n_cell values of gate g for batch row b in a buffer
// laid out like the panel products ([nb][nG][n_cell]).
func gateRow[E any](c *lstmCell, buf []E, b, g int) []E {
	n := c.cfg.nCell
	off := (b*c.nG + c.slot[g]) * n
	return buf[off : off+n : off+n]
}

// newLSTMCell makes the cell skeleton for cfg: the gate slots. The hybrid
// and integer paths keep TFLite's gate order; the float path puts the
// cell gate last (input, forget, output, cell), so that its sigmoid gates
// are contiguous in the gate buffer and one vector sigmoid call covers
// them.
func newLSTMCell(cfg lstmConfig, path lstmPath) *lstmCell {
	c := &lstmCell{cfg: cfg, path: path}
	c.prodFn = c.prod.run
	order := [numGates]int{gateInput, gateForget, gateCell, gateOutput}
	if path == lstmPathFloat {
		order = [numGates]int{gateInput, gateForget, gateOutput, gateCell}
	}
	for _, g := range order {
		if g == gateInput && cfg.cifg {
			c.slot[g] = -1
			continue
		}
		c.slot[g] = c.nG
		c.nG++
	}
	return c
}

// packPanel concatenates the used gates' weight matrices (each rows×cols,
// row-major) into one panel in slot order. get returns gate g's matrix.
func packPanel[E any](c *lstmCell, rows, cols int, get func(g int) []E) []E {
	panel := make([]E, c.nG*rows*cols)
	for g := 0; g < numGates; g++ {
		if c.slot[g] < 0 {
			continue
		}
		copy(panel[c.slot[g]*rows*cols:], get(g)[:rows*cols])
	}
	return panel
}

// packVector concatenates per-gate vectors of n values in slot order.
func packVector[E any](c *lstmCell, n int, get func(g int) []E) []E {
	v := make([]E, c.nG*n)
	for g := 0; g < numGates; g++ {
		if c.slot[g] < 0 {
			continue
		}
		if src := get(g); src != nil {
			copy(v[c.slot[g]*n:], src[:n])
		}
	}
	return v
}

// cloneF32, cloneI16 and cloneI32 return a copy of t's elements (nil for a
// nil tensor), for the kernel to keep past Prepare.
func cloneF32(t *ops.Tensor) []float32 {
	if t == nil {
		return nil
	}
	return append([]float32(nil), t.Float32s()[:t.NumElements()]...)
}

func cloneI16(t *ops.Tensor) []int16 {
	if t == nil {
		return nil
	}
	return append([]int16(nil), t.Int16s()[:t.NumElements()]...)
}

func cloneI32(t *ops.Tensor) []int32 {
	if t == nil {
		return nil
	}
	return append([]int32(nil), t.Int32s()[:t.NumElements()]...)
}

// requireConstData checks that every present weight-like input of the
// direction holds fixed bytes at Prepare (ops.Tensor.IsConstant: a model
// constant, or the DEQUANTIZE of one, as TFLite's float16 quantisation
// writes them, which the interpreter computes before this Prepare): Prepare
// packs them. TFLite's float kernel would also take weights computed at
// run time from activations; no converter emits such models.
func requireConstData(t *lstmTensors, aux *lstmAuxTensors, name func(int) string) error {
	check := func(x *ops.Tensor, idx int) error {
		if x == nil {
			return nil
		}
		if !x.IsConstant() {
			return fmt.Errorf("%s must be a constant tensor with data, or the DEQUANTIZE of one (the LSTM packs its weights at Prepare)", name(idx))
		}
		return nil
	}
	for g := 0; g < numGates; g++ {
		for _, p := range []struct {
			x   *ops.Tensor
			idx int
		}{
			{t.inputToGate[g], inputToGateIndex[g]},
			{t.recurrentToGate[g], recurrentToGateIndex[g]},
			{t.cellToGate[g], cellToGateIndex[g]},
			{t.gateBias[g], gateBiasIndex[g]},
			{t.layerNorm[g], layerNormIndex[g]},
		} {
			if err := check(p.x, p.idx); err != nil {
				return err
			}
		}
		if aux != nil && aux.weights[g] != nil {
			if w := aux.weights[g]; !w.IsConstant() {
				return fmt.Errorf("%s must be a constant tensor with data, or the DEQUANTIZE of one (the LSTM packs its weights at Prepare)", aux.names[g])
			}
		}
	}
	if err := check(t.projWeights, lstmProjectionWeights); err != nil {
		return err
	}
	return check(t.projBias, lstmProjectionBias)
}

// lstmAuxTensors are the auxiliary-input weights [n_cell, n_aux] of a
// BIDIRECTIONAL_SEQUENCE_LSTM direction per gate (nil where omitted),
// with their names for messages ("input 41 (fw_aux_input_to_forget_weights)").
type lstmAuxTensors struct {
	weights [numGates]*ops.Tensor
	names   [numGates]string
}

// lstmSeq is the walk of one direction over a sequence: time_major inputs
// advance all nBatch rows per step; batch-major ones run each sequence
// alone (TFLite's order). forward=false walks time backwards.
type lstmSeq struct {
	timeMajor, forward bool
	maxTime, nBatch    int
}

// calls is the number of step calls the walk makes.
func (s lstmSeq) calls() int {
	if s.nBatch == 0 {
		return 0 // no row to advance (time-major would loop over empty steps)
	}
	if s.timeMajor {
		return s.maxTime
	}
	return s.maxTime * s.nBatch
}

// at returns for step call i the input row of its first batch row (rows
// are time·batch positions in the tensor's layout: x[row·n_input]), the
// first state row it advances and how many consecutive rows it takes.
func (s lstmSeq) at(i int) (row, b0, nb int) {
	if s.timeMajor {
		t := i
		if !s.forward {
			t = s.maxTime - 1 - i
		}
		return t * s.nBatch, 0, s.nBatch
	}
	b, t := i/s.maxTime, i%s.maxTime
	if !s.forward {
		t = s.maxTime - 1 - t
	}
	return b*s.maxTime + t, b, 1
}

// copyRows copies nb rows of n values from src (contiguous) into dst rows
// strided by stride, starting at dst[0].
func copyRows[E any](dst []E, stride int, src []E, nb, n int) {
	for b := 0; b < nb; b++ {
		copy(dst[b*stride:b*stride+n], src[b*n:b*n+n])
	}
}

// lstmScratchIDs are the ids of the scratch buffers a cell requested at
// Prepare; -1 where its path needs none.
type lstmScratchIDs struct {
	gates, hidden, acc int
	qIn, qAux, qState  int
	factors, offsets   int
	tmp                int
}

// requestScratch asks the node for the cell's scratch: the gate buffer
// [n_batch][nG][n_cell] (float32, int16 for the integer path), and per
// path the buffers its step uses.
func (c *lstmCell) requestScratch(n *ops.Node) {
	cfg := &c.cfg
	nb := cfg.nBatch
	gateElems := nb * c.rows()
	cellElems := nb * cfg.nCell
	accElems := nb * max(c.rows(), cfg.nOutput)
	s := lstmScratchIDs{hidden: -1, acc: -1, qIn: -1, qAux: -1, qState: -1, factors: -1, offsets: -1, tmp: -1}
	switch c.path {
	case lstmPathFloat:
		s.gates = n.RequestScratch(scratchBytes[float32](gateElems))
		s.hidden = n.RequestScratch(scratchBytes[float32](cellElems))
	case lstmPathHybrid:
		s.gates = n.RequestScratch(scratchBytes[float32](gateElems))
		s.hidden = n.RequestScratch(scratchBytes[float32](cellElems))
		s.acc = n.RequestScratch(scratchBytes[int32](accElems))
		s.qIn = n.RequestScratch(scratchBytes[int8](nb * cfg.nInput))
		s.qAux = n.RequestScratch(scratchBytes[int8](nb * cfg.nAux))
		// The quantised output state and the quantised hidden state
		// (before projection) share one buffer: they are never live at
		// the same time.
		s.qState = n.RequestScratch(scratchBytes[int8](nb * max(cfg.nOutput, cfg.nCell)))
		s.factors = n.RequestScratch(scratchBytes[float32](3 * nb))
		s.offsets = n.RequestScratch(scratchBytes[int32](3 * nb))
	case lstmPathInteger:
		s.gates = n.RequestScratch(scratchBytes[int16](gateElems))
		s.acc = n.RequestScratch(scratchBytes[int32](accElems))
		s.hidden = n.RequestScratch(scratchBytes[int8](cellElems))
		s.tmp = n.RequestScratch(scratchBytes[int16](cellElems))
	}
	c.scr = s
}
