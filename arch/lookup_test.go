package arch

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Tests of LookupBytes: every usable implementation gives the portable
// bytes for lengths 0..257 and a few long ones at odd offsets, in place,
// with the source ending right before an inaccessible page and guard
// bands around dst, for random tables, the identity and the reversal
// (every row and quarter of the table reached).

func TestTwinLookupBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	var tables [3][256]byte
	for i := range 256 {
		tables[0][i] = byte(r.UintN(256))
		tables[1][i] = byte(i)
		tables[2][i] = byte(255 - i)
	}
	lens := []int{}
	for n := 0; n <= 257; n++ {
		lens = append(lens, n)
	}
	lens = append(lens, 1000, 4099)
	for _, im := range implsOf(lookupBytesImpls) {
		for _, n := range lens {
			tab := &tables[n%3]
			src := make([]byte, n)
			for i := range src {
				src[i] = byte(r.UintN(256))
			}
			want := make([]byte, n)
			for i, v := range src {
				want[i] = tab[v]
			}
			got := make([]byte, n)
			lookupBytesGeneric(got, src, tab)
			if !bytes.Equal(got, want) {
				t.Fatalf("generic n=%d differs from table[src]", n)
			}
			off := n % 7
			buf := bytes.Repeat([]byte{0xa5}, n+off+2*guard)
			dst := buf[guard+off : guard+off+n]
			im.fn(dst, src, tab)
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s n=%d: got %v, want %v", im.name, n, dst, want)
			}
			for i, v := range buf {
				if (i < guard+off || i >= guard+off+n) && v != 0xa5 {
					t.Fatalf("%s n=%d: byte %d outside dst written", im.name, n, i-guard-off)
				}
			}
			d := append([]byte(nil), src...)
			im.fn(d, d, tab)
			if !bytes.Equal(d, want) {
				t.Fatalf("%s n=%d in place: got %v, want %v", im.name, n, d, want)
			}
			tb := tailBytes(t, n)
			copy(tb, src)
			clear(got)
			im.fn(got, tb, tab)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s n=%d at a page end: got %v, want %v", im.name, n, got, want)
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		src := []byte{0, 63, 64, 127, 128, 191, 192, 255, 17}
		got := make([]byte, len(src))
		LookupBytes(got, src, &tables[2])
		for i, v := range src {
			if got[i] != 255-v {
				t.Fatalf("LookupBytes(%d) = %d, want %d", v, got[i], 255-v)
			}
		}
		LookupBytes(nil, nil, &tables[0])
	})
}

// BenchmarkLookupBytes times every usable implementation on a 64 KB
// activation (go test ./arch -run '^$' -bench LookupBytes).
func BenchmarkLookupBytes(b *testing.B) {
	var tab [256]byte
	src := make([]byte, 64<<10)
	for i := range src {
		src[i] = byte(i * 7)
		tab[i%256] = byte(i * 3)
	}
	dst := make([]byte, len(src))
	for _, im := range implsOf(lookupBytesImpls) {
		b.Run(im.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				im.fn(dst, src, &tab)
			}
		})
	}
}
