package arch

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Go's arm64 assembler has no mnemonics for many ASIMD instructions
// (vector FADD/FMUL/FDIV, SMULL/SMLAL2/SADALP, SQRDMULH, SDOT, …), so the
// arm64 kernels spell them as
//
//	WORD $0x4e22d420 // fadd v0.4s, v1.4s, v2.4s
//
// TestARM64Words assembles every such comment with each external AArch64
// assembler found on the machine (GNU aarch64-linux-gnu-as, LLVM's llvm-mc,
// clang) and fails if a WORD differs from what the assembler produced, or
// if a WORD has no instruction comment. It skips when none is installed
// (Debian: apt-get install binutils-aarch64-linux-gnu). With -fixwords
// it rewrites the WORDs to the assembler's encodings instead, which is how
// new ones are written:
//
//	go test ./arch -run TestARM64Words -fixwords
var fixWords = flag.Bool("fixwords", false, "TestARM64Words, TestARMWords: rewrite the WORD encodings in *_arm64.s and *_arm.s from the external assembler")

// wordLine matches a WORD directive with its instruction, given either as
// a // comment or (inside a #define) as a /* */ comment.
var wordLine = regexp.MustCompile(`\bWORD\s+\$(0x[0-9a-fA-F]{8})\s*(?:;\s*)?(?://\s*(.*?)\s*$|/\*\s*(.*?)\s*\*/)?`)

type asmWord struct {
	file  string
	line  int // 1-based
	word  uint32
	instr string
}

// arm64Assemblers returns the commands that turn an AArch64 assembly file
// into an ELF object, one per assembler installed. Dot product (ARMv8.2)
// must be enabled for SDOT, and the int8 matrix multiply (FEAT_I8MM) for
// USMMLA.
func arm64Assemblers() map[string]func(src, obj string) *exec.Cmd {
	out := map[string]func(src, obj string) *exec.Cmd{}
	if p, err := exec.LookPath("aarch64-linux-gnu-as"); err == nil {
		out["gnu-as"] = func(src, obj string) *exec.Cmd {
			return exec.Command(p, "-march=armv8.2-a+dotprod+i8mm", "-o", obj, src)
		}
	}
	if p, err := exec.LookPath("llvm-mc"); err == nil {
		out["llvm-mc"] = func(src, obj string) *exec.Cmd {
			return exec.Command(p, "-triple=aarch64-linux-gnu", "-mattr=+v8.2a,+dotprod,+i8mm", "-filetype=obj", "-o", obj, src)
		}
	} else if p, err := exec.LookPath("clang"); err == nil {
		out["clang"] = func(src, obj string) *exec.Cmd {
			return exec.Command(p, "--target=aarch64-linux-gnu", "-march=armv8.2-a+dotprod+i8mm", "-c", "-x", "assembler", "-o", obj, src)
		}
	}
	return out
}

// armAssemblers is arm64Assemblers for 32-bit ARM (A32 encoding, NEON):
// GNU arm-linux-gnueabihf-as and llvm-mc with an armv7 triple.
func armAssemblers() map[string]func(src, obj string) *exec.Cmd {
	out := map[string]func(src, obj string) *exec.Cmd{}
	if p, err := exec.LookPath("arm-linux-gnueabihf-as"); err == nil {
		out["gnu-as"] = func(src, obj string) *exec.Cmd {
			return exec.Command(p, "-march=armv7-a", "-mfpu=neon", "-o", obj, src)
		}
	}
	if p, err := exec.LookPath("llvm-mc"); err == nil {
		out["llvm-mc"] = func(src, obj string) *exec.Cmd {
			return exec.Command(p, "-triple=armv7-linux-gnueabihf", "-mattr=+neon", "-filetype=obj", "-o", obj, src)
		}
	}
	return out
}

func TestARM64Words(t *testing.T) {
	checkWords(t, "*_arm64.s", "AArch64", arm64Assemblers(), "binutils-aarch64-linux-gnu")
}

// TestARMWords is TestARM64Words for the 32-bit ARM kernels (*_arm.s),
// whose NEON instructions Go's arm assembler lacks altogether.
func TestARMWords(t *testing.T) {
	checkWords(t, "*_arm.s", "32-bit ARM", armAssemblers(), "binutils-arm-linux-gnueabihf")
}

// checkWords checks the WORDs of the files matching glob with asms.
func checkWords(t *testing.T, glob, isa string, asms map[string]func(src, obj string) *exec.Cmd, pkg string) {
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	var words []asmWord
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			m := wordLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			w, _ := strconv.ParseUint(m[1][2:], 16, 32)
			instr := m[2]
			if instr == "" {
				instr = m[3]
			}
			if instr == "" {
				t.Errorf("%s:%d: WORD without the instruction in a comment", f, i+1)
				continue
			}
			words = append(words, asmWord{file: f, line: i + 1, word: uint32(w), instr: instr})
		}
	}
	if len(words) == 0 {
		t.Skipf("no WORD-encoded instructions in %s", glob)
	}
	if len(asms) == 0 {
		t.Skipf("no %s assembler (apt-get install %s, or llvm) to check %d WORD encodings", isa, pkg, len(words))
	}
	dir := t.TempDir()
	var src bytes.Buffer
	src.WriteString("\t.text\n")
	for _, w := range words {
		fmt.Fprintf(&src, "\t%s\n", w.instr)
	}
	srcPath := filepath.Join(dir, "words.s")
	if err := os.WriteFile(srcPath, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var want []uint32
	for name, cmd := range asms {
		obj := filepath.Join(dir, name+".o")
		if out, err := cmd(srcPath, obj).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		got, err := textWords(obj)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(words) {
			t.Fatalf("%s produced %d instructions for %d WORDs", name, len(got), len(words))
		}
		if want == nil {
			want = got
		}
		for i, w := range words {
			if got[i] != want[i] {
				t.Errorf("%s:%d: %q: the assemblers disagree (%#08x, %#08x)", w.file, w.line, w.instr, want[i], got[i])
			}
		}
		t.Logf("%s: checked %d WORD encodings", name, len(words))
	}
	bad := 0
	for i, w := range words {
		if w.word != want[i] {
			bad++
			if !*fixWords {
				t.Errorf("%s:%d: WORD $%#08x but %q assembles to %#08x", w.file, w.line, w.word, w.instr, want[i])
			}
		}
	}
	if *fixWords && bad > 0 {
		fixWordFiles(t, words, want)
	}
}

// textWords returns the .text section of an ELF object as little-endian
// 32-bit words.
func textWords(obj string) ([]uint32, error) {
	f, err := elf.Open(obj)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sec := f.Section(".text")
	if sec == nil {
		return nil, fmt.Errorf("%s has no .text", obj)
	}
	b, err := sec.Data()
	if err != nil {
		return nil, err
	}
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out, nil
}

// fixWordFiles rewrites each WORD to the assembled encoding.
func fixWordFiles(t *testing.T, words []asmWord, want []uint32) {
	byFile := map[string][]int{}
	for i, w := range words {
		byFile[w.file] = append(byFile[w.file], i)
	}
	for f, idx := range byFile {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		n := 0
		for _, i := range idx {
			w := words[i]
			old := fmt.Sprintf("$0x%08x", w.word)
			l := lines[w.line-1]
			j := strings.Index(strings.ToLower(l), old)
			if j < 0 || w.word == want[i] {
				continue
			}
			lines[w.line-1] = l[:j] + fmt.Sprintf("$0x%08x", want[i]) + l[j+len(old):]
			n++
		}
		if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: rewrote %d WORDs", f, n)
	}
}
