package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// This file is the time step shared by RNN, UNIDIRECTIONAL_SEQUENCE_RNN and
// each direction of BIDIRECTIONAL_SEQUENCE_RNN: TFLite's
// kernel_utils::RnnBatchStep, float and hybrid,
//
//	out = act(bias + W·x + W_aux·x_aux + R·h);  h = out
//
// with W [units, n_input], W_aux [units, n_aux] (optional), R [units,
// units], bias [units]. Gate weights are used in place (views of the
// model's constant buffers); the matrix products run on the arch
// primitives.

// rnnCell describes one RNN direction of a node: its sizes, which node
// inputs hold its tensors and, on the hybrid path, the weight scales and
// the row sums the asymmetric input quantisation needs.
type rnnCell struct {
	units, nInput, nAux int
	// Node input indices of the weights; aux is -1 without auxiliary
	// weights.
	w, aux, rec, bias int

	hybrid                     bool
	wScale, auxScale, recScale float32
	// rowSums holds the row sums of W, W_aux and R (units each, W_aux's
	// only when present), computed at the first Eval after Prepare as
	// TFLite does (compute_row_sums); kernel-owned, allocated at Prepare.
	rowSums      []int32
	rowSumsReady bool
}

// rnnCellTensors are one Eval's views of a cell's weights.
type rnnCellTensors struct {
	w, aux, rec, bias []float32
	wq, auxq, recq    []int8
}

// views returns the cell's weight views for this Eval.
func (c *rnnCell) views(n *ops.Node) rnnCellTensors {
	var v rnnCellTensors
	v.bias = n.Inputs[c.bias].Float32s()
	if c.hybrid {
		// TFLite's hybrid RNN kernels accept uint8 weights too and read
		// their bytes as int8 (GetTensorData<int8_t>), so view the bytes
		// rather than ask for the type.
		v.wq = ops.View[int8](n.Inputs[c.w].Data)
		v.recq = ops.View[int8](n.Inputs[c.rec].Data)
		if c.aux >= 0 {
			v.auxq = ops.View[int8](n.Inputs[c.aux].Data)
		}
		return v
	}
	v.w = n.Inputs[c.w].Float32s()
	v.rec = n.Inputs[c.rec].Float32s()
	if c.aux >= 0 {
		v.aux = n.Inputs[c.aux].Float32s()
	}
	return v
}

// prepareHybrid reads the weight scales of a hybrid cell and allocates its
// row sums.
func (c *rnnCell) prepareHybrid(n *ops.Node, roles ioRoles, wtype ops.DataType) error {
	c.hybrid = true
	var err error
	if c.wScale, err = roles.hybridWeightScale(n, c.w, wtype); err != nil {
		return err
	}
	if c.recScale, err = roles.hybridWeightScale(n, c.rec, wtype); err != nil {
		return err
	}
	parts := 2
	if c.aux >= 0 {
		if c.auxScale, err = roles.hybridWeightScale(n, c.aux, wtype); err != nil {
			return err
		}
		parts = 3
	}
	if c.rowSums, err = ops.Alloc[int32](n, parts*c.units, "RNN weight row sums"); err != nil {
		return err
	}
	c.rowSumsReady = false
	return nil
}

// rowSumParts splits rowSums into the input, aux and recurrent parts.
func (c *rnnCell) rowSumParts() (in, aux, rec []int32) {
	u := c.units
	in = c.rowSums[:u]
	if c.aux >= 0 {
		return in, c.rowSums[u : 2*u], c.rowSums[2*u : 3*u]
	}
	return in, nil, c.rowSums[u : 2*u]
}

// computeRowSums fills the row sums from the weights (once per Prepare).
func (c *rnnCell) computeRowSums(v *rnnCellTensors) {
	in, aux, rec := c.rowSumParts()
	arch.RowSumsInt8(in, v.wq, c.units, c.nInput)
	if aux != nil {
		arch.RowSumsInt8(aux, v.auxq, c.units, c.nAux)
	}
	arch.RowSumsInt8(rec, v.recq, c.units, c.units)
	c.rowSumsReady = true
}

// stepFloat runs one time step for batch rows: x holds batch input rows of
// n_input (contiguous), aux batch rows of n_aux (nil without aux), h the
// batch state rows of units (updated), and out receives row b at
// out[b*outStride:]. This is TFLite's float RnnBatchStep.
func (c *rnnCell) stepFloat(v *rnnCellTensors, x, aux []float32, batch int, act ops.Activation, h, out []float32, outStride int) {
	u := c.units
	for b := 0; b < batch; b++ {
		o := out[b*outStride : b*outStride+u]
		copy(o, v.bias[:u])
		arch.MatVecMulAcc(o, v.w, u, c.nInput, x[b*c.nInput:])
		if c.aux >= 0 {
			arch.MatVecMulAcc(o, v.aux, u, c.nAux, aux[b*c.nAux:])
		}
		arch.MatVecMulAcc(o, v.rec, u, u, h[b*u:])
	}
	for b := 0; b < batch; b++ {
		o := out[b*outStride : b*outStride+u]
		applyActivationFloat(o, act)
		copy(h[b*u:b*u+u], o)
	}
}

