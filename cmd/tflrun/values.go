package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tflrun/tflrun/ops"
)

// element returns element i of little-endian data of type typ as a
// float64 (exact for every integer type up to 2^53) and whether typ is
// readable as a number at all.
func element(typ ops.DataType, data []byte, i int) (float64, bool) {
	switch typ {
	case ops.Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))), true
	case ops.Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:])), true
	case ops.Float16:
		return float64(halfToFloat(binary.LittleEndian.Uint16(data[2*i:]))), true
	case ops.Int8:
		return float64(int8(data[i])), true
	case ops.Uint8, ops.Bool:
		return float64(data[i]), true
	case ops.Int16:
		return float64(int16(binary.LittleEndian.Uint16(data[2*i:]))), true
	case ops.Uint16:
		return float64(binary.LittleEndian.Uint16(data[2*i:])), true
	case ops.Int32:
		return float64(int32(binary.LittleEndian.Uint32(data[4*i:]))), true
	case ops.Uint32:
		return float64(binary.LittleEndian.Uint32(data[4*i:])), true
	case ops.Int64:
		return float64(int64(binary.LittleEndian.Uint64(data[8*i:]))), true
	case ops.Uint64:
		return float64(binary.LittleEndian.Uint64(data[8*i:])), true
	}
	return 0, false
}

// formatElement prints element i as its type would: integers in decimal
// (64-bit ones exactly), floats with the shortest representation that
// round-trips at their precision, bools as true/false.
func formatElement(typ ops.DataType, data []byte, i int) string {
	switch typ {
	case ops.Int64:
		return strconv.FormatInt(int64(binary.LittleEndian.Uint64(data[8*i:])), 10)
	case ops.Uint64:
		return strconv.FormatUint(binary.LittleEndian.Uint64(data[8*i:]), 10)
	case ops.Bool:
		return strconv.FormatBool(data[i] != 0)
	case ops.Float32, ops.Float16:
		v, _ := element(typ, data, i)
		return strconv.FormatFloat(v, 'g', -1, 32)
	}
	v, ok := element(typ, data, i)
	if !ok {
		return "?"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// halfToFloat converts IEEE 754 binary16 bits to float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	frac := uint32(h & 0x3ff)
	switch exp {
	case 0:
		// Zero or subnormal: frac * 2^-24.
		v := float32(frac) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | frac<<13)
}

// classScore is one entry of a top-k list.
type classScore struct {
	Class int     `json:"class"`
	Value float64 `json:"value"`
}

// topK returns the k largest elements of a numeric tensor, dequantised
// with its per-tensor scale and zero point when it is quantised; ties go
// to the lower class index.
func topK(t *ops.Tensor, k int) []classScore {
	n := t.NumElements()
	scores := make([]classScore, 0, n)
	scale, zp := float64(t.Scale()), float64(t.ZeroPoint())
	for i := 0; i < n; i++ {
		v, ok := element(t.Type, t.Data, i)
		if !ok {
			return nil
		}
		if scale != 0 {
			v = (v - zp) * scale
		}
		scores = append(scores, classScore{i, v})
	}
	slices.SortStableFunc(scores, func(a, b classScore) int {
		switch {
		case a.Value > b.Value:
			return -1
		case a.Value < b.Value:
			return 1
		}
		return 0
	})
	return scores[:min(k, len(scores))]
}

// isNumeric reports whether element can read typ (bool excluded).
func isNumeric(typ ops.DataType) bool {
	switch typ {
	case ops.Float32, ops.Float64, ops.Float16, ops.Int8, ops.Uint8, ops.Int16,
		ops.Uint16, ops.Int32, ops.Uint32, ops.Int64, ops.Uint64:
		return true
	}
	return false
}

// isClassVector reports whether a tensor looks like per-class scores:
// shape [N] or [1, N] with N > 2 and a numeric type.
func isClassVector(t *ops.Tensor) bool {
	if !isNumeric(t.Type) {
		return false
	}
	switch len(t.Shape) {
	case 1:
		return t.Shape[0] > 2
	case 2:
		return t.Shape[0] == 1 && t.Shape[1] > 2
	}
	return false
}

// quantString describes a quantisation briefly: "scale=0.0039 zero_point=-128",
// or for per-channel quantisation the axis, the count and the first few
// values.
func quantString(q *ops.Quantization) string {
	if q == nil || len(q.Scale) == 0 {
		return ""
	}
	if len(q.Scale) == 1 {
		zp := int64(0)
		if len(q.ZeroPoint) > 0 {
			zp = q.ZeroPoint[0]
		}
		return fmt.Sprintf("scale=%v zero_point=%d", q.Scale[0], zp)
	}
	const show = 3
	s := fmt.Sprintf("per-channel axis=%d n=%d scale=%v", q.QuantizedDimension, len(q.Scale), q.Scale[:min(show, len(q.Scale))])
	if len(q.Scale) > show {
		s = s[:len(s)-1] + " ...]"
	}
	zs := fmt.Sprint(q.ZeroPoint[:min(show, len(q.ZeroPoint))])
	if len(q.ZeroPoint) > show {
		zs = zs[:len(zs)-1] + " ...]"
	}
	return s + " zero_point=" + zs
}
