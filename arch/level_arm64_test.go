//go:build !purego

package arch

import (
	"os"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestARM64Selection checks that the level and the int8 kernels follow
// the CPU's flags: neon-i8mm (the USMMLA GEMM, SDOT elsewhere) when
// HWCAP reports ASIMDDP and HWCAP2 I8MM, neon-dotprod (SDOT) with ASIMDDP
// only, neon otherwise. TFLRUN_EXPECT_LEVEL=<level> makes it also fail
// unless Best() is that level, which is how CI checks that qemu's
// `-cpu max` selects neon-i8mm and `-cpu cortex-a53` neon.
func TestARM64Selection(t *testing.T) {
	want, dot := NEON, NEON
	if cpu.ARM64.HasASIMDDP {
		want, dot = NEONDotProd, NEONDotProd
		if cpu.ARM64.HasI8MM {
			want = NEONI8MM
		}
	}
	if Best() != want {
		t.Fatalf("Best() = %v, want %v (HasASIMD %v, HasASIMDDP %v, HasI8MM %v)", Best(), want, cpu.ARM64.HasASIMD, cpu.ARM64.HasASIMDDP, cpu.ARM64.HasI8MM)
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
	wantImpl := map[string]string{"MatVecMulAcc": "neon", "Sigmoid": "neon", "MatVecMulAccInt8": dot.String(), "DotInt8": dot.String(), "RequantizeAccInt16": "neon",
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
	if want != NEONI8MM {
		if err := Use(NEONI8MM); err == nil {
			t.Fatal("Use(neon-i8mm) succeeded on a CPU without I8MM or ASIMDDP")
		}
	}
	t.Logf("%s", Summary())
}
