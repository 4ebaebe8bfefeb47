package arch

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// Level names a set of instruction-set extensions that implementations of
// the primitives may be written for. Levels form a chain per GOARCH: a
// level includes everything of its parent (avx512 ⊃ avx2 ⊃ generic on
// amd64, neon-i8mm ⊃ neon-dotprod ⊃ neon ⊃ generic on arm64, neon ⊃
// generic on 32-bit arm), so an implementation
// registered for avx2 may also be chosen at avx512. The names are the
// values TFLRUN_ISA and interpreter.Options.ISA accept.
type Level uint8

// The levels. Generic is portable Go and exists everywhere; the others
// exist on one GOARCH each.
const (
	// Generic is portable Go only (what -tags purego builds).
	Generic Level = iota
	// AVX2 is amd64 with AVX, AVX2 and FMA3 (Intel Haswell, AMD Zen and
	// later).
	AVX2
	// AVX512 is AVX2 plus AVX-512F, BW, VL and DQ (Intel Skylake-SP,
	// AMD Zen 4 and later). Implementations at this level may need more
	// (AVX512-VNNI); the registry checks that per implementation.
	AVX512
	// NEON is Advanced SIMD: ASIMD on arm64, present on every arm64 CPU,
	// and NEON on 32-bit arm (GOARM=7 builds only, on CPUs whose HWCAP
	// reports it: Cortex-A7/A8/A9/A15/A53 in AArch32, not the ARM1176 of
	// the Raspberry Pi 1 and Zero).
	NEON
	// NEONDotProd is NEON plus the dot-product instructions SDOT/UDOT
	// (ARMv8.2 FEAT_DotProd: Cortex-A55/A75 and later, Raspberry Pi 5).
	NEONDotProd
	// NEONI8MM is NEONDotProd plus the int8 matrix-multiply instructions
	// SMMLA/UMMLA/USMMLA and USDOT (ARMv8.6 FEAT_I8MM, optional from
	// ARMv8.2: Cortex-A510/A710/X2 and later, Neoverse V1/N2, Apple M2;
	// not the Raspberry Pi 5's Cortex-A76).
	NEONI8MM

	numLevels
)

// levelDefs describes each level: its TFLRUN_ISA name, the GOARCHes it
// belongs to ("" for all, else separated by "/"), the level it extends and the CPU features it
// requires on top of the parent's.
var levelDefs = [numLevels]struct {
	name   string
	goarch string
	parent Level
	needs  []Feature
}{
	Generic:     {name: "generic"},
	AVX2:        {name: "avx2", goarch: "amd64", parent: Generic, needs: []Feature{FeatAVX, FeatAVX2, FeatFMA3}},
	AVX512:      {name: "avx512", goarch: "amd64", parent: AVX2, needs: []Feature{FeatAVX512F, FeatAVX512BW, FeatAVX512VL, FeatAVX512DQ}},
	NEON:        {name: "neon", goarch: "arm64/arm", parent: Generic, needs: []Feature{FeatASIMD}},
	NEONDotProd: {name: "neon-dotprod", goarch: "arm64", parent: NEON, needs: []Feature{FeatASIMDDP}},
	NEONI8MM:    {name: "neon-i8mm", goarch: "arm64", parent: NEONDotProd, needs: []Feature{FeatI8MM}},
}

