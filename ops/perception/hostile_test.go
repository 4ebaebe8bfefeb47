package perception

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Random hostile nodes for every kernel of the package: valid options
// with bytes flipped, odd shapes (rank 0 to 5, zero and one dimensions),
// float32 and uint8 data holding NaN, ±Inf and huge values. Prepare and
// Eval must return an error or finish, never panic.

func hostileValue(r *rand.Rand) float32 {
	switch r.IntN(8) {
	case 0:
		return float32(math.NaN())
	case 1:
		return float32(math.Inf(1 - 2*r.IntN(2)))
	case 2:
		return float32((r.Float64() - 0.5) * 1e30)
	case 3:
		return 0
	}
	return float32((r.Float64() - 0.5) * 64)
}

func hostileTensor(r *rand.Rand, shape []int) *ops.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if r.IntN(6) == 0 {
		q := make([]uint8, n)
		for i := range q {
			q[i] = uint8(r.IntN(256))
		}
		return tU8(shape, q, float32(r.Float64()*4), int64(r.IntN(256)))
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = hostileValue(r)
	}
	return tF32(shape, v)
}

func hostileShape(r *rand.Rand, like []int) []int {
	if r.IntN(3) > 0 {
		s := append([]int(nil), like...)
		if len(s) > 0 && r.IntN(2) == 0 {
			s[r.IntN(len(s))] = r.IntN(5)
		}
		return s
	}
	s := make([]int, r.IntN(6))
	for i := range s {
		s[i] = r.IntN(6)
	}
	return s
}

func mutate(r *rand.Rand, b []byte) []byte {
	b = append([]byte(nil), b...)
	switch r.IntN(4) {
	case 0:
		return b
	case 1:
		if len(b) > 0 {
			b = b[:r.IntN(len(b))]
		}
	default:
		for k := 0; k < 1+r.IntN(3) && len(b) > 0; k++ {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
	}
	return b
}

func TestHostileNodes(t *testing.T) {
	type spec struct {
		name     string
		versions []int
		opts     [][]byte
		ins      [][]int
		outs     int
	}
	specs := []spec{
		{Landmarks2TransformMatrixName, []int{1, 2}, [][]byte{
			ltmV2Opts(t, []int{2, 3, 4, 5}, 0, 1),
			tFlex(t, "input_hw", []int{3, 5}, "output_hw", []int{5, 3}, "dimensions", 3, "landmarks_range", 10,
				"bbox_size_multiplier", float32(1), "left_rotation_idx", 0, "right_rotation_idx", 1, "subset", []int{2, 3})},
			[][]int{{1, 6, 3}}, 1},
		{TransformLandmarksName, []int{1, 2}, [][]byte{nil, tFlex(t, "dimensions", 2, "scale", float32(2))},
			[][]int{{1, 5, 2}, {1, 4, 4}}, 1},
		{TransformTensorBilinearName, []int{1, 2}, [][]byte{ttOpts(t, 1, 3, 4), ttOpts(t, 2, 5, 2)},
			[][]int{{1, 6, 7, 3}, {1, 4, 4}}, 1},
		{PosenetDecoderOpName, []int{1}, [][]byte{pnOpts(t, 4, 0.2, 16, 10), pnOpts(t, 30, 0, 1, 1e9)},
			[][]int{{1, 5, 6, 17}, {1, 5, 6, 34}, {1, 5, 6, 64}, {1, 33, 33, 34}}, 5},
	}
	iters := 4000
	if testing.Short() {
		iters = 400
	}
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < iters; it++ {
		s := specs[it%len(specs)]
		version := s.versions[r.IntN(len(s.versions))]
		if r.IntN(20) == 0 {
			version = r.IntN(5)
		}
		opts := mutate(r, s.opts[r.IntN(len(s.opts))])
		nIn := len(s.ins)
		nOut := s.outs
		if s.name == PosenetDecoderOpName && r.IntN(2) == 0 {
			nIn, nOut = 3, 4
		}
		var ins []*ops.Tensor
		for i := 0; i < nIn; i++ {
			ins = append(ins, hostileTensor(r, hostileShape(r, s.ins[i])))
		}
		outs := make([]*ops.Tensor, nOut)
		for i := range outs {
			outs[i] = tOut()
		}
		n := tNode(s.name, version, opts, ins, outs...)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("iteration %d, %s v%d, inputs %v: panic %v", it, s.name, version, tShapes(ins), p)
				}
			}()
			_ = tRun(n)
		}()
	}
}

func tShapes(ts []*ops.Tensor) string {
	s := ""
	for _, t := range ts {
		s += fmt.Sprint(t.Shape)
	}
	return s
}
