package builtin

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of TOPK_V2's rank-key path (every value type but int64) against
// an independent reference, a stable sort of the positions by decreasing
// value: rows from 1 to 5000 values, k from 1 to the whole row (around
// the candidate buffer's size 4k and its floor of 64), values random,
// sorted either way, constant, with few distinct values, organ-pipe
// shaped (a classic quickselect trap), arranged against the sampled first
// threshold, and float rows mixing -0 and +0 (equal, so ordered by
// position) with ±Inf and subnormals.

// topkRef returns the first k positions of row in TFLite's order: the
// positions sorted by decreasing value, equal values by increasing
// position (a stable sort; the rows hold no NaN).
func topkRef[T float32 | int8 | uint8 | int16 | int32](row []T, k int) []int {
	idx := make([]int, len(row))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case row[a] > row[b]:
			return -1
		case row[a] < row[b]:
			return 1
		}
		return a - b
	})
	return idx[:k]
}

// topkPattern fills v (len n) with pattern p from r.
func topkPattern(r *lcg, p string, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch p {
		case "random":
			v[i] = float64(r.intn(-1000000, 1000000))
		case "ascending":
			v[i] = float64(i)
		case "descending":
			v[i] = float64(n - i)
		case "constant":
			v[i] = 3
		case "few":
			v[i] = float64(r.intn(-3, 3))
		case "organ":
			v[i] = float64(min(i, n-1-i))
		}
	}
	return v
}

// topkRefs returns each row's positions in TFLite's order (topkRef of the
// whole row), computed once for every k checked on the rows.
func topkRefs[T float32 | int8 | uint8 | int16 | int32](rows [][]T) [][]int {
	refs := make([][]int, len(rows))
	for i, row := range rows {
		refs[i] = topkRef(row, len(row))
	}
	return refs
}

// checkTopK runs TOPK_V2 with k on rows and compares each row's first k
// positions and values with refs (topkRefs of rows).
func checkTopK[T float32 | int8 | uint8 | int16 | int32](t *testing.T, what string, dt ops.DataType, rows [][]T, refs [][]int, k int, idxType ops.DataType) {
	t.Helper()
	n := len(rows[0])
	flat := slices.Concat(rows...)
	nd := topkNode(tensorOf(dt, []int{len(rows), n}, flat), int32(k), idxType)
	kern := NewTopKV2()
	run(t, kern, nd)
	vals := ops.View[T](nd.Outputs[0].Data)
	for r, row := range rows {
		for j, p := range refs[r][:k] {
			var got int
			if idxType == ops.Int32 {
				got = int(nd.Outputs[1].Int32s()[r*k+j])
			} else {
				got = int(nd.Outputs[1].Int16s()[r*k+j])
			}
			gv := vals[r*k+j]
			same := gv == row[p]
			if f, ok := any(gv).(float32); ok {
				same = math.Float32bits(f) == math.Float32bits(any(row[p]).(float32))
			}
			if got != p || !same {
				t.Fatalf("%s n=%d k=%d row %d rank %d: got position %d value %v, want %d value %v", what, n, k, r, j, got, gv, p, row[p])
			}
		}
	}
	// One measured Eval (after AllocsPerRun's warm-up) shows an allocation
	// as well as noAllocs' twenty, at a tenth of the cost over the ~2000
	// configurations of TestTopKV2RankKeys.
	if allocs := testing.AllocsPerRun(1, func() {
		if err := kern.Eval(nd); err != nil {
			t.Fatalf("Eval: %v", err)
		}
	}); allocs != 0 {
		t.Fatalf("%s n=%d k=%d: Eval allocated %v times, want 0", what, n, k, allocs)
	}
}

func TestTopKV2RankKeys(t *testing.T) {
	r := lcg(21)
	patterns := []string{"random", "ascending", "descending", "constant", "few", "organ"}
	for _, n := range []int{1, 2, 5, 63, 64, 65, 100, 257, 1000, 3953, 5000} {
		ks := []int{1, 2, 3, 15, 16, 17, 25, 100, 250, n / 4, n/4 + 1, n - 1, n}
		for pi, p := range patterns {
			what := p
			base := [][]float64{topkPattern(&r, p, n), topkPattern(&r, p, n)}
			// float32, with the values spread so that some are tiny.
			fr := make([][]float32, len(base))
			for i, b := range base {
				fr[i] = make([]float32, n)
				for j, v := range b {
					fr[i][j] = float32(v) * 1e-3
				}
			}
			ir := make([][]int32, len(base))
			i8 := make([][]int8, len(base))
			u8 := make([][]uint8, len(base))
			i16 := make([][]int16, len(base))
			for i, b := range base {
				ir[i], i8[i], u8[i], i16[i] = make([]int32, n), make([]int8, n), make([]uint8, n), make([]int16, n)
				for j, v := range b {
					ir[i][j] = int32(v)
					i8[i][j] = int8(int64(v) % 128)
					u8[i][j] = uint8(int64(v) % 256)
					i16[i][j] = int16(int64(v) % 32768)
				}
			}
			fRef, iRef, i8Ref, u8Ref, i16Ref := topkRefs(fr), topkRefs(ir), topkRefs(i8), topkRefs(u8), topkRefs(i16)
			for _, k := range ks {
				if k < 1 || k > n {
					continue
				}
				idxType := ops.Int32
				if (k+pi)%3 == 0 {
					idxType = ops.Int16
				}
				checkTopK(t, "float32 "+what, ops.Float32, fr, fRef, k, idxType)
				checkTopK(t, "int32 "+what, ops.Int32, ir, iRef, k, idxType)
				checkTopK(t, "int8 "+what, ops.Int8, i8, i8Ref, k, idxType)
				checkTopK(t, "uint8 "+what, ops.Uint8, u8, u8Ref, k, idxType)
				checkTopK(t, "int16 "+what, ops.Int16, i16, i16Ref, k, idxType)
			}
		}
	}
}

