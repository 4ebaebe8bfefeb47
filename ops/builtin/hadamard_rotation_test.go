package builtin

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// Tests of aeq.hadamard_rotation: TFLite's hadamard_rotation_test.cc
// (all-ones rows give an impulse of √size; random rows match a recursive
// transform within 1e-5) for its sizes 4, 16 and 64 and for 128 (TFLite's
// chunked path), random shapes bit for bit against a recursive float32
// transform, the int32 bit reinterpretation and x86 NaN results, the
// option decoding and the refusals.

// hadamardOptions packs the custom options as the quantizer writes them.
func hadamardOptions(t *testing.T, size int64, signs []int64) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("hadamard_size")
	b.Int(size)
	b.Key("random_binary_vector")
	v := b.StartVector()
	for _, s := range signs {
		b.Int(s)
	}
	b.EndVector(v, false, false)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

func ones(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func hadamardNode(opts []byte, in *ops.Tensor, out *ops.Tensor) *ops.Node {
	n := node(nil, []*ops.Tensor{in}, out)
	n.CustomOptions = opts
	return n
}

// recursiveFWHT transforms v in place: both halves, then the last stage
// (a different traversal of the same butterflies), unnormalised.
func recursiveFWHT(v []float32) {
	if len(v) < 2 {
		return
	}
	h := len(v) / 2
	recursiveFWHT(v[:h])
	recursiveFWHT(v[h:])
	for i := 0; i < h; i++ {
		x, y := v[i], v[i+h]
		v[i], v[i+h] = x+y, x-y
	}
}

// recursiveFWHT64 is hadamard_rotation_test.cc's recursive_FWHT: each
// stage divided by √2, in float64.
func recursiveFWHT64(v []float64) {
	if len(v) < 2 {
		return
	}
	h := len(v) / 2
	recursiveFWHT64(v[:h])
	recursiveFWHT64(v[h:])
	for i := 0; i < h; i++ {
		x, y := v[i], v[i+h]
		v[i], v[i+h] = (x+y)/math.Sqrt2, (x-y)/math.Sqrt2
	}
}

func TestHadamardRotationTFLiteVectors(t *testing.T) {
	for _, size := range []int{4, 16, 64, 128} {
		in := make([]float32, 2*size)
		for i := range in {
			in[i] = 1
		}
		n := hadamardNode(hadamardOptions(t, int64(size), ones(size)), tensorOf(ops.Float32, []int{1, 2 * size}, in), outTensor(ops.Float32))
		k := NewHadamardRotation()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 2 * size})
		y := n.Outputs[0].Float32s()
		for i, v := range y {
			want := float32(0)
			if i%size == 0 {
				want = float32(math.Sqrt(float64(size)))
			}
			if math.Abs(float64(v-want)) > 1e-6*float64(size) {
				t.Fatalf("size %d: ones → element %d = %v, want %v", size, i, v, want)
			}
		}
		// Random rows against the test's recursive transform.
		r := lcg(12345 + size)
		ref := make([]float64, 2*size)
		for i := range in {
			in[i] = r.float(-1, 1)
			ref[i] = float64(in[i])
		}
		n = hadamardNode(hadamardOptions(t, int64(size), ones(size)), tensorOf(ops.Float32, []int{1, 2 * size}, in), outTensor(ops.Float32))
		run(t, k, n)
		recursiveFWHT64(ref[:size])
		recursiveFWHT64(ref[size:])
		nearFloats(t, "random rows", n.Outputs[0].Float32s(), ref, 1e-5)
		noAllocs(t, k, n)
	}
}

func TestHadamardRotationAgainstRecursive(t *testing.T) {
	r := lcg(5)
	for c := 0; c < 200; c++ {
		hs := 1 << r.intn(0, 8)
		rank := r.intn(2, 4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = r.intn(1, 3)
		}
		last := 1
		if rank == 3 {
			last = 2
		}
		shape[last] = hs*r.intn(0, 3) + r.intn(0, 2)*r.intn(1, hs)
		cnt := 1
		for _, d := range shape {
			cnt *= d
		}
		x := make([]float32, cnt)
		for i := range x {
			x[i] = r.float(-100, 100)
		}
		n := hadamardNode(hadamardOptions(t, int64(hs), nil), tensorOf(ops.Float32, shape, x), outTensor(ops.Float32))
		run(t, NewHadamardRotation(), n)
		// The reference: the chunks TFLite's Eval visits.
		batch, features, size := 1, shape[0], shape[1]
		if rank == 3 {
			batch, features, size = shape[0], shape[1], shape[2]
		}
		want := append([]float32(nil), x...)
		norm := float32(1 / math.Sqrt(float64(hs)))
		for i := 0; i < batch*features*(size/hs); i++ {
			ch := want[i*hs : (i+1)*hs]
			recursiveFWHT(ch)
			for j := range ch {
				ch[j] *= norm
			}
		}
		got := n.Outputs[0].Float32s()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("case %d shape %v size %d: element %d = %v, want %v", c, shape, hs, i, got[i], want[i])
			}
		}
	}
}

