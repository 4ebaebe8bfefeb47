// Command _asm writes two files of package arch from the templates in
// this directory:
//
//   - gemm_avx512_amd64.s, the AVX-512 GEMM micro-kernels: the float32
//     kernel on 8 or 4 pixel rows with ZMM or EVEX YMM registers, and the
//     VNNI int8 kernel on 8 or 4 rows, plain (int32 sums) or with the
//     requantisation fused in (ZMM, or YMM for up to 8 channels), 32
//     channels per step while at least 32 remain, else 16. The ten
//     kernels are the same code with other row counts and registers;
//     writing them once keeps them in step.
//   - requant_channel_amd64.h, the per-channel requantisation macros of
//     the AVX-512 epilogues, on ZMM and on YMM registers.
//
// Run it from arch/ with `go generate` (see gemm.go), or here:
//
//	go run . -dir ..
//
// .ci/asmcheck writes the files into a temporary directory and fails on
// any difference from the committed ones. The output is meant to be the
// instructions of the hand-written kernels it replaced, byte for byte.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

func main() {
	dir := flag.String("dir", "..", "directory to write the files to (arch/)")
	flag.Parse()
	files, err := generate()
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(*dir, f.name), f.src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// file is one generated file.
type file struct {
	name string
	src  []byte
}

// rowRegs are the general-purpose registers holding the row pointers.
var rowRegs = [8]string{"SI", "BX", "CX", "DX", "R8", "R9", "R10", "R11"}

// kernel is one instantiation of a template.
type kernel struct {
	Name string
	Doc  string // comment lines after the signature ("" for none)
	R    int    // rows per block: 8 (with a loop over row blocks) or 4
	Y    bool   // EVEX YMM (8 lanes) instead of ZMM (16 lanes)
	L    string // label suffix
	Rq   bool   // int8: requantise and store bytes
	// H is the part of the int8 kernels' channel tile a requantising
	// epilogue handles: 0 the 16-channel step (sums Z0-Z(R-1), temporaries
	// Z8, Z9), 1 and 2 the first and second 16 channels of the 32-channel
	// step (sums Z0-Z(R-1), then ZR-Z(2R-1); temporaries Z16, Z17).
	H int
}

// row is one pixel row of a block, for ranges in the templates.
type row struct {
	I, N      int    // index, index+1
	Reg, Prev string // row pointer, the previous row's
	Acc, X    string // sums (vector I, or R+I in part 2), their XMM register
	Acc2      string // the second 16 channels' sums in the 32-channel step (vector R+I)
	Sum       string // 128·row sum (or (128+wz)·row sum), vector 12+I
	RS        string // the row's 128·Σa (or (128+wz)·Σa) in the frame
}

// V names vector register n at the kernel's width: Z<n> or Y<n>.
func (k kernel) V(n int) string {
	if k.Y {
		return fmt.Sprintf("Y%d", n)
	}
	return fmt.Sprintf("Z%d", n)
}

// YS is the macro suffix of the kernel's width: "Y" for YMM, "" for ZMM.
func (k kernel) YS() string {
	if k.Y {
		return "Y"
	}
	return ""
}

// Tmp is the requantising epilogue's temporary vector i (0 or 1).
func (k kernel) Tmp(i int) string {
	if k.H == 0 {
		return k.V(8 + i)
	}
	return k.V(16 + i)
}

// TX is the XMM register of Tmp(i).
func (k kernel) TX(i int) string {
	if k.H == 0 {
		return fmt.Sprintf("X%d", 8+i)
	}
	return fmt.Sprintf("X%d", 16+i)
}

// RL is the label suffix of a requantising epilogue.
func (k kernel) RL() string {
	if k.H == 0 {
		return k.L
	}
	return fmt.Sprintf("%sw%d", k.L, k.H)
}

// Skip is the label an epilogue jumps to past the last row (m reached).
func (k kernel) Skip() string {
	switch k.H {
	case 1:
		return "wpart2" + k.L
	case 2:
		return "wdone" + k.L
	}
	return "stored" + k.L
}

// SumLoads broadcasts each row's sum from the frame into Z12-Z(11+R).
func (k kernel) SumLoads() string {
	var b strings.Builder
	for _, r := range k.Rows() {
		fmt.Fprintf(&b, "\tVPBROADCASTD %s, Z%d\n", r.RS, 12+r.I)
	}
	return b.String()
}

// Part returns the kernel for part h of the 32-channel step's epilogue.
func (k kernel) Part(h int) kernel {
	k.H = h
	return k
}

// Loop reports whether the kernel walks several row blocks (R == 8).
func (k kernel) Loop() bool { return k.R == 8 }

// Rows lists the rows of a block.
func (k kernel) Rows() []row {
	rs := make([]row, k.R)
	base := 0
	if k.H == 2 {
		base = k.R
	}
	for i := range rs {
		off := 16 * i // row c at dword 4c (R = 4), rows c, c+4 at 4c, 4c+2
		if k.R == 8 {
			off = 16*(i%4) + 8*(i/4)
		}
		rs[i] = row{I: i, N: i + 1, Reg: rowRegs[i], Acc: k.V(base + i), X: fmt.Sprintf("X%d", base+i),
			Acc2: k.V(k.R + i), Sum: k.V(12 + i), RS: fmt.Sprintf("rs-%d(SP)", 64-off)}
		if i > 0 {
			rs[i].Prev = rowRegs[i-1]
		}
	}
	return rs
}

// Shift returns log2 of R·size, the shift from a row stride of size-byte
// elements to the stride of a row block.
func (k kernel) Shift(size int) int {
	s := 0
	for v := k.R * size; v > 1; v >>= 1 {
		s++
	}
	return s
}

func generate() ([]file, error) {
	t, err := template.New("gemm").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
		"dec": func(a int) int { return a - 1 },
		// args passes a kernel and two numbers to a sub-template.
		"args": func(k kernel, ds, as int) any {
			return struct {
				K      kernel
				DS, AS int
			}{k, ds, as}
		},
	}).Parse(templates + headerTemplate)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	run := func(name string, k any) {
		if err == nil {
			err = t.ExecuteTemplate(&b, name, k)
		}
	}
	// requant_channel_amd64.h: the macros at both widths.
	run("rqh", []struct{ S, V string }{{"", "Z"}, {"Y", "Y"}})
	h := formatAsm(b.String())
	b.Reset()

	run("header", nil)
	run("f32doc", nil)
	const ymmDoc = "\n// on EVEX YMM registers (8 lanes: twice the throughput of half-empty\n// ZMM vectors on Zen 4)."
	for _, k := range []kernel{
		{Name: "gemmF32R8AVX512", R: 8, L: "8", Doc: `
//
// SI, BX, CX, DX, R8-R11 rows 0-7; R12 packed weights; AX reduction
// offset (bytes); R13 k·4; DI channel index j; Z0-Z7 sums; Z8 weights
// (then the bias); Z9-Z16 products; Z30/Z31 lo/hi; K1 channel mask.
// k ≥ 1, m ≥ 1, n ≥ 1.`},
		{Name: "gemmF32R4AVX512", R: 4, L: "4", Doc: `
//
// gemmF32R8AVX512 for 1 ≤ m ≤ 4 rows (one block): SI, BX, CX, DX rows
// 0-3, Z0-Z3 sums, Z9-Z12 products; the other registers as there.`},
		{Name: "gemmF32R8AVX512Y", R: 8, Y: true, L: "8y", Doc: `
//
// gemmF32R8AVX512 for n ≤ 8` + ymmDoc},
		{Name: "gemmF32R4AVX512Y", R: 4, Y: true, L: "4y", Doc: `
//
// gemmF32R4AVX512 for n ≤ 8` + ymmDoc},
	} {
		run("f32", k)
	}
	run("int8doc", nil)
	for _, k := range []kernel{
		{Name: "gemmInt8R8VNNI", R: 8, L: "8"},
		{Name: "gemmInt8R4VNNI", R: 4, L: "4", Doc: `
//
// gemmInt8R8VNNI for 1 ≤ m ≤ 4 rows (one block).`},
		{Name: "gemmInt8RqR8VNNI", R: 8, L: "q8", Rq: true},
		{Name: "gemmInt8RqR4VNNI", R: 4, L: "q4", Rq: true, Doc: `
//
// gemmInt8RqR8VNNI for 1 ≤ m ≤ 4 rows (one block).`},
		{Name: "gemmInt8RqR8VNNIY", R: 8, Y: true, L: "y8", Rq: true, Doc: `
//
// gemmInt8RqR8VNNI for n ≤ 8 (one channel block, its parameters and
// seed loaded once)` + ymmDoc},
		{Name: "gemmInt8RqR4VNNIY", R: 4, Y: true, L: "y4", Rq: true, Doc: `
//
// gemmInt8RqR4VNNI for n ≤ 8 (one channel block, its parameters and
// seed loaded once)` + ymmDoc},
	} {
		run("int8", k)
	}
	if err != nil {
		return nil, err
	}
	s := formatAsm(b.String())
	return []file{
		{"gemm_avx512_amd64.s", []byte(strings.TrimRight(s, "\n") + "\n")},
		{"requant_channel_amd64.h", []byte(strings.TrimRight(h, "\n") + "\n")},
	}, nil
}