// rnnHybridScratch is the scratch the hybrid step uses: quantised values
// (batch rows of the widest operand), per-row scaling factors and zero
// points, and an int32 accumulator of units.
type rnnHybridScratch struct {
	q   []int8
	sf  []float32
	zp  []int32
	acc []int32
}

// rnnHybridScratchIDs are the scratch buffer ids of rnnHybridScratch.
type rnnHybridScratchIDs struct{ q, sf, zp, acc int }

// request asks for the hybrid scratch of batch rows of up to width values
// and an accumulator of units.
func (s *rnnHybridScratchIDs) request(n *ops.Node, batch, width, units int) {
	s.q = n.RequestScratch(scratchBytes[int8](batch * width))
	s.sf = n.RequestScratch(scratchBytes[float32](batch))
	s.zp = n.RequestScratch(scratchBytes[int32](batch))
	s.acc = n.RequestScratch(scratchBytes[int32](units))
}

// views returns the hybrid scratch for this Eval.
func (s *rnnHybridScratchIDs) views(n *ops.Node, batch, width, units int) (rnnHybridScratch, error) {
	var v rnnHybridScratch
	var ok1, ok2, ok3, ok4 bool
	v.q, ok1 = scratchView[int8](scratchOf(n, s.q), batch*width)
	v.sf, ok2 = scratchView[float32](scratchOf(n, s.sf), batch)
	v.zp, ok3 = scratchView[int32](scratchOf(n, s.zp), batch)
	v.acc, ok4 = scratchView[int32](scratchOf(n, s.acc), units)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return v, errScratch
	}
	return v, nil
}

// stepHybrid is stepFloat for int8 weights (TFLite's hybrid RnnBatchStep):
// each of x, aux and h is skipped when it is all zeros (over the whole
// batch), else quantised per batch row (asymmetrically when asym) and
// multiplied with its int8 weights, the int32 products rescaled by the row's
// scaling factor times the weight scale.
func (c *rnnCell) stepHybrid(v *rnnCellTensors, x, aux []float32, batch int, act ops.Activation, asym bool,
	h, out []float32, outStride int, s *rnnHybridScratch) {
	u := c.units
	if asym && !c.rowSumsReady {
		c.computeRowSums(v)
	}
	var inSums, auxSums, recSums []int32
	if asym {
		inSums, auxSums, recSums = c.rowSumParts()
	}
	for b := 0; b < batch; b++ {
		copy(out[b*outStride:b*outStride+u], v.bias[:u])
	}
	c.hybridTerm(v.wq, c.nInput, x, batch, c.wScale, inSums, asym, out, outStride, s)
	if c.aux >= 0 {
		c.hybridTerm(v.auxq, c.nAux, aux, batch, c.auxScale, auxSums, asym, out, outStride, s)
	}
	c.hybridTerm(v.recq, u, h, batch, c.recScale, recSums, asym, out, outStride, s)
	for b := 0; b < batch; b++ {
		o := out[b*outStride : b*outStride+u]
		applyActivationFloat(o, act)
		copy(h[b*u:b*u+u], o)
	}
}

// hybridTerm adds m·in (in: batch rows of cols floats) to the output rows
// through dynamic quantisation, skipping an all-zero in as TFLite does.
func (c *rnnCell) hybridTerm(m []int8, cols int, in []float32, batch int, wScale float32, rowSums []int32,
	asym bool, out []float32, outStride int, s *rnnHybridScratch) {
	u := c.units
	in = in[:batch*cols]
	if isZeroFloat(in) {
		return
	}
	batchQuantizeFloats(in, batch, cols, s.q, s.sf, s.zp, asym)
	for b := 0; b < batch; b++ {
		sf := float32(s.sf[b] * wScale)
		hybridMatVecAcc(out[b*outStride:b*outStride+u], m, u, cols, s.q[b*cols:b*cols+cols], sf, s.zp[b], rowSums, s.acc)
	}
}

// rnnActivation reads and checks a fused activation option.
func rnnActivation(act ops.Activation) error {
	if !activationSupported(act) {
		return fmt.Errorf("fused activation %s is not supported (TFLite's RNN kernels apply NONE, RELU, RELU_N1_TO_1, RELU6, TANH or SIGN_BIT)", act)
	}
	return nil
}
