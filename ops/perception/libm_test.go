package perception

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// atanf and atan2f against glibc's, bit for bit: special values (zeros,
// infinities, NaN, the reduction boundaries) and random pairs, recorded
// by testdata/glibc_atanf.c.

func TestFdlibmAtanMatchesGlibc(t *testing.T) {
	f, err := os.Open("testdata/glibc_atanf.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bits := func(s string) float32 {
		u, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		return math.Float32frombits(uint32(u))
	}
	same := func(a, b float32) bool {
		return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
	}
	n, bad := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		var got, want float32
		if fl[0] == "atan2" {
			got, want = glibcAtan2f(bits(fl[1]), bits(fl[2])), bits(fl[3])
		} else {
			got, want = glibcAtanf(bits(fl[1])), bits(fl[2])
		}
		n++
		if !same(got, want) {
			if bad < 5 {
				t.Errorf("%s: got %08x, glibc %08x", sc.Text(), math.Float32bits(got), math.Float32bits(want))
			}
			bad++
		}
	}
	if n < 5000 || bad > 0 {
		t.Errorf("%d of %d differ", bad, n)
	}
}

// sinf and cosf against glibc's below 120 (special values, π/4 and 120
// boundaries, random arguments), recorded by testdata/glibc_sincosf.c.
func TestGlibcSinCosf(t *testing.T) {
	f, err := os.Open("testdata/glibc_sincosf.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, bad := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v [3]uint32
		for i, s := range strings.Fields(sc.Text()) {
			u, err := strconv.ParseUint(s, 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			v[i] = uint32(u)
		}
		x := math.Float32frombits(v[0])
		s, c := math.Float32bits(glibcSinf(x)), math.Float32bits(glibcCosf(x))
		n++
		if s != v[1] || c != v[2] {
			if bad < 5 {
				t.Errorf("x %08x: sin %08x cos %08x, glibc %08x %08x", v[0], s, c, v[1], v[2])
			}
			bad++
		}
	}
	if n < 4000 || bad > 0 {
		t.Errorf("%d of %d differ", bad, n)
	}
}