// TestTopKV2SampledThreshold puts the row's largest values exactly at the
// positions the first threshold is sampled from, so that fewer than k
// positions reach it and the row is scanned again from the start; and
// the opposite, a sample of the smallest values, so that the candidate
// buffer overflows and is cut back several times.
func TestTopKV2SampledThreshold(t *testing.T) {
	for _, nk := range [][2]int{{3953, 100}, {1000, 24}, {5000, 250}, {700, 30}} {
		n, k := nk[0], nk[1]
		m := min(topkSample, max(4*k, 64), n)
		for _, high := range []bool{true, false} {
			row := make([]int32, n)
			for c := range row {
				row[c] = int32(c % 7)
			}
			for i := range m {
				if high {
					row[(2*i+1)*n/(2*m)] = int32(1000 + i)
				} else {
					row[(2*i+1)*n/(2*m)] = int32(-1000 - i)
				}
			}
			rows := [][]int32{row}
			checkTopK(t, fmt.Sprintf("sample high=%v", high), ops.Int32, rows, topkRefs(rows), k, ops.Int32)
			frow := make([]float32, n)
			for c, v := range row {
				frow[c] = float32(v) / 8
			}
			frows := [][]float32{frow}
			checkTopK(t, fmt.Sprintf("float32 sample high=%v", high), ops.Float32, frows, topkRefs(frows), k, ops.Int32)
		}
	}
}

func TestTopKV2FloatSpecials(t *testing.T) {
	r := lcg(22)
	negZero := float32(math.Copysign(0, -1))
	specials := []float32{0, negZero, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -1e-45, math.MaxFloat32, -math.MaxFloat32, 1, -1}
	for trial := 0; trial < 40; trial++ {
		n := r.intn(1, 700)
		k := r.intn(1, n)
		row := make([]float32, n)
		for i := range row {
			row[i] = specials[r.intn(0, len(specials)-1)]
		}
		rows := [][]float32{row}
		checkTopK(t, "specials", ops.Float32, rows, topkRefs(rows), k, ops.Int32)
	}
	// -0 before +0 in the row: they tie, so the earlier (-0) ranks first.
	zeros := [][]float32{{negZero, 0, negZero, -1, 0}}
	checkTopK(t, "zeros", ops.Float32, zeros, topkRefs(zeros), 4, ops.Int32)
}

func TestSelectTopKeys(t *testing.T) {
	r := lcg(23)
	for trial := 0; trial < 300; trial++ {
		n := r.intn(1, 600)
		k := r.intn(1, n)
		b := make([]uint64, n)
		seen := map[uint64]bool{}
		for i := range b {
			var v uint64
			switch trial % 3 {
			case 0:
				v = uint64(r.next())<<20 | uint64(i)
			case 1:
				v = uint64(i) // ascending
			default:
				v = uint64(min(i, n-1-i))<<16 | uint64(i) // organ pipe, distinct
			}
			b[i] = v
			seen[v] = true
		}
		want := slices.Clone(b)
		slices.Sort(want)
		slices.Reverse(want)
		selectTopKeys(b, k)
		got := slices.Clone(b[:k])
		if b[k-1] != want[k-1] {
			t.Fatalf("n=%d k=%d: b[k-1] = %d, want the k-th largest %d", n, k, b[k-1], want[k-1])
		}
		slices.Sort(got)
		slices.Reverse(got)
		if !slices.Equal(got, want[:k]) {
			t.Fatalf("n=%d k=%d: b[:k] is not the k largest", n, k)
		}
	}
}

// BenchmarkTopKV2 times the recommendation_rnn shape (3953 scores, k =
// 100) and a few others, float32 in [-1, 1).
//
//	go test ./ops -run='^$' -bench=TopKV2
func BenchmarkTopKV2(b *testing.B) {
	for _, shape := range [][2]int{{3953, 100}, {3953, 10}, {1000, 1}, {50000, 100}} {
		n, k := shape[0], shape[1]
		r := lcg(uint64(n))
		row := make([]float32, n)
		for i := range row {
			row[i] = r.float(-1, 1)
		}
		b.Run(fmt.Sprintf("n%d_k%d", n, k), func(b *testing.B) {
			nd := topkNode(tensorOf(ops.Float32, []int{n}, row), int32(k), ops.Int32)
			kern := NewTopKV2()
			if err := prepare(kern, nd); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := kern.Eval(nd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
