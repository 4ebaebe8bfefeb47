package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// This file holds the Prepare-time checks the RNN, SVDF and GRU kernels
// share. Every error names the input by its position, its role in the
// operator (the names TFLite's kernels use) and the model tensor, so a
// user can find the offending tensor in the model.

// ioRoles names the inputs of one operator, in input order.
type ioRoles []string

// label is "input 2 (recurrent_weights, tensor 7 "rnn/rw")", the form errors
// use.
func (r ioRoles) label(n *ops.Node, i int) string {
	role := "?"
	if i >= 0 && i < len(r) {
		role = r[i]
	}
	t := n.Input(i)
	switch {
	case t == nil:
		return fmt.Sprintf("input %d (%s)", i, role)
	case t.Name == "":
		return fmt.Sprintf("input %d (%s, tensor %d)", i, role, t.Index)
	default:
		return fmt.Sprintf("input %d (%s, tensor %d %q)", i, role, t.Index, t.Name)
	}
}

// require returns input i, or an error naming it when it is omitted.
func (r ioRoles) require(n *ops.Node, i int) (*ops.Tensor, error) {
	t := n.Input(i)
	if t == nil {
		return nil, fmt.Errorf("%s is required but omitted", r.label(n, i))
	}
	return t, nil
}

// shape checks that input i has exactly the dimensions dims.
func (r ioRoles) shape(n *ops.Node, i int, dims ...int) error {
	t := n.Input(i)
	if !ops.SameShape(t.Shape, dims) {
		return fmt.Errorf("%s has shape %v, needs %v", r.label(n, i), t.Shape, dims)
	}
	return nil
}

// rank checks that input i has rank k.
func (r ioRoles) rank(n *ops.Node, i, k int) error {
	t := n.Input(i)
	if t.Rank() != k {
		return fmt.Errorf("%s has shape %v, needs rank %d", r.label(n, i), t.Shape, k)
	}
	return nil
}

// dtype checks that input i has type want; path names the kernel path
// ("float", "hybrid", …) for the message.
func (r ioRoles) dtype(n *ops.Node, i int, want ops.DataType, path string) error {
	t := n.Input(i)
	if t.Type != want {
		return fmt.Errorf("%s is %s, the %s path needs %s", r.label(n, i), t.Type, path, want)
	}
	return nil
}

// state checks that input i is a variable tensor of rank len(dims) whose
// dimensions after the first equal dims[1:], and sets its batch dimension
// (the first) to dims[0]. The batch dimension follows the input's, so a
// resized input re-sizes the state at the next AllocateTensors (the
// interpreter allocates variable tensors after every Prepare has run).
func (r ioRoles) state(n *ops.Node, i int, dims ...int) error {
	t, err := r.require(n, i)
	if err != nil {
		return err
	}
	if t.Kind != ops.VariableTensor {
		return fmt.Errorf("%s is not a variable tensor (the state must be declared is_variable)", r.label(n, i))
	}
	if t.Rank() != len(dims) {
		return fmt.Errorf("%s has shape %v, needs rank %d %v", r.label(n, i), t.Shape, len(dims), dims)
	}
	for d := 1; d < len(dims); d++ {
		if t.Shape[d] != dims[d] {
			return fmt.Errorf("%s has shape %v, needs %v", r.label(n, i), t.Shape, dims)
		}
	}
	if t.Shape[0] != dims[0] {
		if _, err := ops.ShapeElements(dims, t.Type.Size()); err != nil {
			return fmt.Errorf("%s: %v", r.label(n, i), err)
		}
		t.Shape = append([]int(nil), dims...)
	}
	return nil
}

// hybridWeightScale returns the per-tensor scale of the weight input i of
// a hybrid kernel, which reads it as TFLite's params.scale. The weights
// must have type want: int8, or uint8 holding the same int8 bit patterns
// (the legacy hybrid form, which TFLite's kernels read as int8). It
// refuses unquantised or per-channel weights and non-zero zero points
// (TFLite's hybrid kernels assume symmetric per-tensor weights and would
// silently ignore anything else).
func (r ioRoles) hybridWeightScale(n *ops.Node, i int, want ops.DataType) (float32, error) {
	t := n.Input(i)
	if t.Type != want {
		return 0, fmt.Errorf("%s is %s, the hybrid path needs %s weights like the others", r.label(n, i), t.Type, want)
	}
	return r.symmetricScale(n, i)
}

