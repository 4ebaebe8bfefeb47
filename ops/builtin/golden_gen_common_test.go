package builtin_test

import (
	"math/rand/v2"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
)

// genInputs draws input i from gens[i] when present (lo and hi bound an
// integer drawn uniformly from [lo, hi]) and from optest.Uniform
// otherwise. The golden tests use it for index-like inputs that must stay
// in range.
func genInputs(gens map[int][2]int) optest.InputGen {
	return func(r *rand.Rand, input int, typ ops.DataType) float64 {
		if g, ok := gens[input]; ok {
			return float64(g[0] + r.IntN(g[1]-g[0]+1))
		}
		return optest.Uniform(r, input, typ)
	}
}
