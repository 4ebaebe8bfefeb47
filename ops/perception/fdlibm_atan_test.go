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
			got, want = atan2f(bits(fl[1]), bits(fl[2])), bits(fl[3])
		} else {
			got, want = atanf(bits(fl[1])), bits(fl[2])
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
