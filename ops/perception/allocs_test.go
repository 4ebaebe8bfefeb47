package perception

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Eval allocates nothing (the kernel contract): each kernel on a node it
// prepared, its outputs allocated.

func TestEvalAllocatesNothing(t *testing.T) {
	m := newMaps(33, 33, -10)
	m.addPerson(0, 0, 5, 6)
	m.addPerson(20, 20, 4, 4.5)
	lm := make([]float32, 6*3)
	for i := range lm {
		lm[i] = float32(i % 7)
	}
	nodes := map[string]*ops.Node{
		"PosenetDecoderOp": tNode(PosenetDecoderOpName, 1, pnOpts(t, 5, 0.3, 16, 20), m.tensors(true),
			tOut(), tOut(), tOut(), tOut(), tOut()),
		"Landmarks2TransformMatrix": tNode(Landmarks2TransformMatrixName, 2, ltmV2Opts(t, []int{2, 3, 4, 5}, 0, 1),
			[]*ops.Tensor{tF32([]int{1, 6, 3}, lm)}, tOut()),
		"TransformLandmarks": tNode(TransformLandmarksName, 2, nil,
			[]*ops.Tensor{tF32([]int{1, 6, 3}, lm), tF32([]int{1, 4, 4}, testMatrix)}, tOut()),
		"TransformTensorBilinear": tNode(TransformTensorBilinearName, 2, ttOpts(t, 2, 3, 3),
			[]*ops.Tensor{grid(), tF32([]int{1, 4, 4}, affine(0.7, 0.2, 0.3, -0.1, 0.9, 0.4))}, tOut()),
	}
	for name, n := range nodes {
		k := kernels[n.OpName]()
		if err := k.Prepare(n); err != nil {
			t.Fatal(name, err)
		}
		for _, o := range n.Outputs {
			o.Data = make([]byte, o.Bytes())
		}
		if a := testing.AllocsPerRun(20, func() {
			if err := k.Eval(n); err != nil {
				t.Fatal(name, err)
			}
		}); a != 0 {
			t.Errorf("%s: Eval allocates %v times", name, a)
		}
	}
}
