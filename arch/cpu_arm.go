//go:build arm

package arch

import "golang.org/x/sys/cpu"

// detectCPU reads 32-bit ARM's NEON flag from golang.org/x/sys/cpu
// (HWCAP_NEON from the auxiliary vector on Linux; it counts as FeatASIMD,
// Advanced SIMD being NEON's architectural name), the cache sizes from
// sysfs, and the core and board names from /proc/cpuinfo
// (cpuname_arm.go). NEON kernels exist only in GOARM=7 builds
// (int8_neon_arm.s, …); a GOARM=6 binary never registers them.
func detectCPU() cpuDetails {
	var d cpuDetails
	d.has[FeatASIMD] = cpu.ARM.HasNEON
	sysfsCaches(&d)
	d.vendor, d.brand = readARMNames(0)
	return d
}
