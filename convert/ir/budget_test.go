package ir

import (
	"runtime"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// TestBudgetLive checks that MaxConstantBytes counts the constants still
// reachable: tensors dropped are recounted away, tensors kept are not.
func TestBudgetLive(t *testing.T) {
	const mib = 1 << 20
	b := NewBudget(Limits{MaxConstantBytes: 16 * mib})
	b.Names = map[string]string{"MaxConstantBytes": "--max-constant-bytes"}
	var keep []*Tensor
	// 64 MiB made in all, 4 MiB alive at a time: within the budget.
	for i := 0; i < 64; i++ {
		tt := &Tensor{DType: Uint8, Shape: Shape{mib}, Data: make([]byte, mib)}
		if err := b.Add(tt, nil); err != nil {
			t.Fatalf("tensor %d: %v", i, err)
		}
		keep = append(keep, tt)
		if len(keep) > 4 {
			keep = keep[1:]
		}
	}
	if live := b.Live(); live > 16*mib+b.slack()*2 {
		t.Fatalf("live = %d, past budget and slack", live)
	}
	// Now keep everything: the budget must refuse, naming its flag.
	var all []*Tensor
	var err error
	for i := 0; i < 64 && err == nil; i++ {
		tt := &Tensor{DType: Uint8, Shape: Shape{mib}, Data: make([]byte, mib)}
		all = append(all, tt)
		err = b.Add(tt, func() string { return "tensor t" })
	}
	if err == nil || !strings.Contains(err.Error(), "past the budget of 16777216 (--max-constant-bytes)") || !strings.HasPrefix(err.Error(), "tensor t") {
		t.Fatalf("err = %v, want the budget named", err)
	}
	if len(all) > 16+int(2*b.slack()/mib)+1 {
		t.Fatalf("accepted %d MiB alive with a 16 MiB budget", len(all))
	}
	if b.Err() == nil {
		t.Fatal("the error does not stay on the budget")
	}
	runtime.KeepAlive(all)
	runtime.KeepAlive(keep)
}

// TestBudgetReserve checks that Reserve refuses before allocating and
// counts nothing, and that a nil Budget accepts everything.
func TestBudgetReserve(t *testing.T) {
	b := NewBudget(Limits{MaxConstantBytes: 1 << 20})
	if err := b.Reserve(1<<20, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(2<<20, func() string { return "x" }); err == nil || !strings.Contains(err.Error(), "ir.Limits.MaxConstantBytes") {
		t.Fatalf("err = %v", err)
	}
	if b.Live() != 0 || b.Err() != nil {
		t.Fatal("Reserve counted")
	}
	var nb *Budget
	if nb.Reserve(1<<40, nil) != nil || nb.Add(&Tensor{Data: make([]byte, 1024)}, nil) != nil || nb.Get() != DefaultLimits {
		t.Fatal("nil budget")
	}
	// Small tensors are not counted.
	tt := &Tensor{DType: Uint8, Shape: Shape{8}, Data: make([]byte, 8)}
	b.Add(tt, nil)
	if b.Live() != 0 {
		t.Fatal("counted a small tensor")
	}
	// A tensor is counted once.
	big := &Tensor{DType: Uint8, Shape: Shape{4096}, Data: make([]byte, 4096)}
	b.Add(big, nil)
	b.Add(big, nil)
	if b.Live() != 4096 {
		t.Fatalf("live = %d, want 4096", b.Live())
	}
	runtime.KeepAlive(big)
}

// TestDecodeTensorBudget checks both tensor limits on a splat constant
// of a few bytes that asks for a large tensor.
func TestDecodeTensorBudget(t *testing.T) {
	p := splat(1 << 20) // 4 MiB
	b := NewBudget(Limits{MaxTensorBytes: 1 << 20})
	if _, err := DecodeTensor(p, b, nil); err == nil || !strings.Contains(err.Error(), "limit on one tensor (ir.Limits.MaxTensorBytes)") {
		t.Fatalf("err = %v", err)
	}
	b = NewBudget(Limits{MaxConstantBytes: 6 << 20})
	t1, err := DecodeTensor(p, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeTensor(p, b, func() string { return "second" }); err == nil || !strings.Contains(err.Error(), "second: constant float32[1048576] needs 4194304 bytes") {
		t.Fatalf("err = %v", err)
	}
	runtime.KeepAlive(t1)
}

// splat is a float32 TensorProto of k elements given as one value.
func splat(k int64) *tfpb.TensorProto {
	return &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(k), FloatVal: []float32{1}}
}
