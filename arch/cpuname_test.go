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
