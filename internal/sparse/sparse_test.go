package sparse

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// Tests: TensorFlow Lite's converter test vectors
// (sparsity_format_converter_test.cc), random tensors compressed in every
// format and expanded back, and inconsistent parameters, which must be
// refused before anything is written.

func i8(v ...int) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(int8(x))
	}
	return b
}

func TestTFLiteVectors(t *testing.T) {
	dense := i8(6, 0, 9, 8, 0, 0, 0, 0, 5, 0, 0, 7)
	shape := []int{3, 4}
	cases := []struct {
		name   string
		p      Params
		values []byte
	}{
		{"D0D1", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, {DenseSize: 4}}}, dense},
		{"S0D1", Params{TraversalOrder: []int{0, 1}, Levels: []Level{
			{Format: SparseCSR, Segments: []int{0, 2}, Indices: []int{0, 2}}, {DenseSize: 4}}}, i8(6, 0, 9, 8, 5, 0, 0, 7)},
		{"D0S1", Params{TraversalOrder: []int{0, 1}, Levels: []Level{
			{DenseSize: 3}, {Format: SparseCSR, Segments: []int{0, 3, 3, 5}, Indices: []int{0, 2, 3, 0, 3}}}}, i8(6, 9, 8, 5, 7)},
		{"S0S1", Params{TraversalOrder: []int{0, 1}, Levels: []Level{
			{Format: SparseCSR, Segments: []int{0, 2}, Indices: []int{0, 2}},
			{Format: SparseCSR, Segments: []int{0, 3, 5}, Indices: []int{0, 2, 3, 0, 3}}}}, i8(6, 9, 8, 5, 7)},
		{"D1D0", Params{TraversalOrder: []int{1, 0}, Levels: []Level{{DenseSize: 4}, {DenseSize: 3}}}, i8(6, 0, 5, 0, 0, 0, 9, 0, 0, 8, 0, 7)},
		{"S1D0", Params{TraversalOrder: []int{1, 0}, Levels: []Level{
			{Format: SparseCSR, Segments: []int{0, 3}, Indices: []int{0, 2, 3}}, {DenseSize: 3}}}, i8(6, 0, 5, 9, 0, 0, 8, 0, 7)},
	}
	for _, c := range cases {
		got, err := Densify(shape, &c.p, c.values, 1)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(got, dense) {
			t.Errorf("%s: %v, want %v", c.name, got, dense)
		}
	}
	// A 4×4 matrix in 2×2 blocks, the blocks in CSR (TFLite's
	// BlockTestD0S1 layout).
	dense4 := i8(1, 0, 2, 3, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6)
	p := Params{TraversalOrder: []int{0, 1, 2, 3}, BlockMap: []int{0, 1}, Levels: []Level{
		{DenseSize: 2}, {Format: SparseCSR, Segments: []int{0, 2, 3}, Indices: []int{0, 1, 1}},
		{DenseSize: 2}, {DenseSize: 2}}}
	got, err := Densify([]int{4, 4}, &p, i8(1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6), 1)
	if err != nil || !bytes.Equal(got, dense4) {
		t.Errorf("2×2 blocks: %v, %v; want %v", got, err, dense4)
	}
}

// randomFormat draws a traversal (a permutation of the dimensions, then
// of the block dimensions), a block map and formats for shape.
func randomFormat(r *rand.Rand, shape []int) (traversal, blockMap, blockSizes []int, formats []Format) {
	rank := len(shape)
	traversal = r.Perm(rank)
	for d := 0; d < rank; d++ {
		if r.IntN(3) == 0 {
			var divs []int
			for s := 1; s <= shape[d]; s++ {
				if shape[d]%s == 0 {
					divs = append(divs, s)
				}
			}
			blockMap = append(blockMap, d)
			blockSizes = append(blockSizes, divs[r.IntN(len(divs))])
		}
	}
	for _, b := range r.Perm(len(blockMap)) {
		traversal = append(traversal, rank+b)
	}
	for range traversal {
		formats = append(formats, Format(r.IntN(2)))
	}
	return
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 400; trial++ {
		rank := 1 + r.IntN(3)
		shape := make([]int, rank)
		n := 1
		for d := range shape {
			shape[d] = 1 + r.IntN(6)
			n *= shape[d]
		}
		elem := []int{1, 2, 4}[r.IntN(3)]
		dense := make([]byte, n*elem)
		for e := 0; e < n; e++ {
			if r.IntN(3) == 0 {
				for b := 0; b < elem; b++ {
					dense[e*elem+b] = byte(1 + r.IntN(255))
				}
			}
		}
		traversal, blockMap, blockSizes, formats := randomFormat(r, shape)
		p, values, err := Compress(shape, traversal, blockMap, blockSizes, formats, dense, elem)
		if err != nil {
			t.Fatal(err)
		}
		cnt, err := Count(shape, p)
		if err != nil || cnt*elem != len(values) {
			t.Fatalf("shape %v traversal %v blocks %v/%v formats %v: count %d, %v for %d bytes", shape, traversal, blockMap, blockSizes, formats, cnt, err, len(values))
		}
		got, err := Densify(shape, p, values, elem)
		if err != nil {
			t.Fatalf("shape %v traversal %v: %v", shape, traversal, err)
		}
		if !bytes.Equal(got, dense) {
			t.Fatalf("shape %v traversal %v blocks %v/%v formats %v: round trip differs", shape, traversal, blockMap, blockSizes, formats)
		}
	}
}

