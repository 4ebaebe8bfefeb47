package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/opfuzz"
)

// Fuzz targets for the Prepare (and then Eval) of every builtin operator
// family on random option and shape combinations: each draws a
// single-operator model (internal/opfuzz, built with optest.Builder) and
// runs it through the interpreter under a 16 MiB bound. Errors are fine;
// a kernel panic or memory fault (which the interpreter turns into an
// error naming the kernel), a run of more than a few seconds, or memory
// beyond the bound fail. The seeds give every operator of each family
// once, in its plain form, so `go test` runs them all.
//
//	go test ./ops/builtin -run='^$' -fuzz=FuzzPrepareWindowed -fuzztime=5m

func fuzzFamily(f *testing.F, ops int, draw func(cfg []byte, seed uint64) []byte) {
	for k := range ops {
		f.Add([]byte{byte(k)}, uint64(k))
		f.Add([]byte{byte(k), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint64(k)+100)
	}
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		opfuzz.Check(t, draw(cfg, seed), seed)
	})
}

func FuzzPrepareElementwise(f *testing.F) { fuzzFamily(f, opfuzz.ElementwiseOps, opfuzz.Elementwise) }
func FuzzPrepareWindowed(f *testing.F)    { fuzzFamily(f, opfuzz.WindowedOps, opfuzz.Windowed) }
func FuzzPrepareShaped(f *testing.F)      { fuzzFamily(f, opfuzz.ShapedOps, opfuzz.Shaped) }
