package arch

import (
	"strings"
	"testing"
)

func TestParseARMCPUInfo(t *testing.T) {
	pi5 := `processor	: 0
BogoMIPS	: 108.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x4
CPU part	: 0xd0b
CPU revision	: 1

processor	: 1
CPU implementer	: 0x41
CPU part	: 0xd0b

Revision	: d04170
Serial		: 1234
Model		: Raspberry Pi 5 Model B Rev 1.0
`
	bigLittle := "CPU implementer\t: 0x41\nCPU part\t: 0xd05\n\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n"
	x86 := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\n"
	cases := []struct{ in, vendor, brand string }{
		{pi5, "ARM", "Raspberry Pi 5 Model B Rev 1.0 (Cortex-A76)"},
		{bigLittle, "ARM", "Cortex-A55 + Cortex-A76"},
		{"CPU implementer\t: 0x61\nCPU part\t: 0x022\n", "Apple", "0x022"},
		{x86, "", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		v, b := parseARMCPUInfo(strings.NewReader(c.in))
		if v != c.vendor || b != c.brand {
			t.Errorf("parseARMCPUInfo(%.30q…) = %q, %q; want %q, %q", c.in, v, b, c.vendor, c.brand)
		}
	}
}

// TestARMCPUNames checks the sources beside /proc/cpuinfo: the MIDR_EL1
// value (MRS or sysfs) where the text has no MIDR fields, and the device
// tree's model where it names no board.
func TestARMCPUNames(t *testing.T) {
	x86 := "processor\t: 0\nvendor_id\t: GenuineIntel\n"
	mainline := "CPU implementer\t: 0x41\nCPU part\t: 0xd08\n"
	withModel := mainline + "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n"
	cases := []struct {
		in            string
		midr          uint64
		dt            string
		vendor, brand string
	}{
		{x86, 0x410fd083, "", "ARM", "Cortex-A72"},      // qemu-aarch64 -cpu cortex-a72
		{x86, 0x000f0510, "", "", ""},                   // qemu's max: implementer 0
		{x86, 0x610f0220, "", "Apple", "0x022"},         // not Arm's: the part number
		{mainline, 0x410fd034, "", "ARM", "Cortex-A72"}, // the text wins over the MIDR
		{mainline, 0, "Raspberry Pi 4 Model B Rev 1.4\x00", "ARM", "Raspberry Pi 4 Model B Rev 1.4 (Cortex-A72)"},
		{withModel, 0, "Other board\x00", "ARM", "Raspberry Pi 4 Model B Rev 1.4 (Cortex-A72)"},
		{"", 0, "Raspberry Pi Zero 2 W Rev 1.0\x00", "", "Raspberry Pi Zero 2 W Rev 1.0"},
	}
	for _, c := range cases {
		v, b := armCPUNames(strings.NewReader(c.in), c.midr, c.dt)
		if v != c.vendor || b != c.brand {
			t.Errorf("armCPUNames(%.20q…, %#x, %q) = %q, %q; want %q, %q", c.in, c.midr, c.dt, v, b, c.vendor, c.brand)
		}
	}
}