// symmetricScale returns input i's per-tensor quantisation scale and
// checks that it is finite and positive, that there is one scale, and
// that the zero point is 0.
func (r ioRoles) symmetricScale(n *ops.Node, i int) (float32, error) {
	s, zp, err := r.perTensor(n, i)
	if err != nil {
		return 0, err
	}
	if zp != 0 {
		return 0, fmt.Errorf("%s has zero point %d; it must be symmetric (zero point 0)", r.label(n, i), zp)
	}
	return s, nil
}

// perTensor returns input i's single quantisation scale and zero point,
// refusing missing, per-channel, non-finite or non-positive scales.
func (r ioRoles) perTensor(n *ops.Node, i int) (float32, int32, error) {
	return perTensorQuantOf(n.Input(i), r.label(n, i))
}

// perTensorQuantOf is perTensor for any tensor, labelled by what.
func perTensorQuantOf(t *ops.Tensor, what string) (float32, int32, error) {
	q := t.Quant
	if q == nil || len(q.Scale) == 0 {
		return 0, 0, fmt.Errorf("%s (%s) has no quantization parameters", what, t.Type)
	}
	if len(q.Scale) != 1 {
		return 0, 0, fmt.Errorf("%s has %d scales (per-channel); this kernel needs one per-tensor scale", what, len(q.Scale))
	}
	s := q.Scale[0]
	if !(s > 0) || s > 3.4e38 {
		return 0, 0, fmt.Errorf("%s has scale %g, needs a finite scale > 0", what, s)
	}
	var zp int64
	if len(q.ZeroPoint) > 0 {
		zp = q.ZeroPoint[0]
	}
	if lo, hi, ok := ops.TypeRange(t.Type); ok && (zp < int64(lo) || zp > int64(hi)) {
		return 0, 0, fmt.Errorf("%s has zero point %d outside the %s range", what, zp, t.Type)
	}
	return s, int32(zp), nil
}

// activationSupported reports whether act is one of TFLite's fused
// activations that ApplyActivationToVector implements (NONE is a no-op).
func activationSupported(act ops.Activation) bool {
	return act == ops.ActNone || floatActivationSupported(act)
}

// ioSizes records, at Prepare, the byte size Eval needs in each input,
// and checks it at Eval, so that a buffer shorter than its shape is an
// error rather than an out-of-range panic.
type ioSizes struct {
	in  []int
	out []int
}

// record stores the current byte sizes of n's inputs and outputs.
func (d *ioSizes) record(n *ops.Node) {
	d.in = d.in[:0]
	for _, t := range n.Inputs {
		size := 0
		if t != nil {
			size = t.Bytes()
		}
		d.in = append(d.in, size)
	}
	d.out = d.out[:0]
	for _, t := range n.Outputs {
		size := 0
		if t != nil {
			size = t.Bytes()
		}
		d.out = append(d.out, size)
	}
}

// errUnprepared is returned by Eval before a successful Prepare.
var errUnprepared = fmt.Errorf("Eval before a successful Prepare")

// errTensorShort is returned by Eval when a tensor holds fewer bytes than
// its Prepare-time shape needs.
var errTensorShort = fmt.Errorf("a tensor holds fewer bytes than its prepared shape needs (tensors not allocated?)")

// check verifies that n's tensors hold the recorded sizes. It allocates
// nothing.
func (d *ioSizes) check(n *ops.Node) error {
	if len(n.Inputs) != len(d.in) || len(n.Outputs) != len(d.out) {
		return errUnprepared
	}
	for i, need := range d.in {
		if need == 0 {
			continue
		}
		if t := n.Inputs[i]; t == nil || len(t.Data) < need {
			return errTensorShort
		}
	}
	for i, need := range d.out {
		if need == 0 {
			continue
		}
		if t := n.Outputs[i]; t == nil || len(t.Data) < need {
			return errTensorShort
		}
	}
	return nil
}

// outputShape sets output i's shape to dims (a fresh slice) after checking
// that the output exists.
func outputShape(n *ops.Node, i int, dims ...int) (*ops.Tensor, error) {
	t := n.Output(i)
	if t == nil {
		return nil, fmt.Errorf("output %d is missing", i)
	}
	if _, err := ops.ShapeElements(dims, t.Type.Size()); err != nil {
		return nil, fmt.Errorf("output %d: %v", i, err)
	}
	t.Shape = append([]int(nil), dims...)
	return t, nil
}
