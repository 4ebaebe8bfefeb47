//go:build !purego

package arch

import (
	"os"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestARM64Selection checks that the level and the int8 kernel follow the
// CPU's dot-product flag: neon-dotprod (SDOT) exactly when HWCAP reports
// ASIMDDP, neon otherwise. TFLRUN_EXPECT_LEVEL=<level> makes it also fail
// unless Best() is that level, which is how CI checks that qemu's
// `-cpu max` selects neon-dotprod and `-cpu cortex-a53` does not.
func TestARM64Selection(t *testing.T) {
	want := NEON
	if cpu.ARM64.HasASIMDDP {
		want = NEONDotProd
	}
	if Best() != want {
		t.Fatalf("Best() = %v, want %v (HasASIMD %v, HasASIMDDP %v)", Best(), want, cpu.ARM64.HasASIMD, cpu.ARM64.HasASIMDDP)
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
	saved := Current()
	defer func() {
		if err := Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	if err := Use(want); err != nil {
		t.Fatal(err)
	}
	wantImpl := map[string]string{"MatVecMulAcc": "neon", "Sigmoid": "neon", "MatVecMulAccInt8": want.String(), "DotInt8": want.String(), "RequantizeAccInt16": "neon",
		"GemmF32": "neon", "GemmInt8": want.String(), "GemmInt8Requantize": want.String(), "DepthwiseConvF32": "neon", "RequantizeChannels": "neon"}
	for _, p := range Describe().Primitives {
		if w, ok := wantImpl[p.Name]; ok && p.Impl != w {
			t.Errorf("%s uses %s at %v, want %s", p.Name, p.Impl, want, w)
		}
	}
	if want == NEON {
		if err := Use(NEONDotProd); err == nil {
			t.Fatal("Use(neon-dotprod) succeeded on a CPU without ASIMDDP")
		}
	}
	t.Logf("%s", Summary())
}
