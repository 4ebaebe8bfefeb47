package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// ReverseSequence is the kernel of TFLite's REVERSE_SEQUENCE operator: for
// every index b along batch_dim, the first seq_lengths[b] slices of input
// 0 along seq_dim are reversed and the rest copied:
//
//	out[..., b, ..., s, ...] = in[..., b, ..., seq_lengths[b]−1−s, ...]  (s < seq_lengths[b])
//
// Input 1 (seq_lengths, int32 or int64, shape [input.shape[batch_dim]]) is
// read at Eval. A length of 0 or less leaves its batch unchanged, as in
// TFLite; a length beyond the seq_dim size fails Eval (TFLite checks only
// the first length and then writes out of bounds for the others; tflrun
// checks every one). seq_dim and batch_dim must differ and lie in [0,
// rank). Types, as TFLite's reverse_sequence.cc: float32, uint8, int16,
// int32, int64 (not int8). Version 1, as TFLite's register.cc.
type ReverseSequence struct {
	seqDim, batchDim int
	outer, medium    int // products of the dimensions before min(dims) and between the two
	dimOuter, dimMed int // sizes of the outer and the inner of the two dimensions
	copyBytes        int // bytes of one contiguous run after max(dims)
	seqSize          int
	batchOuter       bool // batch_dim < seq_dim
	seqIdx64         bool
	empty            bool
}

// ReverseSequenceOptions is TFLite's ReverseSequenceOptions.
type ReverseSequenceOptions struct {
	SeqDim, BatchDim int
}

// NewReverseSequence returns a REVERSE_SEQUENCE kernel for one node.
func NewReverseSequence() ops.Kernel { return &ReverseSequence{} }

func init() {
	register(ops.OpReverseSequence, NewReverseSequence, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsReverseSequenceOptions, decodeReverseSequenceOptions)
}

// decodeReverseSequenceOptions decodes TFLite's ReverseSequenceOptions
// table.
func decodeReverseSequenceOptions(t ops.OptionsTable) (any, error) {
	var o schema.ReverseSequenceOptions
	initTable(&o, t)
	return &ReverseSequenceOptions{SeqDim: int(o.SeqDim()), BatchDim: int(o.BatchDim())}, nil
}

// Prepare validates the node and gives the output the input's shape.
func (k *ReverseSequence) Prepare(n *ops.Node) error {
	*k = ReverseSequence{}
	var opts ReverseSequenceOptions
	if o, ok := n.Options.(*ReverseSequenceOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ReverseSequenceOptions", n.Options)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	sl, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if sl.Rank() != 1 {
		return fmt.Errorf("input 1 (seq_lengths): shape %v, need a vector", sl.Shape)
	}
	if err := requireType(in, "input 0", ops.Int32, ops.Float32, ops.Uint8, ops.Int16, ops.Int64); err != nil {
		return err
	}
	if err := requireType(sl, "input 1 (seq_lengths)", ops.Int32, ops.Int64); err != nil {
		return err
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	cnt, err := numElementsChecked(in, "input 0")
	if err != nil {
		return err
	}
	sd, bd, rank := opts.SeqDim, opts.BatchDim, in.Rank()
	if sd < 0 || bd < 0 || sd == bd || sd >= rank || bd >= rank {
		return fmt.Errorf("options: seq_dim %d and batch_dim %d must differ and lie in [0, %d)", sd, bd, rank)
	}
	if sl.Shape[0] != in.Shape[bd] {
		return fmt.Errorf("input 1 (seq_lengths): %d lengths, batch dimension %d has %d", sl.Shape[0], bd, in.Shape[bd])
	}
	lo, hi := min(sd, bd), max(sd, bd)
	k.seqDim, k.batchDim = sd, bd
	k.outer, k.medium, k.copyBytes = 1, 1, in.Type.Size()
	for i, d := range in.Shape {
		switch {
		case i < lo:
			k.outer *= d
		case i > lo && i < hi:
			k.medium *= d
		case i > hi:
			k.copyBytes *= d
		}
	}
	k.dimOuter, k.dimMed = in.Shape[lo], in.Shape[hi]
	k.seqSize = in.Shape[sd]
	k.batchOuter = bd < sd
	k.seqIdx64 = sl.Type == ops.Int64
	k.empty = cnt == 0
	out.Shape = copyShape(in.Shape)
	return nil
}

// reverseSequenceLengthError reports a length beyond the sequence
// dimension; a value type, so that returning it does not allocate.
type reverseSequenceLengthError struct {
	pos      int
	length   int64
	seqSize  int
	dimIndex int
}

func (e reverseSequenceLengthError) Error() string {
	return fmt.Sprintf("input 1 (seq_lengths): entry %d is %d, beyond the size %d of seq_dim %d", e.pos, e.length, e.seqSize, e.dimIndex)
}

// Eval reverses the sequences: it walks the input in order and sends each
// run to its place, as TFLite's reference ReverseSequence.
func (k *ReverseSequence) Eval(n *ops.Node) error {
	in, sl, out := n.Input(0), n.Input(1), n.Output(0)
	if in == nil || sl == nil || out == nil {
		return errors.New("REVERSE_SEQUENCE: input or output missing at Eval")
	}
	if err := checkData(in, sl, out); err != nil {
		return err
	}
	nb := sl.Shape[0]
	length := func(b int) int64 {
		if k.seqIdx64 {
			return sl.Int64s()[b]
		}
		return int64(sl.Int32s()[b])
	}
	for b := 0; b < nb; b++ {
		if l := length(b); l > int64(k.seqSize) {
			return reverseSequenceLengthError{b, l, k.seqSize, k.seqDim}
		}
	}
	if k.empty {
		return nil
	}
	src, dst, cb := in.Data, out.Data, k.copyBytes
	for i := 0; i < k.outer; i++ {
		for j := 0; j < k.dimOuter; j++ {
			base := (i*k.dimOuter + j) * k.medium
			for p := 0; p < k.medium; p++ {
				for q := 0; q < k.dimMed; q++ {
					// j runs along the outer of the two dimensions, q
					// along the inner; one is the batch, the other the
					// sequence position.
					b, s := q, j
					if k.batchOuter {
						b, s = j, q
					}
					at := ((base+p)*k.dimMed + q) * cb
					to := at
					if l := length(b); int64(s) < l {
						r := int(l) - 1 - s
						if k.batchOuter {
							to = ((base+p)*k.dimMed + r) * cb
						} else {
							to = (((i*k.dimOuter+r)*k.medium+p)*k.dimMed + q) * cb
						}
					}
					copy(dst[to:to+cb], src[at:at+cb])
				}
			}
		}
	}
	return nil
}
