package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// EmbeddingLookup is the kernel of TFLite's EMBEDDING_LOOKUP operator: row
// ids[i] of the value table for every id.
//
// Inputs: 0 ids (1-D int32), 1 value table (rank ≥ 2, rows along dimension
// 0). Output 0 is [len(ids), value.shape[1:]...]. When the output has the
// table's type, rows are copied bytewise. A float32 output with an int8 or
// uint8 table dequantises (TFLite's EvalHybrid): out = q·scale, with one
// scale or one per row (quantized_dimension 0); the zero point must be 0
// and, as in TFLite, uint8 table bytes are read as int8. An id outside
// [0, rows) makes Eval fail with an error naming it. Packed int4
// (version 4) and int2 (version 5) tables with a float32 output dequantise
// as TFLite's Unpack4Bit/Unpack2Bit: out = float32(q·16)·(scale/16) (int2:
// q·64 and scale/64). As there, a row starts at byte (id·row elements)/2
// (int2: /4) rounded down, from its lowest bits: with an odd row length
// (int2: not a multiple of 4) a row then begins with the previous row's
// last values, TFLite's own behaviour, reproduced. Matches TFLite's
// embedding_lookup.cc (blockwise tables are not supported).
type EmbeddingLookup struct {
	rows, rowElems, rowBytes int
	hybrid                   bool
	packed                   ops.DataType // Int4 or Int2 table, else 0
	scales                   []float32
}

// NewEmbeddingLookup returns an EMBEDDING_LOOKUP kernel for one node.
func NewEmbeddingLookup() ops.Kernel { return &EmbeddingLookup{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpEmbeddingLookup, NewEmbeddingLookup, [2]int{1, 5})
}

// Prepare validates the node and sets the output shape.
func (k *EmbeddingLookup) Prepare(n *ops.Node) error {
	*k = EmbeddingLookup{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	ids, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	val, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if ids.Type != ops.Int32 || ids.Rank() != 1 {
		return fmt.Errorf("input 0 (ids): %s%v, need a 1-D int32 tensor", ids.Type, ids.Shape)
	}
	if val.Rank() < 2 {
		return fmt.Errorf("input 1 (value): rank %d, need at least 2", val.Rank())
	}
	if val.Type.Size() == 0 && val.Type != ops.Int4 && val.Type != ops.Int2 {
		return fmt.Errorf("input 1 (value): type %s is not supported", val.Type)
	}
	if _, err := numElementsChecked(val, "input 1 (value)"); err != nil {
		return err
	}
	k.rows = val.Shape[0]
	k.rowElems = 1
	for _, d := range val.Shape[1:] {
		k.rowElems *= d
	}
	switch {
	case out.Type == val.Type && val.Type.PackedBits() == 0:
		k.rowBytes = k.rowElems * val.Type.Size()
	case out.Type == ops.Float32 && (val.Type == ops.Int8 || val.Type == ops.Uint8 || val.Type == ops.Int4 || val.Type == ops.Int2):
		k.hybrid = true
		if val.Type.PackedBits() != 0 {
			k.packed = val.Type
		}
		q := val.Quant
		if q == nil || len(q.Scale) == 0 {
			return fmt.Errorf("input 1 (value): %s table with a float32 output needs quantization parameters", val.Type)
		}
		if len(q.ZeroPoint) > 0 && q.ZeroPoint[0] != 0 {
			return fmt.Errorf("input 1 (value): zero point %d, need 0 (symmetric)", q.ZeroPoint[0])
		}
		if len(q.Scale) > 1 && (q.QuantizedDimension != 0 || len(q.Scale) != k.rows) {
			return fmt.Errorf("input 1 (value): %d scales along dimension %d, need one per row along dimension 0", len(q.Scale), q.QuantizedDimension)
		}
		for i, s := range q.Scale {
			if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
				return fmt.Errorf("input 1 (value): scale %d is %g", i, s)
			}
		}
		k.scales = q.Scale
	default:
		return fmt.Errorf("output 0: type %s not supported with a %s table (need %s, or float32 for int8/uint8/int4/int2)", out.Type, val.Type, val.Type)
	}
	shape := copyShape(val.Shape)
	shape[0] = ids.Shape[0]
	if _, err := ops.ShapeElements(shape, out.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	return nil
}

// embeddingIndexError reports an id outside the table.
type embeddingIndexError struct{ pos, id, rows int }

func (e embeddingIndexError) Error() string {
	return fmt.Sprintf("input 0 (ids): id %d at position %d is outside [0, %d)", e.id, e.pos, e.rows)
}

// Eval copies or dequantises the rows.
func (k *EmbeddingLookup) Eval(n *ops.Node) error {
	ids, val, out := n.Input(0), n.Input(1), n.Output(0)
	if ids == nil || val == nil || out == nil {
		return errors.New("EMBEDDING_LOOKUP: input or output missing at Eval")
	}
	if err := checkData(ids, val, out); err != nil {
		return err
	}
	if k.rows == 0 {
		return nil // TFLite propagates the empty table
	}
	var o []float32
	var q []int8
	if k.hybrid {
		o, q = out.Float32s(), ops.View[int8](val.Data)
	}
	for i, id := range ids.Int32s()[:ids.NumElements()] {
		if id < 0 || int(id) >= k.rows {
			return embeddingIndexError{i, int(id), k.rows}
		}
		r := int(id)
		if !k.hybrid {
			copy(out.Data[i*k.rowBytes:(i+1)*k.rowBytes], val.Data[r*k.rowBytes:(r+1)*k.rowBytes])
			continue
		}
		s := k.scales[0]
		if len(k.scales) > 1 {
			s = k.scales[r]
		}
		dst := o[i*k.rowElems : (i+1)*k.rowElems]
		if k.packed != 0 {
			k.unpackRow(dst, val.Data, r, s)
			continue
		}
		for j, v := range q[r*k.rowElems : (r+1)*k.rowElems] {
			dst[j] = float32(v) * s
		}
	}
	return nil
}

// unpackRow dequantises row r of a packed int4 or int2 table as TFLite's
// Unpack4Bit/Unpack2Bit: the row starts at byte (r·rowElems)>>1 (>>2 for
// int2), from the byte's lowest bits; each value is scaled as the int8
// q·2^(8−bits) times s/2^(8−bits).
func (k *EmbeddingLookup) unpackRow(dst []float32, data []byte, r int, s float32) {
	per := 2 // values per byte
	if k.packed == ops.Int2 {
		per = 4
	}
	mul := float32(int(1) << (8 - 8/per))
	f := s / mul
	base := (r * k.rowElems) / per * per // first value of the start byte
	for j := range dst {
		q := loadPacked(k.packed, data, base+j)
		dst[j] = float32(int8(q*int32(mul))) * f
	}
}