// RowSums writes the int8 kernels' row-sum phase: Z12-Z(11+R) collect 16
// partial sums of each row of the block (VPDPBUSD of 64 row bytes with the
// ones in Z20; the k%64 tail zero-filled under the byte mask rtail in K6),
// a shuffle tree (Z0-Z9 free until the channel loop) reduces them into Z6,
// which is scaled by 128 (plain kernels) or 128 + wz (Z10, requantising
// ones) and stored at rs-64(SP); each row's sum is then broadcast from the
// frame into Z12-Z(11+R) (the Y kernels use the low halves) for the
// 16-channel step, here only if the kernel starts with one (n < 32): the
// 32-channel step needs those registers, broadcasts the sums after its
// reduction and reloads them for a 16-channel step after it. (Shuffles
// from the register were slower on Zen 4 than the store and the loads;
// loading the sums right after the store, unused, slowed the 32-channel
// step on Sapphire Rapids by ~7% at n = 32, k = 27.)
func (k kernel) RowSums() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, "\t"+format+"\n", a...) }
	rows := k.Rows()
	z := func(i int) string { return fmt.Sprintf("Z%d", i) }
	b.WriteString("\t// Row sums Σa of the block's rows, times 128")
	if k.Rq {
		b.WriteString(" + wz")
	}
	fmt.Fprintf(&b, ": %s-%s, then in the frame.\n", z(12), z(11+k.R))
	for i := range rows {
		p("VPXORD %s, %s, %s", z(12+i), z(12+i), z(12+i))
	}
	p("XORQ AX, AX")
	p("MOVQ k+64(FP), R12")
	p("ANDQ $-64, R12")
	p("JZ rstail%s", k.L)
	fmt.Fprintf(&b, "\nrsloop%s:\n", k.L)
	for _, r := range rows {
		p("VPDPBUSD (%s)(AX*1), Z20, %s", r.Reg, z(12+r.I))
	}
	p("ADDQ $64, AX")
	p("CMPQ AX, R12")
	p("JLT rsloop%s", k.L)
	fmt.Fprintf(&b, "\nrstail%s:\n", k.L)
	rtail := "rtail+88(FP)"
	if k.Rq {
		rtail = "rtail+136(FP)"
	}
	p("MOVQ %s, R12", rtail)
	p("TESTQ R12, R12")
	p("JZ rsred%s", k.L)
	p("KMOVQ R12, K6")
	for _, r := range rows {
		p("VMOVDQU8.Z (%s)(AX*1), K6, Z9", r.Reg)
		p("VPDPBUSD Z9, Z20, %s", z(12+r.I))
	}
	fmt.Fprintf(&b, "\nrsred%s:\n", k.L)
	// 512 → 256: pairs of rows into Z0.. (row 2p in lanes 0-7, 2p+1 in 8-15).
	for q := 0; q < k.R/2; q++ {
		p("VSHUFI64X2 $0x44, %s, %s, %s", z(13+2*q), z(12+2*q), z(q))
		p("VSHUFI64X2 $0xee, %s, %s, Z8", z(13+2*q), z(12+2*q))
		p("VPADDD Z8, %s, %s", z(q), z(q))
	}
	// 256 → 128: four rows per vector, row c in 128-bit chunk c.
	for q := 0; q < k.R/4; q++ {
		p("VSHUFI64X2 $0x88, %s, %s, %s", z(2*q+1), z(2*q), z(4+q))
		p("VSHUFI64X2 $0xdd, %s, %s, Z8", z(2*q+1), z(2*q))
		p("VPADDD Z8, %s, %s", z(4+q), z(4+q))
	}
	if k.R == 8 {
		// Chunk c: row c in dwords 0-1, row c+4 in 2-3, then pairs added.
		p("VPUNPCKLQDQ Z5, Z4, Z6")
		p("VPUNPCKHQDQ Z5, Z4, Z7")
		p("VPADDD Z7, Z6, Z6")
	} else {
		p("VPSHUFD $0x4e, Z4, Z7")
		p("VPADDD Z7, Z4, Z6")
	}
	p("VPSHUFD $0xb1, Z6, Z7")
	p("VPADDD Z7, Z6, Z6")
	if k.Rq {
		p("VPMULLD Z10, Z6, Z6")
	} else {
		p("VPSLLD $7, Z6, Z6")
	}
	p("VMOVDQU32 Z6, rs-64(SP)")
	if k.Y {
		b.WriteString(k.SumLoads())
		return strings.TrimRight(b.String(), "\n")
	}
	// The 32-channel step loads the sums from the frame after its
	// reduction; only a kernel starting on a 16-channel step (n < 32)
	// loads them here (where they overlap the channel block).
	p("CMPQ n+56(FP), $32")
	p("JGE rsdone%s", k.L)
	b.WriteString(k.SumLoads())
	fmt.Fprintf(&b, "\nrsdone%s:\n", k.L)
	return strings.TrimRight(b.String(), "\n")
}
