package arch

import (
	"bufio"
	"fmt"
	"io"
	"os"
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
func parseARMCPUInfo(r io.Reader) (vendor, brand string) { return armCPUNames(r, 0, "") }

// armCPUNames is parseARMCPUInfo with two other sources. midr, when not
// 0, is the calling core's MIDR_EL1 (read with MRS, which Linux emulates
// for user space where HWCAP_CPUID is set, or from sysfs): it names the
// core when the text has no MIDR fields, as under qemu user mode, which
// shows the host's /proc/cpuinfo. board, when not empty, is the device
// tree's model (/proc/device-tree/model, e.g. "Raspberry Pi 4 Model B Rev
// 1.4"): it names the board when the text does not (mainline kernels
// leave "Model" out of /proc/cpuinfo).
func armCPUNames(r io.Reader, midr uint64, dtModel string) (vendor, brand string) {
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
			name := armPartName(impl, val)
			if !seen[name] {
				seen[name] = true
				parts = append(parts, name)
			}
		case "Model":
			board = val
		}
	}
	if impl == "" && midr>>24&0xff != 0 { // implementer 0 is for software use (qemu's max)
		impl = fmt.Sprintf("0x%02x", midr>>24&0xff)
		parts = []string{armPartName(impl, fmt.Sprintf("0x%03x", midr>>4&0xfff))}
	}
	if board == "" {
		board = strings.TrimSpace(strings.TrimRight(dtModel, "\x00"))
	}
	if impl == "" {
		return "", board // not an ARM /proc/cpuinfo (e.g. under qemu-user)
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

// armPartName is the core name of part (hex text) for implementer impl
// (hex text), or part itself when it is not one of Arm's known parts.
func armPartName(impl, part string) string {
	if n, err := strconv.ParseUint(part, 0, 16); err == nil && impl == "0x41" {
		if s, ok := armParts[n]; ok {
			return s
		}
	}
	return part
}

// readARMNames names the CPU from /proc/cpuinfo, the device tree's model
// and midr (0 when unknown), for detectCPU on arm and arm64.
func readARMNames(midr uint64) (vendor, brand string) {
	if midr == 0 {
		// arm64 kernels publish each core's MIDR_EL1 as hex text.
		if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1"); err == nil {
			midr, _ = strconv.ParseUint(strings.TrimSpace(string(b)), 0, 64)
		}
	}
	model, _ := os.ReadFile("/proc/device-tree/model")
	var r io.Reader = strings.NewReader("")
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		r = f
	}
	return armCPUNames(r, midr, string(model))
}
