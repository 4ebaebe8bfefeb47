package builtin

import (
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// TestPhiloxKnownAnswers checks the generator against the Philox 4x32-10
// known-answer vectors published with Random123 (kat_vectors: zero,
// all-ones and π-digit counters and keys), which fix the round function,
// the key schedule and the word order.
func TestPhiloxKnownAnswers(t *testing.T) {
	cases := []struct {
		ctr  [4]uint32
		key  [2]uint32
		want [4]uint32
	}{
		{[4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)}, [2]uint32{^uint32(0), ^uint32(0)}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	}
	for _, c := range cases {
		p := philox{counter: c.ctr, key: c.key}
		if got := p.next(); got != c.want {
			t.Errorf("counter %08x key %08x: got %08x, want %08x", c.ctr, c.key, got, c.want)
		}
	}
	// The seeds land as TensorFlow's PhiloxRandom(seed_lo, seed_hi) puts
	// them: the first block of seeds (0, 0) is the zero vector's.
	p := newPhilox(0, 0)
	if got := p.next(); got != cases[0].want {
		t.Errorf("seeds (0, 0): got %08x", got)
	}
	p = newPhilox(0x299f31d0a4093822, 0x0370734413198a2e)
	if p.key != cases[2].key || p.counter[2] != cases[2].ctr[2] || p.counter[3] != cases[2].ctr[3] || p.counter[0] != 0 {
		t.Errorf("seed layout: %+v", p)
	}
}

// TestPhiloxCounter checks next's increment and skip's carries against
// stepping one block at a time.
func TestPhiloxCounter(t *testing.T) {
	for _, start := range [][4]uint32{{0, 0, 7, 9}, {0xfffffffe, 0, 1, 2}, {0xffffffff, 0xffffffff, 0xffffffff, 5}} {
		for _, n := range []uint64{0, 1, 2, 3, 17} {
			a := philox{counter: start, key: [2]uint32{3, 4}}
			b := a
			a.skip(n)
			for i := uint64(0); i < n; i++ {
				b.next()
			}
			if a.counter != b.counter {
				t.Errorf("start %08x skip %d: %08x, stepping gives %08x", start, n, a.counter, b.counter)
			}
		}
	}
	// A count above 2^32 adds to word 1, and a carry out of word 1 reaches
	// word 2, as PhiloxRandom::Skip.
	p := philox{counter: [4]uint32{5, 0xffffffff, 0xffffffff, 1}}
	p.skip(3<<32 | 2)
	if want := [4]uint32{7, 2, 0, 2}; p.counter != want {
		t.Errorf("skip carry: %08x, want %08x", p.counter, want)
	}
}

// TestUniformConversions pins TensorFlow's word-to-float mappings.
func TestUniformConversions(t *testing.T) {
	if uint32ToFloat(0) != 0 || uint32ToFloat(0xff800000) != 0 {
		t.Error("uint32ToFloat: the high 9 bits must not count")
	}
	if got := uint32ToFloat(0x7fffff); got != 1-1.0/(1<<23) {
		t.Errorf("uint32ToFloat(max) = %v", got)
	}
	if got := uint32ToFloat(0x400000); got != 0.5 {
		t.Errorf("uint32ToFloat(0x400000) = %v", got)
	}
	if got := uint64ToDouble(0xfff80000, 0); got != 0.5 {
		t.Errorf("uint64ToDouble(0x80000, 0) = %v", got)
	}
	if got := uint64ToDouble(0xfffff, 0xffffffff); got != 1-1.0/(1<<52) {
		t.Errorf("uint64ToDouble(max) = %v", got)
	}
	// Box-Muller at u1 = 0.5, u2 = 0.25: radius sqrt(2 ln 2), angle π/2.
	s, c := boxMuller(0x400000, 0x200000)
	if r := float32(1.1774100225154747); s != r || c > 1e-7 || c < -1e-7 {
		t.Errorf("boxMuller(0.5, 0.25) = %v, %v, want %v, 0", s, c, r)
	}
	// u1 = 0 is clamped to 1e-7 instead of taking log(0).
	if s, _ := boxMuller(0, 0); s != 0 {
		t.Errorf("boxMuller(0, 0) sine = %v", s)
	}
	if _, c := boxMuller(0, 0); c < 5.6 || c > 5.7 {
		t.Errorf("boxMuller(0, 0) cosine = %v, want sqrt(-2 ln 1e-7) ≈ 5.68", c)
	}
}

// TestRandomOptionsDecoder checks the options table and the registered
// versions of the three random operators.
func TestRandomOptionsDecoder(t *testing.T) {
	b := flatbuffers.NewBuilder(64)
	b.Finish((&schema.RandomOptionsT{Seed: -5, Seed2: 1 << 40}).Pack(b))
	buf := b.FinishedBytes()
	got, err := decodeRandomOptions(ops.OptionsTable{Type: uint8(schema.BuiltinOptionsRandomOptions), Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := got.(*RandomOptions); !ok || o.Seed != -5 || o.Seed2 != 1<<40 {
		t.Fatalf("decoded %#v", got)
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, op := range []ops.BuiltinOperator{ops.OpRandomUniform, ops.OpRandomStandardNormal, ops.OpMultinomial} {
		for v := 1; v <= 2; v++ {
			if _, err := r.FindBuiltin(op, v); (err == nil) != (v == 1) {
				t.Errorf("operator %d version %d: %v (TFLite registers 1)", op, v, err)
			}
		}
	}
}
