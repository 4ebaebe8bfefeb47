package fused

import "github.com/tflrun/tflrun/ops"

// packBytes bounds what packFloat, packHybrid or packInteger (and the
// integer path's effective biases) allocate for the cell, so that the
// kernel charges it to the interpreter's memory bound (ops.Node.Reserve)
// before packing: for each weight panel (input, aux and recurrent, every
// used gate stacked) its copy and its packed form with the rows rounded
// up to a block of 16, the zero matrix of a diagonal gate, the
// projection, and the per-gate vectors (biases, peepholes, layer norm,
// row sums, effective biases), all counted at 4 bytes an element. The
// sizes are declared ones: a hostile model can make them large with
// empty weights, so they are checked before anything is made.
func (c *lstmCell) packBytes() int64 {
	cfg := &c.cfg
	rows := int64(c.nG) * int64(cfg.nCell)
	cols := int64(cfg.nInput) + int64(cfg.nAux) + int64(cfg.nOutput)
	elems := 2 * (rows + 16) * cols                                  // panels and packed panels
	elems += int64(numGates) * int64(cfg.nCell) * int64(cfg.nOutput) // diagonal gates' zero matrices
	elems += 2 * (int64(cfg.nOutput) + 16) * int64(cfg.nCell)        // projection, packed
	elems += 16*rows + 8*int64(cfg.nOutput)                          // vectors and row sums
	return 4 * elems
}

// reservePack charges c.packBytes to n's memory bound.
func (c *lstmCell) reservePack(n *ops.Node) error {
	return n.Memory.Reserve(c.packBytes(), "LSTM packed weights and per-gate vectors")
}
