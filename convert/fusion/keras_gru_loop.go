package fusion

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// KerasGRULoop is the loop rule for Keras GRU layers that carry no
// api_implements annotation (an activation other than tanh, a
// recurrent_dropout, reset_after=False in TF 2, every Keras 3 export, TF1
// graphs functionalised by package controlflow): a loop of the
// keras.backend.rnn shape (see loop.go) with one float state whose body
// computes, with the kernel's column blocks in Keras's order z, r, h,
//
//	z = σ(x·W_z + b_z + h·R_z + b'_z),  r = σ(x·W_r + b_r + h·R_r + b'_r)
//	reset_after:  h̃ = act(x·W_h + b_h + r⊙(h·R_h + b'_h))
//	otherwise:    h̃ = act(x·W_h + b_h + (r⊙h)·R_h)
//	h' = z⊙h + (1−z)⊙h̃
//
// found by structure (loop_cell.go; the form follows from whether the
// candidate's recurrent product multiplies the state or r⊙h) and confirmed
// on probe values. It emits the custom UNIDIRECTIONAL_SEQUENCE_GRU as
// KerasGRU does (weights laid out by gruWeights), time-major over the
// sequence the loop walks; the stacked outputs become its output and the
// final state (return_state, the last output) its second output.
//
// Refused with the reason: gates other than sigmoid, a candidate
// activation other than tanh (the operator has no activation option), an
// initial state computed at run time inside the model (one fed from a
// model input becomes the operator's state tensor, see state.go), other
// loop outputs in use. A loop
// whose products are not a GRU's is not this rule's.
type KerasGRULoop struct{}

// Name implements Rule.
func (KerasGRULoop) Name() string { return "keras-gru-loop" }

// Fuse implements Rule.
func (r KerasGRULoop) Fuse(s *Site) (Result, error) { return refusalResult(r.fuse(s)) }

func (r KerasGRULoop) fuse(s *Site) (Result, error) {
	L, err := s.analysedLoop()
	if err != nil {
		var ref *refusal
		if errors.As(err, &ref) {
			return Result{}, nil // not a Keras recurrent loop
		}
		return Result{}, err
	}
	if len(L.states) != 1 {
		return Result{}, nil
	}
	cells := gruCandidates(L)
	if len(cells) == 0 {
		return Result{}, nil
	}
	u := cells[0].units
	probe, err := L.gruProbe()
	if err != nil {
		return Result{}, err
	}
	var cell *gruCell
	best := gruFit{diff: -1}
	for _, c := range cells {
		f := probe.fit(c)
		if best.diff < 0 || f.diff < best.diff {
			best, cell = f, c
		}
		if f.diff <= cellTolerance {
			break
		}
	}
	if err := best.check(cell); err != nil {
		return Result{}, err
	}
	f, name := s.Caller, s.Call.Name
	uses := f.Uses()
	for i, o := range L.while.Outputs {
		if i == L.states[0] || i == L.outList || len(uses[o]) == 0 && !f.IsResult(o) {
			continue
		}
		return Result{}, refuse("loop output %d (%s) is used; only the outputs and the final state can be", i, o.Name)
	}
	hOut := L.while.Outputs[L.states[0]]
	use, err := initialState(f, "h", L.while.Inputs[L.states[0]], []stateOut{{hOut, fmt.Sprintf("loop output %d", L.states[0])}}, true)
	if err != nil {
		return Result{}, err
	}
	seqTM, final, st, err := emitSequenceGRU(f, name+"/gru", L.seq, gruWeights(cell), use.stateTensor())
	if err != nil {
		releaseInputs(use)
		return Result{}, err
	}
	use.tensor = st
	bindStates([]*stateUse{use})
	ops := []string{GRUCustomName}
	if L.stack != nil {
		if L.writeAll {
			f.ReplaceAllUses(L.stack, seqTM)
		} else {
			f.ReplaceAllUses(L.stack, emitReshape(f, name+"/last_output_sequence", final, ir.Shape{1, L.batch, u}))
			ops = append(ops, "RESHAPE")
		}
	}
	if len(f.Uses()[hOut]) > 0 || f.IsResult(hOut) {
		f.ReplaceAllUses(hOut, final)
	}
	L.detachSizes(f)
	return Result{Fused: true, Ops: ops, Reason: gruNote(cell) + "; " + layoutNote(L, 0, stateNotes([]*stateUse{use}))}, nil
}

// gruNote says which GRU form was written and whether TensorFlow Lite can
// run it.
func gruNote(cell *gruCell) string {
	if cell.resetAfter {
		return "reset_after=True (tflrun's 7-input GRU form; TensorFlow Lite cannot run it: its experimental kernel takes 6 inputs)"
	}
	return "reset_after=False (TFLite's GRU cell; TensorFlow Lite runs it only with its experimental UNIDIRECTIONAL_SEQUENCE_GRU custom op registered)"
}

