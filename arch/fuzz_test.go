package arch

import (
	"encoding/binary"
	"math"
)

// Helpers of the fuzz targets. Every family's target is in its X_test.go
// (FuzzFloat32, FuzzInt8, FuzzActivations, FuzzGemm, FuzzDepthwise,
// FuzzRequantizeChannels, FuzzPacked, …): each runs every usable
// implementation against the portable one (integer results bit for bit)
// and the float64 reference (float results) on the same fuzzer-chosen
// input. Run one for a while with
//
//	go test ./arch -run='^$' -fuzz=FuzzGemm -fuzztime=1m

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

// fuzzBytes hands out the fuzzer's bytes, cycling when they run out.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() byte {
	if len(f.b) == 0 {
		return 0
	}
	v := f.b[f.i%len(f.b)]
	f.i++
	return v
}

func (f *fuzzBytes) f32() float32 {
	var w [4]byte
	for i := range w {
		w[i] = f.next()
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(w[:]))
}

func (f *fuzzBytes) i32() int32 {
	var w [4]byte
	for i := range w {
		w[i] = f.next()
	}
	return int32(binary.LittleEndian.Uint32(w[:]))
}