func TestHadamardRotationBitsAndNaNs(t *testing.T) {
	// int32: the bits are transformed as float32. 1 and 2 are subnormals,
	// which TensorFlow Lite on x86 takes as zeros (DAZ, as its recorded
	// outputs in testdata/hadamard_rotation show): 0 and 0. 2^23 and
	// 2^24 are the normal 2^-126 and 2^-125: the sum 1.5·2^-125 scales to
	// a normal, the difference −2^-126·0.70710677 is subnormal and
	// flushed to −0 (FTZ).
	n := hadamardNode(hadamardOptions(t, 2, ones(2)), tensorOf(ops.Int32, []int{2, 2}, []int32{1, 2, 1 << 23, 1 << 24}), outTensor(ops.Int32))
	run(t, NewHadamardRotation(), n)
	sum := math.Float32bits(float32(math.Float32frombits(1<<23)+math.Float32frombits(1<<24)) * float32(1/math.Sqrt(2)))
	if got := n.Outputs[0].Int32s(); got[0] != 0 || got[1] != 0 || uint32(got[2]) != sum || uint32(got[3]) != 0x80000000 {
		t.Fatalf("int32 [1 2 2^23 2^24] → %#x %#x %#x %#x, want 0 0 %#x 0x80000000", got[0], got[1], uint32(got[2]), uint32(got[3]), sum)
	}
	// A signalling NaN comes out quieted with its payload; Inf − Inf is
	// the negative default NaN; the first of two NaNs wins; −1 (a quiet
	// NaN as float bits) passes through.
	in := []uint32{0x7f800001, math.Float32bits(1), 0x7f800000, 0x7f800000, 0x7fc00005, 0xffc00007, 0xffffffff, 0}
	n = hadamardNode(hadamardOptions(t, 2, nil), tensorOf(ops.Int32, []int{4, 2}, in), outTensor(ops.Int32))
	run(t, NewHadamardRotation(), n)
	got := n.Outputs[0].Int32s()
	want := []uint32{0x7fc00001, 0x7fc00001, 0x7f800000, x86DefaultNaN, 0x7fc00005, 0x7fc00005, 0xffffffff, 0xffffffff}
	for i, w := range want {
		if uint32(got[i]) != w {
			t.Errorf("element %d: %#x, want %#x", i, uint32(got[i]), w)
		}
	}
}

func TestHadamardRotationCopies(t *testing.T) {
	// Not a power of two, negative, or larger than the rows: a copy.
	x := []float32{1, 2, 3, 4, 5, 6}
	for _, hs := range []int64{3, -2, 8, 6} {
		n := hadamardNode(hadamardOptions(t, hs, nil), tensorOf(ops.Float32, []int{2, 3}, x), outTensor(ops.Float32))
		run(t, NewHadamardRotation(), n)
		for i, v := range n.Outputs[0].Float32s() {
			if v != x[i] {
				t.Fatalf("hadamard_size %d: element %d = %v, want the copy %v", hs, i, v, x[i])
			}
		}
	}
	// hadamard_size 1: multiplies by 1.
	n := hadamardNode(hadamardOptions(t, 1, nil), tensorOf(ops.Float32, []int{2, 3}, x), outTensor(ops.Float32))
	run(t, NewHadamardRotation(), n)
	for i, v := range n.Outputs[0].Float32s() {
		if v != x[i] {
			t.Fatalf("hadamard_size 1: element %d = %v", i, v)
		}
	}
	// Rank 4 transforms the leading shape[0]·(shape[1]/hs) chunks only.
	y := []float32{1, 1, 1, 1, 1, 1, 1, 1}
	n = hadamardNode(hadamardOptions(t, 2, nil), tensorOf(ops.Float32, []int{1, 2, 2, 2}, y), outTensor(ops.Float32))
	run(t, NewHadamardRotation(), n)
	s := float32(2 * (1 / math.Sqrt(2)))
	want := []float32{s, 0, 1, 1, 1, 1, 1, 1}
	for i, v := range n.Outputs[0].Float32s() {
		if v != want[i] {
			t.Fatalf("rank 4: %v, want %v", n.Outputs[0].Float32s(), want)
		}
	}
	// The output keeps a declared shape of the same size.
	out := &ops.Tensor{Type: ops.Float32, Shape: []int{6}}
	n = hadamardNode(hadamardOptions(t, 1, nil), tensorOf(ops.Float32, []int{2, 3}, x), out)
	run(t, NewHadamardRotation(), n)
	wantShape(t, out.Shape, []int{6})
}