// gruCandidates returns the GRU cells L's body may compute, read from its
// products (see loop_cell.go), or nil when they are not a GRU's.
func gruCandidates(L *loopInfo) []*gruCell {
	cs := L.cellProducts()
	if cs == nil {
		return nil
	}
	u := L.stateShapes[0][1]
	blockOK := func(p *cellProduct, rows, cols int) bool {
		return p != nil && p.kernel.Shape.Equal(ir.Shape{rows, cols})
	}
	switch {
	case len(cs.in) == 1 && len(cs.rec) == 1:
		// implementation=2, reset_after.
		in, rec := cs.in[0], cs.rec[0]
		if !blockOK(in, L.nIn, 3*u) || !blockOK(rec, u, 3*u) || rec.src != 0 {
			return nil
		}
		return []*gruCell{newGRUCell(L.nIn, u, true, []*cellProduct{in}, []*cellProduct{rec})}
	case len(cs.in) == 1 && len(cs.rec) == 2:
		// implementation=2, reset before the product: h·R_zr and
		// (r⊙h)·R_h.
		in, zr, h := cs.in[0], cs.rec[0], cs.rec[1]
		if zr.src != 0 {
			zr, h = h, zr
		}
		if !blockOK(in, L.nIn, 3*u) || !blockOK(zr, u, 2*u) || !blockOK(h, u, u) || zr.src != 0 || h.src != srcComputed {
			return nil
		}
		return []*gruCell{newGRUCell(L.nIn, u, false, []*cellProduct{in}, []*cellProduct{zr, h})}
	case len(cs.in) == 2 && len(cs.rec) == 2:
		// TF1's GRUCell: [x, h]·gate_kernel (r, then u) and [x, r⊙h]·
		// candidate_kernel, each split into its input and recurrent
		// rows (loop_cell.go), the gate bias on the first.
		gi, ci := cs.in[0], cs.in[1]
		if gi.kernel.Shape[1] != 2*u {
			gi, ci = ci, gi
		}
		gr, cr := gi.partner, ci.partner
		if !blockOK(gi, L.nIn, 2*u) || !blockOK(ci, L.nIn, u) || !blockOK(gr, u, 2*u) || !blockOK(cr, u, u) || gr.src != 0 || cr.src != srcComputed {
			return nil
		}
		var out []*gruCell
		for _, perm := range permutations(2) {
			split := func(p *cellProduct) []*cellProduct {
				var bs [2]*cellProduct
				for k, j := range perm {
					bs[k] = &cellProduct{kernel: colBlock(p.kernel, j*u, u), src: p.src, bias: vecPart(p.bias, j*u, u)}
				}
				return bs[:]
			}
			in := append(split(gi), ci)
			rec := append(split(gr), cr)
			out = append(out, newGRUCell(L.nIn, u, false, in, rec))
		}
		return out
	case len(cs.in) == 3 && len(cs.rec) == 3:
		// implementation=1: z and r are joined to their recurrent
		// products by an addition; the candidate's input product is not.
		var paired []*cellProduct
		var candIn, candRec *cellProduct
		partnered := map[*cellProduct]bool{}
		for _, p := range cs.in {
			if !blockOK(p, L.nIn, u) {
				return nil
			}
			if p.partner != nil {
				paired = append(paired, p)
				partnered[p.partner] = true
			} else {
				candIn = p
			}
		}
		for _, q := range cs.rec {
			if !blockOK(q, u, u) {
				return nil
			}
			if !partnered[q] {
				candRec = q
			}
		}
		if len(paired) != 2 || candIn == nil || candRec == nil || candRec.src == srcInput {
			return nil
		}
		resetAfter := candRec.src == 0
		var out []*gruCell
		for _, perm := range permutations(2) {
			z, r := paired[perm[0]], paired[perm[1]]
			out = append(out, newGRUCell(L.nIn, u, resetAfter, []*cellProduct{z, r, candIn}, []*cellProduct{z.partner, r.partner, candRec}))
		}
		return out
	}
	return nil
}

// newGRUCell assembles a GRU cell from input and recurrent products whose
// kernels, side by side, are Keras's kernel [nIn, 3u] and recurrent
// kernel [u, 3u]; their biases are the input and recurrent biases.
func newGRUCell(nIn, u int, resetAfter bool, in, rec []*cellProduct) *gruCell {
	var ws, rs, bi, br []*ir.Tensor
	for _, p := range in {
		ws, bi = append(ws, p.kernel), append(bi, p.bias)
	}
	for _, p := range rec {
		rs, br = append(rs, p.kernel), append(br, p.bias)
	}
	c := &gruCell{nIn: nIn, units: u, W: concatCols(ws...), R: concatCols(rs...), resetAfter: resetAfter}
	c.bIn = concatBiases(bi, in)
	c.bRec = concatBiases(br, rec)
	return c
}

// concatBiases joins the biases of products (zeros for a product without
// one), or returns nil when none has one.
func concatBiases(bs []*ir.Tensor, ps []*cellProduct) []float64 {
	some := false
	var out []float64
	for k, b := range bs {
		if b == nil {
			out = append(out, make([]float64, ps[k].kernel.Shape[1])...)
			continue
		}
		some = true
		out = append(out, b.Float64s()...)
	}
	if !some {
		return nil
	}
	return out
}
