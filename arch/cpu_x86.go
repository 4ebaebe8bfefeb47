//go:build 386 || amd64

package arch

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// detectCPU reads the x86 feature flags. golang.org/x/sys/cpu gives the
// baseline (it also checks that the OS saves the YMM/ZMM state and honours
// GODEBUG=cpu.<feature>=off); klauspost/cpuid gives the detail (AVX-512
// subsets, VNNI, cache sizes, brand). A feature both know counts only if
// both report it, so either can veto a flag.
func detectCPU() cpuDetails {
	c := cpuid.CPU
	var d cpuDetails
	set := func(f Feature, sys bool, id cpuid.FeatureID) {
		d.has[f] = sys && c.Supports(id)
	}
	set(FeatAVX, cpu.X86.HasAVX, cpuid.AVX)
	set(FeatAVX2, cpu.X86.HasAVX2, cpuid.AVX2)
	set(FeatFMA3, cpu.X86.HasFMA, cpuid.FMA3)
	set(FeatF16C, true, cpuid.F16C)
	set(FeatBMI2, cpu.X86.HasBMI2, cpuid.BMI2)
	set(FeatAVX512F, cpu.X86.HasAVX512F, cpuid.AVX512F)
	set(FeatAVX512BW, cpu.X86.HasAVX512BW, cpuid.AVX512BW)
	set(FeatAVX512VL, cpu.X86.HasAVX512VL, cpuid.AVX512VL)
	set(FeatAVX512DQ, cpu.X86.HasAVX512DQ, cpuid.AVX512DQ)
	set(FeatAVX512VNNI, cpu.X86.HasAVX512VNNI, cpuid.AVX512VNNI)
	set(FeatAVXVNNI, cpu.X86.HasAVXVNNI, cpuid.AVXVNNI)
	set(FeatAVX512VBMI, cpu.X86.HasAVX512VBMI, cpuid.AVX512VBMI)
	// F16C is only meaningful with AVX state saved.
	d.has[FeatF16C] = d.has[FeatF16C] && d.has[FeatAVX]
	d.vendor = c.VendorString
	d.brand = c.BrandName
	d.cacheLine = max(c.CacheLine, 0)
	d.l1d, d.l2, d.l3 = max(c.Cache.L1D, 0), max(c.Cache.L2, 0), max(c.Cache.L3, 0)
	if d.l1d > 0 || d.l2 > 0 || d.l3 > 0 {
		d.cacheSource = "cpuid"
	} else {
		sysfsCaches(&d)
	}
	return d
}
