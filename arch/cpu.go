package arch

import (
	"fmt"
	"runtime"
)

// Feature is a CPU instruction-set feature that a level or an
// implementation may need. Only the features tflrun's primitives care
// about are listed; detection lives in cpu_<arch>.go.
type Feature uint8

// The features. x86 flags are set only when the OS also saves the register
// state they use (YMM for AVX*, ZMM and opmask registers for AVX-512).
const (
	FeatAVX        Feature = iota // x86 AVX
	FeatAVX2                      // x86 AVX2 (256-bit integer SIMD)
	FeatFMA3                      // x86 FMA3 (VFMADD…PS)
	FeatF16C                      // x86 F16C (half-float conversions)
	FeatBMI2                      // x86 BMI2 (BZHI, SHLX, …)
	FeatAVX512F                   // x86 AVX-512 Foundation
	FeatAVX512BW                  // x86 AVX-512 byte and word instructions
	FeatAVX512VL                  // x86 AVX-512 at 128/256-bit vector lengths
	FeatAVX512DQ                  // x86 AVX-512 doubleword and quadword instructions
	FeatAVX512VNNI                // x86 AVX-512 VNNI (EVEX VPDPBUSD)
	FeatAVXVNNI                   // x86 AVX-VNNI (VEX VPDPBUSD, Alder Lake, Zen 5)
	FeatASIMD                     // Advanced SIMD: arm64 ASIMD, 32-bit arm NEON
	FeatASIMDDP                   // arm64 dot product (SDOT/UDOT, FEAT_DotProd)
	FeatI8MM                      // arm64 int8 matrix multiply (SMMLA, FEAT_I8MM)
	FeatSVE                       // arm64 Scalable Vector Extension
	FeatAVX512VBMI                // x86 AVX-512 VBMI (VPERMB, VPERMI2B)

	numFeatures
)

var featureNames = [numFeatures]string{
	FeatAVX:        "AVX",
	FeatAVX2:       "AVX2",
	FeatFMA3:       "FMA3",
	FeatF16C:       "F16C",
	FeatBMI2:       "BMI2",
	FeatAVX512F:    "AVX-512F",
	FeatAVX512BW:   "AVX-512BW",
	FeatAVX512VL:   "AVX-512VL",
	FeatAVX512DQ:   "AVX-512DQ",
	FeatAVX512VNNI: "AVX512-VNNI",
	FeatAVXVNNI:    "AVX-VNNI",
	FeatASIMD:      "ASIMD",
	FeatASIMDDP:    "ASIMD-DP",
	FeatI8MM:       "I8MM",
	FeatSVE:        "SVE",
	FeatAVX512VBMI: "AVX512-VBMI",
}

// String returns the feature's usual name ("AVX512-VNNI").
func (f Feature) String() string {
	if f < numFeatures {
		return featureNames[f]
	}
	return fmt.Sprintf("Feature(%d)", uint8(f))
}

// cpuDetails is what detection found. It is filled once, before any
// init function of the package runs, by detectCPU (cpu_<arch>.go).
type cpuDetails struct {
	has         [numFeatures]bool
	vendor      string
	brand       string
	cacheLine   int    // bytes, 0 if unknown
	l1d, l2, l3 int    // bytes, 0 if unknown
	cacheSource string // where the cache sizes came from
}

// Has reports whether the CPU (and OS) support f.
func (c *cpuDetails) Has(f Feature) bool { return f < numFeatures && c.has[f] }

var cpuInfo = detectCPU()

// Info describes this CPU and the implementations the primitives use. It
// is what `tflrun cpu` prints; Describe returns the current state.
type Info struct {
	GOARCH string // runtime.GOARCH
	Vendor string // CPU vendor ("AuthenticAMD"), "" if unknown
	Brand  string // CPU model name, "" if unknown

	// Features lists the detected features among those tflrun knows
	// (Feature constants), in declaration order.
	Features []Feature
	// CacheLine, L1D, L2 and L3 are sizes in bytes as detected (per core
	// for L1D and usually L2; L3 may be shared), 0 when unknown.
	CacheLine, L1D, L2, L3 int
	// CacheSource says where the cache sizes came from: "cpuid" (x86,
	// klauspost/cpuid), "sysfs" (Linux /sys/devices/system/cpu), or "".
	CacheSource string

	// PureGo is true in a -tags purego build (portable Go only).
	PureGo bool
	// Levels are the levels this process can use, lowest first; Best is
	// the last of them and Level the one in use.
	Levels      []Level
	Best, Level Level
	// ISAError is the problem with TFLRUN_ISA, nil if it was unset or
	// honoured (see ISAError).
	ISAError error
	// Primitives lists every primitive with its implementations and the
	// one chosen at Level.
	Primitives []PrimitiveInfo
}

// PrimitiveInfo describes one primitive of the dispatch table.
type PrimitiveInfo struct {
	Name  string     // the exported function ("MatVecMulAcc")
	Impl  string     // name of the implementation in use ("avx512")
	Impls []ImplInfo // every registered implementation, generic first
}

// ImplInfo describes one registered implementation of a primitive.
type ImplInfo struct {
	Name   string    // "generic", "avx2", "avx512vnni", …
	Level  Level     // the level it is written for
	Needs  []Feature // features it needs beyond its level's
	Usable bool      // whether this CPU and build can run it
}

// Describe returns the CPU description and the current choice of
// implementation for every primitive. It reflects the latest Use.
func Describe() Info {
	in := Info{
		GOARCH:      runtime.GOARCH,
		Vendor:      cpuInfo.vendor,
		Brand:       cpuInfo.brand,
		CacheLine:   cpuInfo.cacheLine,
		L1D:         cpuInfo.l1d,
		L2:          cpuInfo.l2,
		L3:          cpuInfo.l3,
		CacheSource: cpuInfo.cacheSource,
		PureGo:      pureGo,
		Levels:      Levels(),
		Best:        Best(),
		Level:       Current(),
		ISAError:    ISAError(),
	}
	for f := range numFeatures {
		if cpuInfo.has[f] {
			in.Features = append(in.Features, f)
		}
	}
	mu.Lock() // Use may be re-selecting implementations
	for _, p := range registry {
		in.Primitives = append(in.Primitives, p.info())
	}
	mu.Unlock()
	return in
}

// Summary is a one-line description of the level in use and the features
// that decide it, e.g. "avx512 (AVX2, FMA3, AVX-512F/BW/VL/DQ,
// AVX512-VNNI)" or "generic (built with -tags purego)". `tflrun bench`
// prints it in its header.
func Summary() string {
	l := Current()
	if pureGo {
		return l.String() + " (built with -tags purego)"
	}
	var parts []string
	var avx512 []string
	for _, f := range l.Needs() {
		switch f {
		case FeatAVX:
			continue // implied by AVX2
		case FeatAVX512F, FeatAVX512BW, FeatAVX512VL, FeatAVX512DQ:
			avx512 = append(avx512, f.String()[len("AVX-512"):])
			continue
		}
		parts = append(parts, f.String())
	}
	if len(avx512) > 0 {
		s := "AVX-512"
		for i, p := range avx512 {
			if i > 0 {
				s += "/"
			}
			s += p
		}
		parts = append(parts, s)
	}
	// Optional features that change an implementation at this level.
	for _, f := range []Feature{FeatAVX512VNNI, FeatAVX512VBMI, FeatAVXVNNI, FeatI8MM} {
		if l != Generic && cpuInfo.Has(f) && usedAt(f, l) {
			parts = append(parts, f.String())
		}
	}
	if len(parts) == 0 {
		return l.String()
	}
	out := l.String() + " ("
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out + ")"
}
