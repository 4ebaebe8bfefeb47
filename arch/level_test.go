package arch

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestParseLevel(t *testing.T) {
	for _, l := range AllLevels() {
		got, err := ParseLevel(" " + strings.ToUpper(l.String()) + " ")
		if err != nil || got != l {
			t.Fatalf("ParseLevel(%q) = %v, %v", l.String(), got, err)
		}
	}
	if _, err := ParseLevel("sse9"); err == nil || !strings.Contains(err.Error(), "avx512") {
		t.Fatalf("ParseLevel(sse9): %v, want an error listing the levels", err)
	}
}

func TestLevelChain(t *testing.T) {
	cases := []struct {
		l, m Level
		want bool
	}{
		{AVX512, AVX2, true}, {AVX512, Generic, true}, {AVX2, AVX512, false},
		{NEONDotProd, NEON, true}, {NEON, NEONDotProd, false}, {AVX2, NEON, false},
		{NEONI8MM, NEONDotProd, true}, {NEONI8MM, NEON, true}, {NEONDotProd, NEONI8MM, false}, {NEONI8MM, AVX2, false},
		{Generic, Generic, true}, {Generic, AVX2, false},
	}
	for _, c := range cases {
		if got := c.l.Includes(c.m); got != c.want {
			t.Errorf("%v.Includes(%v) = %v", c.l, c.m, got)
		}
	}
	if n := AVX512.Needs(); len(n) != 7 || n[0] != FeatAVX || n[6] != FeatAVX512DQ {
		t.Errorf("AVX512.Needs() = %v", n)
	}
	if n := NEONI8MM.Needs(); len(n) != 3 || n[0] != FeatASIMD || n[1] != FeatASIMDDP || n[2] != FeatI8MM {
		t.Errorf("NEONI8MM.Needs() = %v", n)
	}
}

func TestUse(t *testing.T) {
	saved := Current()
	defer func() {
		if err := Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	levels := Levels()
	if levels[0] != Generic || Best() != levels[len(levels)-1] {
		t.Fatalf("Levels() = %v, Best() = %v", levels, Best())
	}
	for _, l := range levels {
		if err := Use(l); err != nil {
			t.Fatalf("Use(%v): %v", l, err)
		}
		if Current() != l {
			t.Fatalf("Current() = %v after Use(%v)", Current(), l)
		}
		// Every primitive runs an implementation the level includes.
		for _, p := range Describe().Primitives {
			found := false
			for _, im := range p.Impls {
				if im.Name == p.Impl {
					found = true
					if !l.Includes(im.Level) || !im.Usable {
						t.Fatalf("at %v, %s uses %s (level %v, usable %v)", l, p.Name, im.Name, im.Level, im.Usable)
					}
				}
			}
			if !found {
				t.Fatalf("at %v, %s uses unregistered %q", l, p.Name, p.Impl)
			}
		}
		if l == Generic {
			for _, p := range Describe().Primitives {
				if p.Impl != "generic" {
					t.Fatalf("at generic, %s uses %s", p.Name, p.Impl)
				}
			}
		}
	}
	// Levels this process cannot use are refused and change nothing.
	if err := Use(Best()); err != nil {
		t.Fatal(err)
	}
	before := Describe()
	for _, l := range AllLevels() {
		usable := false
		for _, m := range levels {
			usable = usable || m == l
		}
		if usable {
			continue
		}
		err := Use(l)
		var le *LevelError
		if err == nil || !errors.As(err, &le) || le.Level != l {
			t.Fatalf("Use(%v) = %v, want a *LevelError", l, err)
		}
		if !l.on(runtime.GOARCH) && !strings.Contains(err.Error(), "is an "+l.GOARCH()+" level") {
			t.Fatalf("Use(%v): %v", l, err)
		}
		if Current() != before.Level {
			t.Fatalf("failed Use(%v) changed the level to %v", l, Current())
		}
	}
	if err := Use(Level(200)); err == nil {
		t.Fatal("Use(Level(200)) succeeded")
	}
	if err := UseName("no-such-isa"); err == nil {
		t.Fatal("UseName(no-such-isa) succeeded")
	}
}

// TestEnvISA checks that TFLRUN_ISA, when the test runs with it (as
// .ci/run does for every level), was honoured.
func TestEnvISA(t *testing.T) {
	s := os.Getenv("TFLRUN_ISA")
	if s == "" {
		if err := ISAError(); err != nil {
			t.Fatalf("ISAError() = %v without TFLRUN_ISA", err)
		}
		t.Skip("TFLRUN_ISA not set")
	}
	if err := ISAError(); err != nil {
		t.Fatalf("TFLRUN_ISA=%q: %v", s, err)
	}
	l, err := ParseLevel(s)
	if err != nil {
		t.Fatal(err)
	}
	if Current() != l {
		t.Fatalf("TFLRUN_ISA=%q but the level is %v", s, Current())
	}
}

func TestDescribe(t *testing.T) {
	in := Describe()
	if in.GOARCH != runtime.GOARCH || len(in.Primitives) != len(registry) {
		t.Fatalf("Describe() = %+v", in)
	}
	names := map[string]bool{}
	for _, p := range in.Primitives {
		names[p.Name] = true
		if len(p.Impls) == 0 || p.Impls[0].Name != "generic" {
			t.Fatalf("%s: impls %v", p.Name, p.Impls)
		}
	}
	for _, n := range []string{"MatVecMulAcc", "Dot", "VecAdd", "VecMul", "VecMulAcc", "Sigmoid", "Tanh", "MatVecMulAccInt8", "DotInt8", "RowSumsInt8"} {
		if !names[n] {
			t.Errorf("primitive %s missing from Describe", n)
		}
	}
	if s := Summary(); !strings.HasPrefix(s, Current().String()) {
		t.Fatalf("Summary() = %q", s)
	}
	t.Logf("%s; levels %v; L1d %d L2 %d L3 %d (%s)", Summary(), in.Levels, in.L1D, in.L2, in.L3, in.CacheSource)
}

// TestUseDescribeConcurrently: Use and Describe may run at the same time
// (go test -race checks it).
func TestUseDescribeConcurrently(t *testing.T) {
	saved := Current()
	defer func() { _ = Use(saved) }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			_ = Describe()
			_ = Summary()
		}
	}()
	for i := range 50 {
		ls := Levels()
		if err := Use(ls[i%len(ls)]); err != nil {
			t.Error(err)
		}
	}
	<-done
}
