//go:build !purego

package arch

import (
	"os"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestARMSelection checks that 32-bit ARM runs at neon exactly when the
// build has NEON kernels (GOARM=7) and HWCAP reports NEON, generic
// otherwise. TFLRUN_EXPECT_LEVEL=<level> makes it also fail unless Best()
// is that level, which is how CI checks that qemu-arm's -cpu cortex-a7
// selects neon and -cpu arm1176 does not.
func TestARMSelection(t *testing.T) {
	want := Generic
	if cpu.ARM.HasNEON && neonBuilt {
		want = NEON
	}
	if Best() != want {
		t.Fatalf("Best() = %v, want %v (HasNEON %v)", Best(), want, cpu.ARM.HasNEON)
	}
	if s := os.Getenv("TFLRUN_EXPECT_LEVEL"); s != "" {
		l, err := ParseLevel(s)
		if err != nil {
			t.Fatal(err)
		}
		if Best() != l {
			t.Fatalf("TFLRUN_EXPECT_LEVEL=%s but Best() = %v", s, Best())
		}
	}
	if want == Generic {
		if err := Use(NEON); err == nil {
			t.Fatalf("Use(neon) succeeded (HasNEON %v, GOARM=7 build %v)", cpu.ARM.HasNEON, neonBuilt)
		}
		return
	}
	for _, p := range Describe().Primitives {
		switch p.Name {
		case "MatVecMulAcc", "Dot", "MatVecMulAccInt8", "DotInt8", "MatVecMulAccPacked":
			if p.Impl != "neon" {
				t.Errorf("%s uses %s at neon", p.Name, p.Impl)
			}
		}
	}
	t.Logf("%s", Summary())
}
