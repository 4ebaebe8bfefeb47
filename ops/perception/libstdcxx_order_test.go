package perception

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The orders of libstdc++'s std::sort and std::priority_queue on inputs
// full of ties, recorded with g++ 12.2 (testdata/libstdcxx_orders.cc),
// against argSorter and kpHeap.

func TestLibstdcxxOrders(t *testing.T) {
	f, err := os.Open("testdata/libstdcxx_orders.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vals []float32
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		kind := fields[0]
		n, _ := strconv.Atoi(fields[1])
		var want []int32
		i := 2 // "vals" or "order"
		if kind == "sort" {
			vals = vals[:0]
			for i++; fields[i] != "order"; i++ {
				v, _ := strconv.ParseFloat(fields[i], 32)
				vals = append(vals, float32(v))
			}
		}
		for i++; i < len(fields); i++ {
			v, _ := strconv.Atoi(fields[i])
			want = append(want, int32(v))
		}
		if len(vals) != n || len(want) != n {
			t.Fatalf("line %q: malformed", sc.Text()[:20])
		}
		var got []int32
		if kind == "sort" {
			s := argSorter{scores: vals, idx: make([]int32, n)}
			s.sort()
			got = s.idx
		} else {
			h := make(kpHeap, 0, n)
			for j, v := range vals {
				h.push(keypoint{id: int32(j), score: v})
			}
			for len(h) > 0 {
				got = append(got, h.pop().id)
			}
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("%s of %d: order %v, libstdc++'s %v", kind, n, got, want)
				break
			}
		}
		lines++
	}
	if lines != 14 {
		t.Errorf("read %d cases, want 14", lines)
	}
}

func TestArgSorterNaN(t *testing.T) {
	// NaN sorts last (as −Inf); the result is still a permutation.
	nan := float32(0)
	nan = nan / nan
	s := argSorter{scores: []float32{1, nan, 3, nan, 2, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 0, 5}}
	s.idx = make([]int32, len(s.scores))
	s.sort()
	seen := map[int32]bool{}
	for _, i := range s.idx {
		seen[i] = true
	}
	if len(seen) != len(s.scores) {
		t.Fatalf("order %v is not a permutation", s.idx)
	}
	if s.idx[0] != 19 || s.idx[1] != 2 || s.idx[2] != 4 || s.idx[3] != 0 || s.idx[4] != 18 {
		t.Errorf("order %v: want 19 2 4 0 18 first", s.idx)
	}
}