// String returns the level's TFLRUN_ISA name ("avx2"), or "Level(n)" for a
// value that is not a level.
func (l Level) String() string {
	if l < numLevels {
		return levelDefs[l].name
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// GOARCH returns the architecture the level exists on, "" for Generic;
// a level of several architectures names them separated by "/"
// ("arm64/arm" for NEON).
func (l Level) GOARCH() string {
	if l < numLevels {
		return levelDefs[l].goarch
	}
	return ""
}

// on reports whether l is a level of the architecture goarch (Generic is
// a level of all).
func (l Level) on(goarch string) bool {
	if l >= numLevels {
		return false
	}
	ga := levelDefs[l].goarch
	return ga == "" || slices.Contains(strings.Split(ga, "/"), goarch)
}

// Includes reports whether code written for level m may run at level l:
// m is l or one of its ancestors (Generic is included by every level).
func (l Level) Includes(m Level) bool {
	if l >= numLevels || m >= numLevels {
		return false
	}
	for {
		if l == m {
			return true
		}
		if l == Generic {
			return false
		}
		l = levelDefs[l].parent
	}
}

// depth is the number of ancestors of l (0 for Generic).
func (l Level) depth() int {
	d := 0
	for l != Generic && l < numLevels {
		l = levelDefs[l].parent
		d++
	}
	return d
}

// Needs returns every CPU feature the level requires, its ancestors'
// included, in the order of the chain (generic first).
func (l Level) Needs() []Feature {
	if l >= numLevels || l == Generic {
		return nil
	}
	return append(levelDefs[l].parent.Needs(), levelDefs[l].needs...)
}

// AllLevels returns every level of every architecture in declaration
// order, for listings and flag help.
func AllLevels() []Level {
	ls := make([]Level, numLevels)
	for i := range ls {
		ls[i] = Level(i)
	}
	return ls
}

// ParseLevel returns the level named s (case-insensitive, surrounding
// space ignored): one of generic, avx2, avx512, neon, neon-dotprod,
// neon-i8mm. It
// does not check that this CPU offers the level; Use does.
func ParseLevel(s string) (Level, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for l := range numLevels {
		if levelDefs[l].name == t {
			return l, nil
		}
	}
	names := make([]string, numLevels)
	for l := range numLevels {
		names[l] = levelDefs[l].name
	}
	return 0, fmt.Errorf("unknown ISA level %q (want one of %s)", s, strings.Join(names, ", "))
}

// checkLevel returns nil if this process can run at level l, and
// otherwise an error saying why not: the level belongs to another GOARCH,
// the binary was built with -tags purego, or the CPU (or the OS's saved
// register state) lacks a feature the level needs.
func checkLevel(l Level) error {
	if l >= numLevels {
		return fmt.Errorf("%v is not an ISA level", l)
	}
	if l == Generic {
		return nil
	}
	if ga := l.GOARCH(); !l.on(runtime.GOARCH) {
		return fmt.Errorf("%s is an %s level and this is %s (offered here: %s)", l, ga, runtime.GOARCH, levelList(Levels()))
	}
	if pureGo {
		return fmt.Errorf("%s is unavailable: tflrun was built with -tags purego (portable Go only)", l)
	}
	if missing := missingFeatures(l); len(missing) > 0 {
		return fmt.Errorf("this CPU lacks %s, which %s needs (offered here: %s)", strings.Join(missing, ", "), l, levelList(Levels()))
	}
	return nil
}

// missingFeatures names the features of l this CPU lacks, and on 32-bit
// arm the GOARM=7 build that NEON code needs.
func missingFeatures(l Level) []string {
	var missing []string
	if l == NEON && !neonBuilt {
		missing = append(missing, "a GOARM=7 build (NEON kernels are compiled only with GOARM=7)")
	}
	for _, f := range l.Needs() {
		if !cpuInfo.Has(f) {
			missing = append(missing, f.String())
		}
	}
	return missing
}

// Levels returns the levels this process can use, lowest first: always
// Generic, then the levels of runtime.GOARCH whose features the CPU has
// (none with -tags purego).
func Levels() []Level {
	ls := []Level{Generic}
	if pureGo {
		return ls
	}
	for l := Generic + 1; l < numLevels; l++ {
		if l.on(runtime.GOARCH) && len(missingFeatures(l)) == 0 {
			ls = append(ls, l)
		}
	}
	return ls
}

// Best returns the highest level this process can use.
func Best() Level {
	ls := Levels()
	return ls[len(ls)-1]
}

func levelList(ls []Level) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = l.String()
	}
	return strings.Join(s, ", ")
}
