package arch

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAVXFilesUseOnlyVEX checks that the AVX2 and AVX-512 assembly never
// uses a legacy-SSE-encoded instruction on a vector register (Go's MOVQ or
// MOVL to or from an X register, PXOR, MOVSS, …). A legacy SSE write to an
// XMM register while the upper halves of the YMM/ZMM registers are in use
// costs a state transition or a merge on many x86 cores; on the AMD EPYC
// VMs this project runs on, one MOVQ into X14 at the top of a requantisation
// kernel made every call cost ~650 ns instead of ~40 ns (the int8 MNIST
// LSTM ran at 230 µs instead of ~20). The VEX forms (VMOVQ, VMOVD, VPXOR…)
// do the same work without the penalty.
func TestAVXFilesUseOnlyVEX(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	headers, err := filepath.Glob("*_amd64.h")
	if err != nil {
		t.Fatal(err)
	}
	vecReg := regexp.MustCompile(`\b[XYZ]([0-9]|[12][0-9]|3[01])\b`)
	macroDef := regexp.MustCompile(`^\s*#define\s+([A-Za-z_][A-Za-z0-9_]*)`)
	macros := map[string]bool{}
	for _, f := range append(files, headers...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if m := macroDef.FindStringSubmatch(l); m != nil {
				macros[m[1]] = true
			}
		}
	}
	checked := 0
	for _, f := range append(files, headers...) {
		if !strings.Contains(f, "avx") && !strings.HasSuffix(f, ".h") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			if i := strings.Index(text, "//"); i >= 0 {
				text = text[:i]
			}
			text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), `\`))
			if text == "" || strings.HasPrefix(text, "#") || strings.HasSuffix(text, ":") ||
				strings.HasPrefix(text, "TEXT") || strings.HasPrefix(text, "DATA") || strings.HasPrefix(text, "GLOBL") {
				continue
			}
			mnemonic := text
			if i := strings.IndexAny(text, " \t("); i >= 0 {
				mnemonic = text[:i]
			}
			operands := strings.TrimSpace(strings.TrimPrefix(text, mnemonic))
			// A macro call (a defined name, or a macro's parameter such
			// as OP(Y0)) is checked where the macro is defined.
			isCall := strings.HasPrefix(operands, "(")
			if macros[mnemonic] || isCall || !vecReg.MatchString(operands) {
				continue
			}
			checked++
			if !strings.HasPrefix(mnemonic, "V") && !strings.HasPrefix(mnemonic, "K") {
				t.Errorf("%s:%d: %s is legacy-SSE encoded on a vector register; use its VEX form (V%s)", f, line, text, mnemonic)
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no vector instructions found: the file globs are wrong")
	}
}
