package convert

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/tflrun/tflrun/convert/internal/hostile"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// The converter's time must grow with the graph, not its square: a
// legalisation replacing uses one node at a time, or a simplification of
// the whole graph after each inlined call, made a 100k-node chain or a
// 20k-call chain take minutes. These tests convert each hostile class at
// a size n and 4n and compare the work (ir.Budget.Work, node visits
// counted by the passes, not time): linear work grows 4×, quadratic 16×.

// workOf converts g towards hostile.Out and returns the work it took.
func workOf(t *testing.T, g *tfpb.GraphDef, opts Options) int64 {
	t.Helper()
	res, err := convertGraphDef(t, g, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Entry.Func.Budget.Work()
}

func TestLinearWork(t *testing.T) {
	big := Options{MaxNodes: 1 << 22, MaxLoopIterations: 1 << 14}
	cases := []struct {
		name string
		n    int
		gen  func(n int) *tfpb.GraphDef
		opts Options
	}{
		{"chain of ops (legalised, identities bypassed)", 2_500, func(n int) *tfpb.GraphDef { return hostile.Chain(n, "Relu", "Identity", "Neg") }, big},
		{"chain of folds", 2_500, hostile.FoldChain, big},
		{"chain of calls", 1_000, hostile.CallChain, big},
		{"calls used far away", 250, diamondCalls, big},
		{"loop unrolled", 250, func(n int) *tfpb.GraphDef { return hostile.While(n, 4) }, big},
		{"many outputs", 1_250, wideGraph, big},
	}
	for _, c := range cases {
		if testing.Short() {
			c.n /= 4 // quadratic work still grows 16×
		}
		t.Run(c.name, func(t *testing.T) {
			g1, g4 := c.gen(c.n), c.gen(4*c.n)
			opts := c.opts
			if c.name == "many outputs" {
				opts.OutputArrays = wideOutputs(c.n)
			}
			w1 := workOfOutputs(t, g1, opts, c.name == "many outputs", c.n)
			w4 := workOfOutputs(t, g4, opts, c.name == "many outputs", 4*c.n)
			ratio := float64(w4) / float64(w1)
			t.Logf("n=%d: work %d; 4n: work %d (×%.2f)", c.n, w1, w4, ratio)
			if ratio > 6 {
				t.Errorf("work grew ×%.1f for 4× the graph (n=%d: %d, 4n: %d): quadratic", ratio, c.n, w1, w4)
			}
		})
	}
}

func workOfOutputs(t *testing.T, g *tfpb.GraphDef, opts Options, wide bool, n int) int64 {
	if !wide {
		return workOf(t, g, opts)
	}
	opts.OutputArrays = wideOutputs(n)
	res, err := ConvertModel(graphModel(t, g), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Entry.Func.Budget.Work()
}

// wideGraph is x feeding n Relu nodes, each an output.
func wideGraph(n int) *tfpb.GraphDef {
	g := hostile.New()
	x := g.Input()
	for i := 0; i < n; i++ {
		g.Unary("Relu", fmt.Sprintf("r%d", i), x)
	}
	return g.G
}

func wideOutputs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r%d", i)
	}
	return out
}

var fullSize = flag.Bool("full-size", false, "TestHostileFullSize: convert the hostile graphs at full size and report time and memory")

// TestHostileFullSize converts each hostile class at the size the bounds
// are meant for and reports the time and heap it took (it asserts the
// outcome, error or model, and reports a class over 10 s without
// failing: the machine may be loaded). Run it with
//
//	go test ./convert -run TestHostileFullSize -full-size -v
func TestHostileFullSize(t *testing.T) {
	if !*fullSize || testing.Short() {
		t.Skip("run with -full-size")
	}
	cases := []struct {
		name    string
		g       func() *tfpb.GraphDef
		opts    Options
		wantErr string
	}{
		{"1M-node chain, default budget", func() *tfpb.GraphDef { return hostile.Chain(1_000_000, "Relu", "Identity", "Neg") }, Options{}, "past the node budget"},
		{"1M-node chain, MaxNodes 2M", func() *tfpb.GraphDef { return hostile.Chain(1_000_000, "Relu", "Identity", "Neg") }, Options{MaxNodes: 2_000_000}, ""},
		{"100k-call chain", func() *tfpb.GraphDef { return hostile.CallChain(100_000) }, Options{}, ""},
		{"20k-call chain", func() *tfpb.GraphDef { return hostile.CallChain(20_000) }, Options{}, ""},
		{"calls nested 10k deep", func() *tfpb.GraphDef { return hostile.NestedCalls(10_000) }, Options{}, "nest more than 256 deep"},
		{"eight 1 GiB splat constants", func() *tfpb.GraphDef { return hostile.BigConstants(8, 1<<28) }, Options{}, "--max-constant-bytes"},
		{"loop unrolled past the node budget", func() *tfpb.GraphDef { return hostile.While(4096, 100) }, Options{}, "past the node budget"},
		{"loop of 10^9 iterations", func() *tfpb.GraphDef { return hostile.While(1_000_000_000, 1) }, Options{}, "--max-loop-iterations"},
		{"Fill of 2^93 elements", func() *tfpb.GraphDef { return hostile.HugeFill(1<<31-1, 1<<31-1, 1<<31-1, 4) }, Options{}, ""},
	}
	for _, c := range cases {
		g := c.g()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := convertGraphDef(t, g, c.opts)
		took := time.Since(start)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !contains(err.Error(), c.wantErr)):
			t.Errorf("%s: err = %v, want one naming %q", c.name, err, c.wantErr)
		}
		note := ""
		if took > 10*time.Second {
			note = " (over 10 s)"
		}
		t.Logf("%-38s %8.2f s%s, heap %5d MiB at most since GC, result: %v", c.name, took.Seconds(), note, (after.HeapSys-before.HeapSys)>>20, errOrOK(err))
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func errOrOK(err error) string {
	if err == nil {
		return "converted"
	}
	s := err.Error()
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
