package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Unique is the kernel of TFLite's UNIQUE operator: for a vector x (input
// 0), output 0 holds its distinct values in the order of their first
// occurrence and output 1 (shape of x) the position in output 0 of each
// element of x, as TFLite's unique.cc. Output 1's type is
// UniqueOptions.IdxOutType: int64 when the options say INT64, int32 for
// any other type; a node without options is refused (TFLite's parser
// leaves the type unset, which its Prepare refuses). Output 0 is a dynamic
// tensor, sized at Eval. Types: int8, int16, int32, int64, float32, uint8
// (values are copied, so quantised tensors keep their parameters; output 0
// must have x's type). Floats compare as numbers: −0 equals +0 (the first
// seen is kept); each NaN is a value of its own, as TensorFlow's Unique
// (TFLite's ordered map gives NaN an ill-defined position). Version 1, as
// TFLite's register.cc.
type Unique struct {
	typ   ops.DataType
	idx64 bool
	seen  map[uint64]int32  // value bits → position (integers)
	seenF map[float32]int32 // float32 value → position
	// positions and firsts are Eval's buffers: the output-0 position of
	// each input element, the input position of each distinct value.
	positions, firsts []int32
	outShape          [1]int
}

// UniqueOptions is TFLite's UniqueOptions: the type of the index output.
type UniqueOptions struct {
	IdxOutType ops.DataType
}

// NewUnique returns a UNIQUE kernel for one node.
func NewUnique() ops.Kernel { return &Unique{} }

func init() {
	register(ops.OpUnique, NewUnique, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsUniqueOptions, decodeUniqueOptions)
}

// decodeUniqueOptions decodes TFLite's UniqueOptions table.
func decodeUniqueOptions(t ops.OptionsTable) (any, error) {
	var o schema.UniqueOptions
	initTable(&o, t)
	return &UniqueOptions{IdxOutType: ops.DataType(o.IdxOutType())}, nil
}

// Prepare checks the vector and the outputs' types, sizes output 1 and
// marks output 0 dynamic.
func (k *Unique) Prepare(n *ops.Node) error {
	*k = Unique{}
	o, ok := n.Options.(*UniqueOptions)
	if !ok || o == nil {
		if n.Options != nil {
			return fmt.Errorf("options: have %T, need *UniqueOptions", n.Options)
		}
		return errors.New("options: UniqueOptions missing (TFLite needs its idx_out_type)")
	}
	k.idx64 = o.IdxOutType == ops.Int64
	if err := n.CheckIO(1, 1, 2); err != nil {
		return err
	}
	x, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if err := requireType(x, "input 0", ops.Int8, ops.Int16, ops.Int32, ops.Int64, ops.Float32, ops.Uint8); err != nil {
		return err
	}
	if x.Rank() != 1 {
		return fmt.Errorf("input 0: shape %v, UNIQUE needs a vector", x.Shape)
	}
	vals, idx := n.Output(0), n.Output(1)
	if vals == nil || idx == nil {
		return errors.New("outputs 0 and 1 are both needed")
	}
	if vals.Type != x.Type {
		return fmt.Errorf("output 0: type %s differs from the input's %s", vals.Type, x.Type)
	}
	wantIdx := ops.Int32
	if k.idx64 {
		wantIdx = ops.Int64
	}
	if idx.Type != wantIdx {
		return fmt.Errorf("output 1: type %s, the options' idx_out_type gives %s", idx.Type, wantIdx)
	}
	if x.Shape[0] > math.MaxInt32 {
		return fmt.Errorf("input 0: %d elements, at most 2^31-1", x.Shape[0])
	}
	k.typ = x.Type
	if k.typ == ops.Float32 {
		k.seenF = map[float32]int32{}
	} else {
		k.seen = map[uint64]int32{}
	}
	k.positions = make([]int32, x.Shape[0])
	k.firsts = make([]int32, 0, x.Shape[0])
	idx.Shape = copyShape(x.Shape)
	return n.SetOutputDynamic(0)
}

// Eval finds the distinct values, then sizes and writes output 0.
func (k *Unique) Eval(n *ops.Node) error {
	x, vals, idx := n.Input(0), n.Output(0), n.Output(1)
	if x == nil || vals == nil || idx == nil {
		return errors.New("UNIQUE: input or output missing at Eval")
	}
	if x.Type != k.typ || x.Rank() != 1 {
		return fmt.Errorf("input 0: %s %v at Eval, prepared for a %s vector", x.Type, x.Shape, k.typ)
	}
	if idx.NumElements() != x.NumElements() {
		return fmt.Errorf("output 1: shape %v, the input has %d elements", idx.Shape, x.NumElements())
	}
	if err := checkData(x, idx); err != nil {
		return err
	}
	clear(k.seen)
	clear(k.seenF)
	count := x.NumElements()
	eb := k.typ.Size()
	if len(k.positions) != count {
		return fmt.Errorf("input 0: %d elements at Eval, prepared for %d", count, len(k.positions))
	}
	firsts, positions := k.firsts[:0], k.positions
	for i := range count {
		var pos int32
		var found bool
		if k.typ == ops.Float32 {
			v := x.Float32s()[i]
			if pos, found = k.seenF[v]; !found && v == v {
				k.seenF[v] = int32(len(firsts))
			}
		} else {
			key := loadBits(x.Data[i*eb:], eb)
			if pos, found = k.seen[key]; !found {
				k.seen[key] = int32(len(firsts))
			}
		}
		if !found {
			pos = int32(len(firsts))
			firsts = append(firsts, int32(i))
		}
		positions[i] = pos
	}
	k.outShape[0] = len(firsts)
	if err := n.ResizeOutput(0, k.outShape[:]); err != nil {
		return err
	}
	if err := checkData(vals); err != nil {
		return err
	}
	for j, i := range firsts {
		copy(vals.Data[j*eb:(j+1)*eb], x.Data[int(i)*eb:])
	}
	if k.idx64 {
		o := idx.Int64s()
		for i, p := range positions {
			o[i] = int64(p)
		}
	} else {
		copy(idx.Int32s(), positions)
	}
	return nil
}

// loadBits reads an element of eb bytes (1, 2, 4 or 8) as its bit pattern.
func loadBits(b []byte, eb int) uint64 {
	var v uint64
	for j := eb - 1; j >= 0; j-- {
		v = v<<8 | uint64(b[j])
	}
	return v
}