func TestHadamardRotationOptions(t *testing.T) {
	n := hadamardNode(hadamardOptions(t, 4, []int64{1, -1, 255, 1}), tensorOf(ops.Float32, []int{1, 4}, []float32{1, 2, 3, 4}), outTensor(ops.Float32))
	k := NewHadamardRotation().(*HadamardRotation)
	run(t, k, n)
	if k.Size != 4 || len(k.RandomBinaryVector) != 4 || k.RandomBinaryVector[1] != -1 || k.RandomBinaryVector[2] != -1 {
		t.Fatalf("decoded %d %v, want 4 [1 -1 -1 1] (AsInt8 truncates 255)", k.Size, k.RandomBinaryVector)
	}
	// A typed vector reads as empty, as C++'s AsVector.
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("hadamard_size")
	b.Int(2)
	b.Key("random_binary_vector")
	v := b.StartVector()
	b.Int(1)
	b.Int(-1)
	b.EndVector(v, true, false)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	n = hadamardNode(buf, tensorOf(ops.Float32, []int{1, 2}, []float32{1, 2}), outTensor(ops.Float32))
	run(t, k, n)
	if len(k.RandomBinaryVector) != 0 {
		t.Fatalf("typed vector decoded as %v, want empty", k.RandomBinaryVector)
	}
}

func TestHadamardRotationErrors(t *testing.T) {
	opts := hadamardOptions(t, 2, ones(2))
	f := func() *ops.Tensor { return tensorOf(ops.Float32, []int{2, 2}, []float32{1, 2, 3, 4}) }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"no options", hadamardNode(nil, f(), outTensor(ops.Float32)), []string{"custom_options", "missing"}},
		{"garbage options", hadamardNode([]byte{1, 2, 3}, f(), outTensor(ops.Float32)), []string{"custom_options"}},
		{"size 0", hadamardNode(hadamardOptions(t, 0, nil), f(), outTensor(ops.Float32)), []string{"hadamard_size", "0"}},
		{"uint8", hadamardNode(opts, tensorOf(ops.Uint8, []int{2, 2}, []uint8{1, 2, 3, 4}), outTensor(ops.Uint8)), []string{"input 0", "uint8"}},
		{"output type", hadamardNode(opts, f(), outTensor(ops.Int32)), []string{"output 0", "int32"}},
		{"rank 1", hadamardNode(opts, tensorOf(ops.Float32, []int{4}, []float32{1, 2, 3, 4}), outTensor(ops.Float32)), []string{"input 0", "rank 1"}},
		{"small output", hadamardNode(opts, f(), &ops.Tensor{Type: ops.Float32, Shape: []int{3}}), []string{"output 0", "3 elements"}},
		{"empty trailing dims", hadamardNode(opts, &ops.Tensor{Type: ops.Float32, Shape: []int{2, 4, 0}}, outTensor(ops.Float32)), nil},
		{"rank 4 with a zero", hadamardNode(opts, &ops.Tensor{Type: ops.Float32, Shape: []int{2, 4, 1, 0}}, outTensor(ops.Float32)), []string{"input 0", "exceed"}},
		{"two inputs", func() *ops.Node {
			n := hadamardNode(opts, f(), outTensor(ops.Float32))
			n.Inputs = append(n.Inputs, f())
			return n
		}(), []string{"input"}},
		{"overflowing shape", hadamardNode(opts, &ops.Tensor{Type: ops.Float32, Shape: []int{1 << 30, 1 << 30, 1 << 30}}, outTensor(ops.Float32)), []string{"input 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.wants == nil {
				if err := prepare(NewHadamardRotation(), c.n); err != nil {
					t.Fatalf("Prepare: %v", err)
				}
				return
			}
			wantPrepareError(t, NewHadamardRotation(), c.n, c.wants...)
		})
	}
	// Eval with a short buffer fails without a panic.
	n := hadamardNode(opts, f(), outTensor(ops.Float32))
	k := NewHadamardRotation()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	n.Outputs[0].Data = n.Outputs[0].Data[:3]
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "shorter") {
		t.Fatalf("Eval with a short output: %v", err)
	}
}