// TestInvalid: parameters TensorFlow Lite's verifier refuses, and a few
// more, are errors naming the problem.
func TestInvalid(t *testing.T) {
	csr := func(seg, idx []int) Level { return Level{Format: SparseCSR, Segments: seg, Indices: idx} }
	shape := []int{3, 4}
	cases := []struct {
		name   string
		p      Params
		values int
		want   string
	}{
		{"short traversal", Params{TraversalOrder: []int{0}, Levels: []Level{{DenseSize: 3}}}, 3, "rank-2"},
		{"levels count", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}}}, 12, "dim_metadata 1"},
		{"not a permutation", Params{TraversalOrder: []int{1, 1}, Levels: []Level{{DenseSize: 4}, {DenseSize: 4}}}, 16, "permutation"},
		{"dimension out of range", Params{TraversalOrder: []int{0, 2}, Levels: []Level{{DenseSize: 3}, {DenseSize: 4}}}, 12, "permutation"},
		{"block dim among tensor dims", Params{TraversalOrder: []int{2, 0, 1}, BlockMap: []int{1}, Levels: []Level{{DenseSize: 2}, {DenseSize: 3}, {DenseSize: 2}}}, 12, "permutation"},
		{"block map missing", Params{TraversalOrder: []int{0, 1, 2}, Levels: []Level{{DenseSize: 3}, {DenseSize: 2}, {DenseSize: 2}}}, 12, "block_map has 0"},
		{"block map out of range", Params{TraversalOrder: []int{0, 1, 2}, BlockMap: []int{2}, Levels: []Level{{DenseSize: 3}, {DenseSize: 2}, {DenseSize: 2}}}, 12, "names dimension 2"},
		{"block does not divide", Params{TraversalOrder: []int{0, 1, 2}, BlockMap: []int{1}, Levels: []Level{{DenseSize: 3}, {DenseSize: 1}, {DenseSize: 3}}}, 12, "not a multiple"},
		{"block size 0", Params{TraversalOrder: []int{0, 1, 2}, BlockMap: []int{1}, Levels: []Level{{DenseSize: 3}, {DenseSize: 4}, {DenseSize: 0}}}, 12, "block size must be positive"},
		{"dense size wrong", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, {DenseSize: 5}}}, 15, "dense_size 5"},
		{"segments count", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, csr([]int{0, 1}, []int{0})}}, 1, "2 segments"},
		{"segments decrease", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, csr([]int{0, 2, 1, 2}, []int{0, 1})}}, 2, "below the one before"},
		{"segment negative", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, csr([]int{-1, 0, 0, 1}, []int{0})}}, 1, "negative"},
		{"last segment", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, csr([]int{0, 1, 1, 1}, []int{0, 1})}}, 2, "last segment is 1"},
		{"index out of range", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, csr([]int{0, 1, 1, 1}, []int{4})}}, 1, "outside its dimension"},
		{"index negative", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, csr([]int{0, 1, 1, 1}, []int{-1})}}, 1, "outside its dimension"},
		{"unknown format", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, {Format: 7}}}, 1, "unknown format"},
		{"value count", Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, {DenseSize: 4}}}, 11, "describes 12 values"},
	}
	for _, c := range cases {
		_, err := Densify(shape, &c.p, make([]byte, c.values), 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A tiny buffer describing a huge dense tensor.
	p := Params{TraversalOrder: []int{0, 1}, Levels: []Level{csr([]int{0, 0}, nil), csr([]int{0}, nil)}}
	p.Levels[0] = csr([]int{0, 1}, []int{0})
	p.Levels[1] = csr([]int{0, 1}, []int{0})
	if _, err := Densify([]int{1 << 16, 1 << 15}, &p, []byte{1, 2, 3, 4}, 4); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("huge dense shape: %v", err)
	}
	deep := Params{TraversalOrder: make([]int, MaxLevels+1), Levels: make([]Level, MaxLevels+1)}
	if _, err := Densify(make([]int, MaxLevels+1), &deep, nil, 1); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("too many levels: %v", err)
	}
	if _, err := Densify(shape, &Params{TraversalOrder: []int{0, 1}, Levels: []Level{{DenseSize: 3}, {DenseSize: 4}}}, make([]byte, 12), 0); err == nil {
		t.Error("element size 0 accepted")
	}
}
