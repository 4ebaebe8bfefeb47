//go:build arm64

package arch

import "golang.org/x/sys/cpu"

// detectCPU reads the arm64 feature flags from golang.org/x/sys/cpu
// (HWCAP on Linux), and the cache sizes from sysfs where there is one.
func detectCPU() cpuDetails {
	var d cpuDetails
	d.has[FeatASIMD] = cpu.ARM64.HasASIMD
	d.has[FeatASIMDDP] = cpu.ARM64.HasASIMD && cpu.ARM64.HasASIMDDP
	d.has[FeatI8MM] = cpu.ARM64.HasI8MM
	d.has[FeatSVE] = cpu.ARM64.HasSVE
	sysfsCaches(&d)
	return d
}
