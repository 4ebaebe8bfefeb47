package perception

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test helpers of the segmentation kernels: nodes built by hand, run the
// way the interpreter runs them (Prepare, outputs and scratch allocated,
// Eval).

// segF32 is a float32 tensor of the given shape holding v (nil: zeros).
func segF32(shape []int, v []float32) *ops.Tensor {
	t := &ops.Tensor{Type: ops.Float32, Shape: shape}
	t.Data = make([]byte, t.Bytes())
	if v != nil {
		copy(ops.View[float32](t.Data), v)
	}
	return t
}

// segI32 is an int32 tensor of the given shape holding v.
func segI32(shape []int, v []int32) *ops.Tensor {
	t := &ops.Tensor{Type: ops.Int32, Shape: shape}
	t.Data = make([]byte, t.Bytes())
	copy(ops.View[int32](t.Data), v)
	return t
}

// segConst marks t constant and returns it.
func segConst(t *ops.Tensor) *ops.Tensor { t.Kind = ops.ConstTensor; return t }

// segOut is an output tensor of type typ, shaped by Prepare.
func segOut(typ ops.DataType) *ops.Tensor { return &ops.Tensor{Type: typ} }

// segNode is a custom node of op with the given tensors and options.
func segNode(op string, opts []byte, ins []*ops.Tensor, outs ...*ops.Tensor) *ops.Node {
	return &ops.Node{OpName: op, Op: ops.BuiltinCustom, Version: 1, Inputs: ins, Outputs: outs, CustomOptions: opts}
}

// segPrepare prepares k on n and allocates the outputs and scratch.
func segPrepare(k ops.Kernel, n *ops.Node) error {
	n.ResetScratch()
	if err := k.Prepare(n); err != nil {
		return err
	}
	for _, o := range n.Outputs {
		o.Data = make([]byte, o.Bytes())
	}
	for _, s := range n.ScratchSizes() {
		n.Scratch = append(n.Scratch, make([]byte, s))
	}
	return nil
}

// segRun prepares and evaluates k on n.
func segRun(k ops.Kernel, n *ops.Node) error {
	if err := segPrepare(k, n); err != nil {
		return err
	}
	return k.Eval(n)
}

// segInts encodes int32 fields as a C struct's little-endian bytes.
func segInts(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// segPoolOpts is a TfLitePoolParams as MediaPipe's models store it (32
// bytes: six fields, then an old two-field computed padding of −1s).
func segPoolOpts(padding, strideW, strideH, filterW, filterH, act int32) []byte {
	return segInts(padding, strideW, strideH, filterW, filterH, act, -1, -1)
}

// segRand returns n uniform values in [lo, hi).
func segRand(r *rand.Rand, n int, lo, hi float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float32()
	}
	return v
}

// segWantErr fails unless err is non-nil and contains every one of
// want.
func segWantErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not contain %q", err, w)
		}
	}
}

// segClose fails when got and want differ by more than tol·(1 + |want|).
func segClose(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		if d < 0 {
			d = -d
		}
		a := float64(want[i])
		if a < 0 {
			a = -a
		}
		if !(d <= tol*(1+a)) {
			t.Fatalf("%s[%d] = %g, want %g", what, i, got[i], want[i])
		}
	}
}

// segEqual fails unless got and want are equal bit for bit.
func segEqual(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s[%d] = %g, want %g", what, i, got[i], want[i])
		}
	}
}
