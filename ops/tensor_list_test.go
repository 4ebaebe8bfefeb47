package ops

import (
	"strings"
	"testing"
)

// TestTensorLists checks the store's handles, value copies, growth and
// memory bound.
func TestTensorLists(t *testing.T) {
	s := NewTensorLists(NewMemoryBudget(1 << 16))
	h, l, err := s.New(Float32, []int{-1, 2}, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.NumElements() != 3 || l.ItemShape != nil || l.Item(0) != nil {
		t.Fatalf("new list: %d items, item shape %v", l.NumElements(), l.ItemShape)
	}
	if err := s.SetItemShape(l, []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	copy(l.Item(1), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	l.MarkSet(1)
	if err := s.SetItemShape(l, []int{2, 2}); err == nil || !strings.Contains(err.Error(), "one shape per list") {
		t.Errorf("second item shape: %v", err)
	}
	h2, l2, err := s.Copy(h, "owner")
	if err != nil {
		t.Fatal(err)
	}
	l = &s.lists[0]
	l2.Item(1)[0] = 99
	if l.Item(1)[0] != 1 || !l2.IsSet(1) || l2.IsSet(0) || l2.Owner != "owner" {
		t.Errorf("copy shares storage or lost flags")
	}
	s.Freeze(h2)
	if l2.Owner != nil {
		t.Errorf("Freeze kept the owner")
	}
	if err := s.Resize(l2, 5); err != nil || l2.NumElements() != 5 || l2.IsSet(4) || l2.Item(1)[0] != 99 {
		t.Errorf("resize: %v, %d items", err, l2.NumElements())
	}
	if _, err := s.Get(h); err != nil {
		t.Fatal(err)
	}
	s.Reset()
	if _, err := s.Get(h); err == nil {
		t.Errorf("a handle of the previous run is accepted")
	}
	for _, bad := range []int32{0, -1, 1 << 30} {
		if _, err := s.Get(bad); err == nil {
			t.Errorf("handle %#x accepted", bad)
		}
	}
	// Storage is reused after Reset: the charge does not grow.
	used := s.budget.Used()
	h, l, err = s.New(Float32, []int{1, 2}, 3, nil)
	if err != nil || s.budget.Used() != used {
		t.Errorf("reuse: %v, %d bytes charged, %d before", err, s.budget.Used(), used)
	}
	for i := range 3 {
		if l.IsSet(i) {
			t.Errorf("item %d of a reused list is set", i)
		}
	}
	if _, _, err := s.New(Float32, []int{1024, 1024}, 1<<20, nil); err == nil || !strings.Contains(err.Error(), "memory bound") {
		t.Errorf("2^40 elements: %v", err)
	}
	if _, _, err := s.New(Float32, nil, -1, nil); err == nil {
		t.Errorf("negative length accepted")
	}
	if _, _, err := s.New(String, nil, 1, nil); err == nil {
		t.Errorf("string items accepted")
	}
}

func TestCompatibleShapes(t *testing.T) {
	for _, c := range []struct {
		partial, shape []int
		want           bool
	}{
		{nil, []int{3}, true},
		{[]int{-1, 2}, []int{5, 2}, true},
		{[]int{-1, 2}, []int{5, 3}, false},
		{[]int{2}, []int{2, 1}, false},
		{[]int{}, []int{}, true},
	} {
		if got := CompatibleShapes(c.partial, c.shape); got != c.want {
			t.Errorf("CompatibleShapes(%v, %v) = %v", c.partial, c.shape, got)
		}
	}
}
