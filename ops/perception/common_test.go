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

// segKernelCases are one valid node maker per segmentation kernel, for
// the random hostile and allocation tests.
func segKernelCases(t *testing.T) map[string]func() *ops.Node {
	r := rand.New(rand.NewPCG(23, 24))
	f := func(shape ...int) *ops.Tensor {
		return segF32(shape, segRand(r, shape[0]*shape[1]*shape[2]*shape[3], -1, 1))
	}
	window := make([]float32, 1*3*4*2)
	for i := range window {
		window[i] = float32(i%4) + 0.1
	}
	flat := make([]int32, 1*3*4*2)
	for i := range flat {
		flat[i] = int32(i * 3)
	}
	return map[string]func() *ops.Node{
		Convolution2DTransposeBiasName: func() *ops.Node {
			return tconvNode(f(1, 5, 4, 3), []int{4, 3, 3, 3}, segRand(r, 108, -1, 1), segRand(r, 4, -1, 1), padSame, 2, 2)
		},
		MaxPoolingWithArgmax2DName: func() *ops.Node { return argmaxNode(f(1, 6, 5, 3), segPoolOpts(padSame, 2, 2, 2, 2, 0)) },
		MaxUnpooling2DName: func() *ops.Node {
			return unpoolNode(MaxUnpooling2DName, f(1, 3, 4, 2), segF32([]int{1, 3, 4, 2}, window), segPoolOpts(padValid, 2, 2, 2, 2, 0))
		},
		LiteRtMaxUnpooling2DName: func() *ops.Node {
			return unpoolNode(LiteRtMaxUnpooling2DName, f(1, 3, 4, 2), segI32([]int{1, 3, 4, 2}, flat), liteRTPoolOpts(padSame, 2, 2, 2, 2))
		},
		MaxPoolWithArgmaxName: func() *ops.Node {
			return litePoolNode(f(2, 5, 6, 2), poolArgmaxOpts(t, "SAME", []int64{1, 2, 3, 1}, []int64{1, 2, 2, 1}, false))
		},
		DenseImageWarpName: func() *ops.Node { return warpNode(f(1, 4, 5, 3), f(1, 4, 5, 2)) },
	}
}

// TestSegmentationHostileNodes takes each kernel's valid node and breaks
// it at random: options truncated or with bytes replaced, an input
// replaced by a tensor of another shape (rank 0 to 5, zero dimensions),
// type (uint8) or values (NaN, ±Inf, huge). Prepare and Eval must return
// an error or finish, never panic; outputs beyond 16 MiB are not
// allocated (the interpreter's memory bound refuses them).
func TestSegmentationHostileNodes(t *testing.T) {
	cases := segKernelCases(t)
	names := Names()
	iters := 3000
	if testing.Short() {
		iters = 300
	}
	r := rand.New(rand.NewPCG(25, 26))
	for it := 0; it < iters; it++ {
		name := names[it%len(names)]
		mk, ok := cases[name]
		if !ok {
			continue // another file's kernel, tested there
		}
		n := mk()
		n.CustomOptions = mutate(r, n.CustomOptions)
		if r.IntN(2) == 0 {
			i := r.IntN(len(n.Inputs))
			n.Inputs[i] = hostileTensor(r, hostileShape(r, n.Inputs[i].Shape))
		}
		if r.IntN(8) == 0 {
			i := r.IntN(len(n.Inputs))
			if v := n.Inputs[i].Int32s(); len(v) > 0 {
				v[r.IntN(len(v))] = int32(r.Uint32())
			} else if v := n.Inputs[i].Float32s(); len(v) > 0 {
				v[r.IntN(len(v))] = hostileValue(r)
			}
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("iteration %d, %s, options % x, inputs %v: panic %v", it, name, n.CustomOptions, tShapes(n.Inputs), p)
				}
			}()
			k := kernels[name]()
			n.ResetScratch()
			if k.Prepare(n) != nil {
				return
			}
			for _, o := range n.Outputs {
				if o.Bytes() > 16<<20 {
					return
				}
				o.Data = make([]byte, o.Bytes())
			}
			for _, s := range n.ScratchSizes() {
				n.Scratch = append(n.Scratch, make([]byte, s))
			}
			_ = k.Eval(n)
		}()
	}
}

// TestSegmentationEvalAllocatesNothing: Eval allocates nothing (the
// kernel contract), for each segmentation kernel on its valid node.
func TestSegmentationEvalAllocatesNothing(t *testing.T) {
	for name, mk := range segKernelCases(t) {
		n := mk()
		k := kernels[name]()
		if err := segPrepare(k, n); err != nil {
			t.Fatal(name, err)
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
