package passes

import (
	"hash/maphash"
	"strconv"

	"github.com/tflrun/tflrun/convert/ir"
)

// ShareConstants merges constant values of f that hold identical tensors
// (same type, shape and bytes, no quantisation parameters) into one: the
// users of each duplicate use the first, and the duplicates' Const nodes
// are removed. Unrolling a recurrent loop legalises one MatMul per time
// step and each transposes the same weights into a fresh constant; this
// pass makes the written model hold them once. It returns the number of
// values merged.
func ShareConstants(f *ir.Function) int {
	defer f.TrackUses()()
	seed := maphash.MakeSeed()
	byHash := map[uint64][]*ir.Value{}
	dead := map[*ir.Node]bool{}
	merged := 0
	for _, n := range f.Nodes {
		if n.TFL != nil || n.Op != "Const" || len(n.Outputs) != 1 {
			continue
		}
		v := n.Outputs[0]
		t := v.Const
		if t == nil || v.Quant != nil || v.IsVariableTensor || f.IsResult(v) || t.DType == ir.String {
			continue
		}
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteByte(byte(t.DType))
		for _, d := range t.Shape {
			h.WriteString(strconv.Itoa(d))
			h.WriteByte(',')
		}
		h.Write(t.Data)
		k := h.Sum64()
		var canon *ir.Value
		for _, c := range byHash[k] {
			if sameTensor(c.Const, t) && c.DType == v.DType && c.Shape.Equal(v.Shape) {
				canon = c
				break
			}
		}
		if canon == nil {
			byHash[k] = append(byHash[k], v)
			continue
		}
		f.ReplaceAllUses(v, canon)
		dead[n] = true
		merged++
	}
	f.RemoveNodes(dead)
	return merged
}

func sameTensor(a, b *ir.Tensor) bool {
	if a == b {
		return true
	}
	if a.DType != b.DType || !a.Shape.Equal(b.Shape) || len(a.Data) != len(b.Data) {
		return false
	}
	for i := range a.Data {
		if a.Data[i] != b.Data[i] {
			return false
		}
	}
	return true
}
