package builtin

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// Test helpers shared by the kernel tests: hand-built tensors, a minimal
// stand-in for the interpreter's Prepare → allocate → Eval sequence, and
// quantisation helpers.

// alignedBytes returns n zeroed bytes aligned to 8 (the Go allocator gives
// []uint64 that alignment; tiny []byte allocations may be unaligned).
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// tensorOf builds a tensor of the given type and shape holding a copy of
// data's bytes.
func tensorOf[E any](typ ops.DataType, shape []int, data []E) *ops.Tensor {
	t := &ops.Tensor{Type: typ, Shape: append([]int(nil), shape...)}
	var z E
	size := int(unsafe.Sizeof(z))
	t.Data = alignedBytes(len(data) * size)
	if len(data) > 0 {
		copy(t.Data, unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*size))
	}
	return t
}

// outTensor is an output tensor of type typ with no shape yet.
func outTensor(typ ops.DataType) *ops.Tensor { return &ops.Tensor{Type: typ} }

// q attaches per-tensor quantisation to t and returns it.
func q(t *ops.Tensor, scale float32, zp int64) *ops.Tensor {
	t.Quant = &ops.Quantization{Scale: []float32{scale}, ZeroPoint: []int64{zp}}
	return t
}

// constT marks t as a constant (weight) tensor.
func constT(t *ops.Tensor) *ops.Tensor { t.Kind = ops.ConstTensor; return t }

// node builds a node with the given options, inputs and outputs.
func node(opts any, ins []*ops.Tensor, outs ...*ops.Tensor) *ops.Node {
	return &ops.Node{Options: opts, Inputs: ins, Outputs: outs, Version: 1}
}

// prepare runs Prepare and, on success, allocates the outputs and the
// requested scratch as the interpreter would.
func prepare(k ops.Kernel, n *ops.Node) error {
	n.ResetScratch()
	if err := k.Prepare(n); err != nil {
		return err
	}
	for _, o := range n.Outputs {
		if o != nil && len(o.Data) < o.Bytes() {
			o.Data = alignedBytes(o.Bytes())
		}
	}
	for _, s := range n.ScratchSizes() {
		n.Scratch = append(n.Scratch, alignedBytes(s+64))
	}
	return nil
}

// run prepares and evaluates a node, failing the test on error, then
// checks that the kernel gives the same bits on 2, 3 and 4 threads
// (sweepThreads).
func run(t *testing.T, k ops.Kernel, n *ops.Node) {
	t.Helper()
	if err := prepare(k, n); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if err := k.Eval(n); err != nil {
		t.Fatalf("Eval: %v", err)
	}
	if n.Pool == nil {
		sweepThreads(t, k, n)
	}
}

// sweepPools are the thread counts sweepThreads runs kernels at besides 1
// (shared by the package's tests, which run one at a time).
var sweepPools = []*parallel.Pool{parallel.New(2), parallel.New(3), parallel.New(4)}

// sweepThreads runs an evaluated node again on each of sweepPools, every
// operator split whatever its size (parallel.SetMinWork(0)), its outputs
// overwritten with garbage first, and fails unless every output is
// bit-identical to the one-thread result. Nodes
// with variable inputs (state that Eval advances) are left alone. The
// node is prepared on one thread again at the end.
func sweepThreads(t *testing.T, k ops.Kernel, n *ops.Node) {
	t.Helper()
	for _, in := range n.Inputs {
		if in != nil && in.Kind == ops.VariableTensor {
			return
		}
	}
	want := make([][]byte, len(n.Outputs))
	for i, o := range n.Outputs {
		if o != nil {
			want[i] = append([]byte(nil), o.Data[:o.Bytes()]...)
		}
	}
	defer parallel.SetMinWork(parallel.SetMinWork(0))
	defer func() { n.Pool = nil }()
	for _, p := range sweepPools {
		n.Pool = p
		if err := prepare(k, n); err != nil {
			t.Fatalf("Prepare on %d threads: %v", p.Threads(), err)
		}
		// Outputs start as garbage, so that a unit no thread computes
		// cannot pass by leaving the one-thread result in place (the
		// packed sub-byte types included: their kernels must zero the
		// unused bits of the last byte).
		for _, o := range n.Outputs {
			if o != nil {
				for i := range o.Data[:o.Bytes()] {
					o.Data[i] = 0xa5
				}
			}
		}
		if err := k.Eval(n); err != nil {
			t.Fatalf("Eval on %d threads: %v", p.Threads(), err)
		}
		for i, o := range n.Outputs {
			if o != nil && !bytes.Equal(o.Data[:o.Bytes()], want[i]) {
				t.Fatalf("output %d on %d threads differs from one thread's", i, p.Threads())
			}
		}
	}
	n.Pool = nil
	if err := prepare(k, n); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
}

