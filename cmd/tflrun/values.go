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
	// Label is the class's name from the model's label file, if any.
	Label string `json:"label,omitempty"`
}

// better orders top-k entries: the larger value first, NaN last, ties to
// the lower class index.
func better(a, b classScore) bool {
	an, bn := math.IsNaN(a.Value), math.IsNaN(b.Value)
	switch {
	case an != bn:
		return bn
	case !an && a.Value != b.Value:
		return a.Value > b.Value
	}
	return a.Class < b.Class
}

// topK returns the k largest elements of a numeric tensor in order,
// dequantised with its per-tensor scale and zero point when it is
// quantised. It reads the elements in place and keeps only a k-entry
// heap (the worst entry at the root), so its memory is O(k) and its time
// O(n log k) whatever the tensor's size.
func topK(t *ops.Tensor, k int) []classScore {
	n := t.NumElements()
	if k <= 0 || !isNumeric(t.Type) {
		return nil
	}
	k = min(k, n)
	h := make([]classScore, 0, k)
	scale, zp := float64(t.Scale()), float64(t.ZeroPoint())
	down := func(i int) {
		for {
			w, l, r := i, 2*i+1, 2*i+2
			if l < len(h) && better(h[w], h[l]) {
				w = l
			}
			if r < len(h) && better(h[w], h[r]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	offer := func(i int, v float64) {
		c := classScore{Class: i, Value: v}
		if len(h) < k {
			h = append(h, c)
			for j := len(h) - 1; j > 0; {
				p := (j - 1) / 2
				if !better(h[p], h[j]) {
					break
				}
				h[p], h[j] = h[j], h[p]
				j = p
			}
			return
		}
		if better(c, h[0]) {
			h[0] = c
			down(0)
		}
	}
	// Once the heap is full, an element can only enter by beating the
	// root's value (ties go to the lower index, which came first), so
	// most elements cost one load and one comparison against floor. open
	// lets everything through to better while the heap fills, or while
	// its root is NaN (anything beats NaN). The loop keeps both in locals
	// so that it stays a load and a compare.
	floor, open := 0.0, true
	admit := func(i int, v float64) (float64, bool) {
		offer(i, v)
		if len(h) == k && !math.IsNaN(h[0].Value) {
			return h[0].Value, false
		}
		return 0, true
	}
	if t.Type == ops.Float32 && scale == 0 {
		d := t.Data[:4*n]
		for i := 0; i < n; i++ {
			if v := float64(math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:]))); open || v > floor {
				floor, open = admit(i, v)
			}
		}
	} else {
		for i := 0; i < n; i++ {
			v, _ := element(t.Type, t.Data, i)
			if scale != 0 {
				v = (v - zp) * scale
			}
			if open || v > floor {
				floor, open = admit(i, v)
			}
		}
	}
	slices.SortFunc(h, func(a, b classScore) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	return h
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

// isScoreVector reports whether a tensor looks like per-class scores, the
// outputs whose top classes run prints: a float type, or an 8- or 16-bit
// integer type with a per-tensor quantisation (integer ids and counts,
// int32 and int64 outputs, unquantised integers, are not scores), and one
// vector of at least two values: the last dimension > 1 and every other
// dimension 1 ([N], [1, N], [1, 1, N]; [1, 2] included).
func isScoreVector(t *ops.Tensor) bool {
	switch t.Type {
	case ops.Float32, ops.Float16, ops.Float64:
	case ops.Int8, ops.Uint8, ops.Int16:
		if t.Quant == nil || len(t.Quant.Scale) != 1 {
			return false
		}
	default:
		return false
	}
	if len(t.Shape) == 0 || t.Shape[len(t.Shape)-1] < 2 {
		return false
	}
	for _, d := range t.Shape[:len(t.Shape)-1] {
		if d != 1 {
			return false
		}
	}
	return true
}

// appendJSONElement appends element i as a JSON value: numbers, with
// non-finite floats as the strings "NaN", "+Inf", "-Inf" (JSON has no
// such numbers), 64-bit integers exactly, float32 and float16 with the
// shortest representation that round-trips at float32, bools as
// booleans, null for a type with no numeric reading.
func appendJSONElement(b []byte, typ ops.DataType, data []byte, i int) []byte {
	switch typ {
	case ops.Int64, ops.Uint64:
		return append(b, formatElement(typ, data, i)...)
	case ops.Bool:
		return strconv.AppendBool(b, data[i] != 0)
	}
	v, ok := element(typ, data, i)
	switch {
	case !ok:
		return append(b, "null"...)
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Inf"`...)
	case typ == ops.Float32 || typ == ops.Float16:
		return strconv.AppendFloat(b, v, 'g', -1, 32)
	case typ == ops.Float64:
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return strconv.AppendInt(b, int64(v), 10) // exact: every other type is an integer of at most 32 bits
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
