//go:build arm64

package arch

import "golang.org/x/sys/cpu"

// detectCPU reads the arm64 feature flags from golang.org/x/sys/cpu
// (HWCAP on Linux), the cache sizes from sysfs where there is one, and
// the core (and board) names from /proc/cpuinfo (cpuname.go).
func detectCPU() cpuDetails {
	var d cpuDetails
	d.has[FeatASIMD] = cpu.ARM64.HasASIMD
	d.has[FeatASIMDDP] = cpu.ARM64.HasASIMD && cpu.ARM64.HasASIMDDP
	d.has[FeatI8MM] = cpu.ARM64.HasI8MM
	d.has[FeatSVE] = cpu.ARM64.HasSVE
	sysfsCaches(&d)
	d.vendor, d.brand = readARMNames(midrEL1())
	return d
}
