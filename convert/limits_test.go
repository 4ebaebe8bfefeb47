package convert

import (
	"strings"
	"sync"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/hostile"
)

// TestConstantBudget checks the total budget on live constants: a graph
// of a few hundred bytes asking for 4 MiB constants stops at the one
// that passes the budget, naming it and the option; each constant alone
// is within the one-tensor limit.
func TestConstantBudget(t *testing.T) {
	g := hostile.BigConstants(8, 1<<20)
	_, err := convertGraphDef(t, g, Options{MaxConstantBytes: 10 << 20})
	if err == nil || !strings.Contains(err.Error(), `node "c2" (op Const)`) ||
		!strings.Contains(err.Error(), "past the budget of 10485760 (Options.MaxConstantBytes, --max-constant-bytes)") {
		t.Fatalf("err = %v, want the constant budget naming c2", err)
	}
	_, err = convertGraphDef(t, g, Options{MaxTensorBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), `node "c0" (op Const)`) ||
		!strings.Contains(err.Error(), "limit on one tensor (Options.MaxTensorBytes, --max-tensor-bytes)") {
		t.Fatalf("err = %v, want the tensor limit naming c0", err)
	}
	if _, err := convertGraphDef(t, g, Options{MaxConstantBytes: 40 << 20}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
}

// TestNodeBudgetGraph checks that the node budget applies to the graph
// as read, before it is imported, not only to what inlining grows it to.
func TestNodeBudgetGraph(t *testing.T) {
	_, err := convertGraphDef(t, hostile.Chain(100), Options{MaxNodes: 50})
	if err == nil || !strings.Contains(err.Error(), "the graph has 101 nodes, past the node budget of 50 (Options.MaxNodes, --max-nodes)") {
		t.Fatalf("err = %v", err)
	}
}

// TestFoldedBytesBudget checks that folding past MaxFoldedBytes leaves
// ops unfolded (lowered as operators) rather than failing.
func TestFoldedBytesBudget(t *testing.T) {
	g := hostile.FoldChain(10)
	res, err := convertGraphDef(t, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := opList(res); got != "ADD" {
		t.Fatalf("operators %q, want the chain folded to one ADD", got)
	}
	res, err = convertGraphDef(t, g, Options{MaxFoldedBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	// Each fold makes 16 bytes: four fit, the other six adds stay.
	if got := opList(res); got != "ADD ADD ADD ADD ADD ADD ADD" {
		t.Fatalf("operators %q, want the adds past the folding budget kept", got)
	}
}

// TestLimitsPerConversion runs conversions with different limits at once:
// each keeps its own (no limit is process-wide state).
func TestLimitsPerConversion(t *testing.T) {
	g := hostile.BigConstants(3, 1<<18) // 1 MiB each
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := Options{}
			if i%2 == 1 {
				opts.MaxConstantBytes = 2 << 20
			}
			_, errs[i] = convertGraphDef(t, g, opts)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if i%2 == 0 && err != nil || i%2 == 1 && (err == nil || !strings.Contains(err.Error(), "--max-constant-bytes")) {
			t.Errorf("conversion %d (small budget: %v): err = %v", i, i%2 == 1, err)
		}
	}
}

// TestHugeShapes checks that shapes past every limit are errors naming
// the node (or the tensor), for a Fill of 2^93 elements and a
// BroadcastTo to one.
func TestHugeShapes(t *testing.T) {
	_, err := convertGraphDef(t, hostile.HugeFill(1<<31-1, 1<<31-1, 1<<31-1, 4), Options{})
	if err == nil || !strings.Contains(err.Error(), `node "fill" (op Fill): shape [2147483647 2147483647 2147483647 4] has too many elements`) {
		t.Fatalf("err = %v", err)
	}
	_, err = convertGraphDef(t, hostile.HugeFill(1<<26, 4), Options{})
	if err == nil || !strings.Contains(err.Error(), "(more than 4 × Options.MaxFoldElements, --max-fold-elements)") {
		t.Fatalf("err = %v", err)
	}
}
