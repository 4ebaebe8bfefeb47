//go:build !386 && !amd64 && !arm64 && !arm

package arch

// detectCPU on architectures without assembly primitives finds no
// features; the cache sizes still come from sysfs where there is one.
func detectCPU() cpuDetails {
	var d cpuDetails
	sysfsCaches(&d)
	return d
}
