package arch

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// arm64 CPUs do not name themselves to user space; Linux's /proc/cpuinfo
// gives each core's MIDR fields ("CPU implementer", "CPU part") and, on
// Raspberry Pi kernels, the board ("Model"). parseARMCPUInfo turns them
// into the vendor and brand `tflrun cpu` prints, e.g. "ARM" and
// "Raspberry Pi 5 Model B Rev 1.0 (Cortex-A76)". Part numbers are those
// of Arm's and the vendors' technical reference manuals (MIDR_EL1.PartNum).

// armImplementers maps MIDR_EL1.Implementer to the vendor.
var armImplementers = map[uint64]string{
	0x41: "ARM", 0x42: "Broadcom", 0x43: "Cavium", 0x46: "Fujitsu", 0x48: "HiSilicon",
	0x4e: "NVIDIA", 0x50: "APM", 0x51: "Qualcomm", 0x61: "Apple", 0xc0: "Ampere",
}

// armParts maps Arm Ltd's (implementer 0x41) part numbers to core names.
var armParts = map[uint64]string{
	0xd01: "Cortex-A32", 0xd02: "Cortex-A34", 0xd03: "Cortex-A53", 0xd04: "Cortex-A35",
	0xd05: "Cortex-A55", 0xd06: "Cortex-A65", 0xd07: "Cortex-A57", 0xd08: "Cortex-A72",
	0xd09: "Cortex-A73", 0xd0a: "Cortex-A75", 0xd0b: "Cortex-A76", 0xd0c: "Neoverse-N1",
	0xd0d: "Cortex-A77", 0xd0e: "Cortex-A76AE", 0xd40: "Neoverse-V1", 0xd41: "Cortex-A78",
	0xd42: "Cortex-A78AE", 0xd44: "Cortex-X1", 0xd46: "Cortex-A510", 0xd47: "Cortex-A710",
	0xd48: "Cortex-X2", 0xd49: "Neoverse-N2", 0xd4a: "Neoverse-E1", 0xd4b: "Cortex-A78C",
	0xd4d: "Cortex-A715", 0xd4e: "Cortex-X3", 0xd4f: "Neoverse-V2", 0xd80: "Cortex-A520",
	0xd81: "Cortex-A720", 0xd82: "Cortex-X4", 0xd84: "Neoverse-V3", 0xd85: "Cortex-X925",
	0xd87: "Cortex-A725",
}

// parseARMCPUInfo reads /proc/cpuinfo text. It names the first core's
// implementer and part (other cores of a big.LITTLE system are listed
// after it only when they differ), and the board when the kernel gives
// one. Missing or unknown fields leave the results empty or numeric.
func parseARMCPUInfo(r io.Reader) (vendor, brand string) {
	var impl, board string
	var parts []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "CPU implementer":
			if impl == "" {
				impl = val
			}
		case "CPU part":
			name := val
			if n, err := strconv.ParseUint(val, 0, 16); err == nil && impl == "0x41" {
				if s, ok := armParts[n]; ok {
					name = s
				}
			}
			if !seen[name] {
				seen[name] = true
				parts = append(parts, name)
			}
		case "Model":
			board = val
		}
	}
	if impl == "" {
		return "", "" // not an ARM /proc/cpuinfo (e.g. under qemu-user)
	}
	vendor = impl
	if n, err := strconv.ParseUint(impl, 0, 8); err == nil {
		if s, ok := armImplementers[n]; ok {
			vendor = s
		}
	}
	brand = strings.Join(parts, " + ")
	if board != "" {
		if brand != "" {
			brand = board + " (" + brand + ")"
		} else {
			brand = board
		}
	}
	return vendor, brand
}
