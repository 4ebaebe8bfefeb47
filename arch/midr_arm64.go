//go:build !purego

package arch

import "golang.org/x/sys/cpu"

// mrsMIDR reads MIDR_EL1 (midr_arm64.s).
//
//go:noescape
func mrsMIDR() uint64

// midrEL1 returns the calling core's MIDR_EL1 where the kernel lets user
// space read it (HWCAP_CPUID; qemu user mode reports the emulated CPU's),
// else 0. It names the core when /proc/cpuinfo does not (cpuname.go).
func midrEL1() uint64 {
	if !cpu.ARM64.HasCPUID {
		return 0
	}
	return mrsMIDR()
}
