package arch

import (
	"encoding/binary"
	"math"
	"testing"
)

// Fuzz targets, one per primitive family: every usable implementation
// against the portable one (and the float64 reference) on the same
// fuzzer-chosen input.
//
//	go test ./arch -run='^$' -fuzz=FuzzFloat32 -fuzztime=1m
//	go test ./arch -run='^$' -fuzz=FuzzInt8 -fuzztime=1m
//	go test ./arch -run='^$' -fuzz=FuzzActivations -fuzztime=1m

func bytesToF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func seedF32(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// FuzzFloat32 covers MatVecMulAcc, Dot and the elementwise primitives.
// The input is split into rows+1 vectors of cols values: the matrix rows
// and x.
func FuzzFloat32(f *testing.F) {
	f.Add(uint8(3), seedF32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20))
	f.Add(uint8(0), seedF32(float32(math.NaN()), 1, -0, float32(math.Inf(1)), 1e-40, 3, 5, 7, 9))
	f.Add(uint8(5), make([]byte, 4*6*37))
	f.Fuzz(func(t *testing.T, rowsB uint8, data []byte) {
		rows := 1 + int(rowsB%9)
		all := bytesToF32(data)
		cols := len(all) / (rows + 1)
		if cols == 0 {
			return
		}
		m, x := all[:rows*cols], all[rows*cols:rows*cols+cols]
		for _, im := range implsOf(matVecMulAccImpls) {
			dst := make([]float32, rows)
			im.fn(dst, m, rows, cols, x)
			for i := range dst {
				ref, abs := matVecRef(0, m[i*cols:i*cols+cols], x)
				if !math.IsNaN(ref) && abs >= 0x1p126 {
					continue // may overflow in some summation orders
				}
				if !sumOK(dst[i], ref, abs, cols) {
					t.Fatalf("MatVecMulAcc %s %dx%d row %d: got %v want %v", im.name, rows, cols, i, dst[i], ref)
				}
			}
		}
		for _, im := range implsOf(dotImpls) {
			got := im.fn(m[:cols], x)
			ref, abs := matVecRef(0, m[:cols], x)
			if (math.IsNaN(ref) || abs < 0x1p126) && !sumOK(got, ref, abs, cols) {
				t.Fatalf("Dot %s n=%d: got %v want %v", im.name, cols, got, ref)
			}
		}
		type ew = func(dst, a, b []float32)
		for _, p := range []*impls[ew]{vecAddImpls, vecMulImpls, vecMulAccImpls} {
			want := append([]float32(nil), x...)
			p.list[0].fn(want, m[:cols], x)
			for _, im := range implsOf(p) {
				got := append([]float32(nil), x...)
				im.fn(got, m[:cols], x)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s %s [%d]: got %v want %v", p.name, im.name, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// FuzzInt8 covers MatVecMulAccInt8, DotInt8 and RowSumsInt8: results must
// be identical to the portable ones.
func FuzzInt8(f *testing.F) {
	f.Add(uint8(3), []byte{0x80, 0x7f, 0x80, 0x01, 0xff, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})
	f.Add(uint8(4), make([]byte, 5*70))
	f.Fuzz(func(t *testing.T, rowsB uint8, data []byte) {
		rows := 1 + int(rowsB%9)
		cols := len(data) / (rows + 1)
		if cols == 0 {
			return
		}
		all := make([]int8, len(data))
		for i, b := range data {
			all[i] = int8(b)
		}
		m, x := all[:rows*cols], all[rows*cols:rows*cols+cols]
		want := make([]int32, rows)
		for i := range want {
			want[i] = int32(rowsB) * 1000003
		}
		init := append([]int32(nil), want...)
		matVecMulAccInt8Generic(want, m, rows, cols, x)
		for _, im := range implsOf(matVecMulAccInt8Impls) {
			got := append([]int32(nil), init...)
			im.fn(got, m, rows, cols, x)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("MatVecMulAccInt8 %s %dx%d row %d: got %d want %d", im.name, rows, cols, i, got[i], want[i])
				}
			}
		}
		for _, im := range implsOf(dotInt8Impls) {
			if got, w := im.fn(m[:cols], x), dotInt8Generic(m[:cols], x); got != w {
				t.Fatalf("DotInt8 %s n=%d: got %d want %d", im.name, cols, got, w)
			}
		}
		sums := make([]int32, rows)
		rowSumsInt8Generic(sums, m, rows, cols)
		for _, im := range implsOf(rowSumsInt8Impls) {
			got := make([]int32, rows)
			im.fn(got, m, rows, cols)
			for i := range got {
				if got[i] != sums[i] {
					t.Fatalf("RowSumsInt8 %s %dx%d row %d: got %d want %d", im.name, rows, cols, i, got[i], sums[i])
				}
			}
		}
	})
}

// FuzzActivations covers Sigmoid and Tanh on arbitrary float32 bit
// patterns.
func FuzzActivations(f *testing.F) {
	f.Add(seedF32(specialInputs()...))
	f.Add(seedF32(0.1, -0.2, 0.3, 5, -7, 0.62, 0.63, 1e-3, -1e-30, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := bytesToF32(data)
		for _, c := range actCases {
			generic := make([]float32, len(x))
			c.p.list[0].fn(generic, x)
			for _, im := range implsOf(c.p) {
				got := make([]float32, len(x))
				im.fn(got, x)
				checkAct(t, c.name, im.name, x, got, generic, c.ref, c.bound)
			}
		}
	})
}