// wantPrepareError checks that Prepare fails with a message containing
// every fragment.
func wantPrepareError(t *testing.T, k ops.Kernel, n *ops.Node, fragments ...string) {
	t.Helper()
	err := prepare(k, n)
	if err == nil {
		t.Fatalf("Prepare succeeded, want error containing %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("Prepare error %q does not contain %q", err, f)
		}
	}
}

// noAllocs checks that Eval allocates nothing.
func noAllocs(t *testing.T, k ops.Kernel, n *ops.Node) {
	t.Helper()
	allocs := testing.AllocsPerRun(20, func() {
		if err := k.Eval(n); err != nil {
			t.Fatalf("Eval: %v", err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Eval allocated %v times per run, want 0", allocs)
	}
}

// quantizeTo quantises reals with scale and zero point like TFLite's test
// harness (round half away from zero, clamped to [lo, hi]).
func quantizeTo(xs []float32, scale float32, zp, lo, hi int32) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		v := int32(math.Round(float64(x)/float64(scale))) + zp
		out[i] = min(max(v, lo), hi)
	}
	return out
}

func toInt8(v []int32) []int8 {
	o := make([]int8, len(v))
	for i, x := range v {
		o[i] = int8(x)
	}
	return o
}

func toUint8(v []int32) []uint8 {
	o := make([]uint8, len(v))
	for i, x := range v {
		o[i] = uint8(x)
	}
	return o
}

func toInt16(v []int32) []int16 {
	o := make([]int16, len(v))
	for i, x := range v {
		o[i] = int16(x)
	}
	return o
}

// equalInts compares integer slices of any width.
func equalInts[A ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64, B ~int | ~int8 | ~uint8 | ~int16 | ~int32 | ~int64](t *testing.T, what string, got []A, want []B) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if int64(got[i]) != int64(want[i]) {
			t.Fatalf("%s: element %d = %d, want %d\n got  %v\n want %v", what, i, got[i], want[i], got, want)
		}
	}
}

// nearFloats compares float32 values with an absolute tolerance.
func nearFloats(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol) {
			t.Fatalf("%s: element %d = %v, want %v (|diff| %g > %g)\n got  %v\n want %v", what, i, got[i], want[i], d, tol, got, want)
		}
	}
}

// sameShape fails unless got equals want.
func wantShape(t *testing.T, got, want []int) {
	t.Helper()
	if !ops.SameShape(got, want) {
		t.Fatalf("output shape %v, want %v", got, want)
	}
}

// lcg is a tiny deterministic generator for random test data.
type lcg uint64

func (r *lcg) next() uint32 {
	*r = *r*6364136223846793005 + 1442695040888963407
	return uint32(*r >> 33)
}

// float in [lo, hi).
func (r *lcg) float(lo, hi float64) float32 {
	return float32(lo + (hi-lo)*float64(r.next())/float64(1<<31))
}

// intn in [lo, hi].
func (r *lcg) intn(lo, hi int) int { return lo + int(r.next()%uint32(hi-lo+1)) }

// binRun prepares and runs a binary kernel, checks that Eval does not
// allocate, and returns the output tensor.
func binRun(t *testing.T, k ops.Kernel, opts any, a, b *ops.Tensor, outType ops.DataType) *ops.Tensor {
	t.Helper()
	n := binNode(opts, a, b, outTensor(outType))
	run(t, k, n)
	noAllocs(t, k, n)
	return n.Outputs[0]
}

func f32Seq(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

// index flattens a multi-index over shape (row-major).
func index(shape, idx []int) int {
	o := 0
	for d := range shape {
		o = o*shape[d] + idx[d]
	}
	return o
}

// forEach calls f with every multi-index of shape in row-major order.
func forEach(shape []int, f func(idx []int)) {
	idx := make([]int, len(shape))
	if prod(shape) == 0 {
		return
	}
	for {
		f(idx)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func c32(v ...int32) *ops.Tensor { return constT(tensorOf(ops.Int32, []int{len(v)}, v)) }

func runOut(t *testing.T, k ops.Kernel, opts any, ins []*ops.Tensor, out *ops.Tensor) *ops.Tensor {
	t.Helper()
	n := node(opts, ins, out)
	run(t, k, n)
	noAllocs(t, k, n)
	return n.Outputs[0]
}
