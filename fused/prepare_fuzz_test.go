package fused_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/opfuzz"
)

// FuzzPrepareRecurrent runs the Prepare (and Eval) of every recurrent
// kernel on random sizes, optional inputs, type paths and options: each
// input draws a single-operator model (internal/opfuzz.Recurrent, built
// with optest.Builder) and runs it through the interpreter under a
// 16 MiB bound. Errors are fine; a kernel panic or memory fault (which the
// interpreter turns into an error naming the kernel), a run of more than
// a few seconds, or memory beyond the bound fail. The seeds give each
// operator on the float, hybrid and integer paths.
//
//	go test ./fused -run='^$' -fuzz=FuzzPrepareRecurrent -fuzztime=5m
func FuzzPrepareRecurrent(f *testing.F) {
	for k := range opfuzz.RecurrentOps {
		for path := range 3 {
			f.Add([]byte{byte(k), 1, 1, 1, 1, 1, 0, byte(path)}, uint64(k))
			f.Add([]byte{byte(k), 1, 2, 3, 4, 5, 1, byte(path), 1, 0, 1, 0, 1}, uint64(k)+100)
		}
	}
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		opfuzz.Check(t, opfuzz.Recurrent(cfg, seed), seed)
	})
}
