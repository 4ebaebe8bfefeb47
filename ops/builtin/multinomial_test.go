package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// multinomialRef is MULTINOMIAL's definition written out directly, for
// one Invoke with generator p.
func multinomialRef(p philox, logits [][]float32, samples int) [][]int {
	var words []uint32
	out := make([][]int, len(logits))
	for b, row := range logits {
		mx := float32(-math.MaxFloat32)
		for _, v := range row {
			if !math.IsInf(float64(v), 0) && !math.IsNaN(float64(v)) {
				mx = max(mx, v)
			}
		}
		cdf := make([]float64, len(row))
		total := 0.0
		for i, v := range row {
			if !math.IsInf(float64(v), 0) && !math.IsNaN(float64(v)) {
				total += math.Exp(float64(v) - float64(mx))
			}
			cdf[i] = total
		}
		for j := 0; j < samples; j++ {
			if len(words) == 0 {
				w := p.next()
				words = w[:]
			}
			find := uint64ToDouble(words[0], words[1]) * total
			words = words[2:]
			c := 0
			for c < len(cdf) && cdf[c] <= find {
				c++
			}
			out[b] = append(out[b], c)
		}
	}
	return out
}

// TestMultinomialStream checks MULTINOMIAL against its definition across
// batches, sample counts (odd ones leave half a block to the next row),
// non-finite logits, both output types, consecutive Invokes (the kept
// generator skips batch·⌈samples/4⌉·4·512 blocks) and a run-time sample
// count.
func TestMultinomialStream(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	logits := [][]float32{{0, 1, 2, -1}, {-inf, 3, nan, 3}, {-inf, -inf, -inf, -inf}, {50, -50, 0, 49}}
	flat := []float32{}
	for _, r := range logits {
		flat = append(flat, r...)
	}
	for _, samples := range []int32{0, 1, 3, 4, 9} {
		for _, typ := range []ops.DataType{ops.Int32, ops.Int64} {
			for _, dynamic := range []bool{false, true} {
				ns := tensorOf(ops.Int32, []int{}, []int32{samples})
				if !dynamic {
					ns = constT(ns)
				}
				n := node(&RandomOptions{Seed: 9, Seed2: 1 << 33}, []*ops.Tensor{tensorOf(ops.Float32, []int{4, 4}, flat), ns}, outTensor(typ))
				k := NewMultinomial()
				run(t, k, n)
				ref := newPhilox(9, 1<<33)
				for call := 0; call < 2; call++ {
					if err := k.Eval(n); err != nil {
						t.Fatal(err)
					}
					want := multinomialRef(ref, logits, int(samples))
					ref.skip(4 * uint64((samples+3)/4*4) * 512)
					wantShape(t, n.Outputs[0].Shape, []int{4, int(samples)})
					for b := range want {
						for j, c := range want[b] {
							var got int
							if typ == ops.Int32 {
								got = int(n.Outputs[0].Int32s()[b*int(samples)+j])
							} else {
								got = int(n.Outputs[0].Int64s()[b*int(samples)+j])
							}
							if got != c {
								t.Fatalf("samples %d %s call %d row %d sample %d: %d, want %d", samples, typ, call, b, j, got, c)
							}
							if b == 1 && c != 1 && c != 3 || b == 2 && c != 4 {
								t.Fatalf("row %d drew class %d", b, c)
							}
						}
					}
				}
				noAllocs(t, k, n)
			}
		}
	}
}

// TestMultinomialFrequencies draws many samples from known probabilities.
func TestMultinomialFrequencies(t *testing.T) {
	logits := []float32{float32(math.Log(0.1)), float32(math.Log(0.2)), float32(math.Log(0.7))}
	n := node(&RandomOptions{Seed: 5, Seed2: 6}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 3}, logits), constT(tensorOf(ops.Int32, []int{}, []int32{20000}))}, outTensor(ops.Int64))
	run(t, NewMultinomial(), n)
	var count [3]int
	for _, c := range n.Outputs[0].Int64s() {
		count[c]++
	}
	for i, p := range []float64{0.1, 0.2, 0.7} {
		if f := float64(count[i]) / 20000; math.Abs(f-p) > 0.02 {
			t.Errorf("class %d: frequency %v, want %v", i, f, p)
		}
	}
}

// TestMultinomialErrors feeds what TFLite refuses.
func TestMultinomialErrors(t *testing.T) {
	o := &RandomOptions{Seed: 1}
	lg := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	ns := func(v int32) *ops.Tensor { return constT(tensorOf(ops.Int32, []int{}, []int32{v})) }
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(4), ns(1)}, outTensor(ops.Int64)), "input 0", "[batch, classes]")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(2, 0), ns(1)}, outTensor(ops.Int64)), "no classes")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{tensorOf(ops.Int32, []int{1, 2}, []int32{1, 2}), ns(1)}, outTensor(ops.Int64)), "logits")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(1, 2), c32(1)}, outTensor(ops.Int64)), "scalar")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(1, 2), constT(tensorOf(ops.Int64, []int{}, []int64{1}))}, outTensor(ops.Int64)), "num_samples")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(1, 2), ns(-1)}, outTensor(ops.Int64)), "negative")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(1, 2), ns(1)}, outTensor(ops.Float32)), "output 0")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(1<<12, 1), ns(1 << 20)}, outTensor(ops.Int64)), "elements")
	wantPrepareError(t, NewMultinomial(), node(o, []*ops.Tensor{lg(1, 2)}, outTensor(ops.Int64)))
	// A run-time count is checked at Eval.
	n := node(o, []*ops.Tensor{lg(1, 2), tensorOf(ops.Int32, []int{}, []int32{-4})}, outTensor(ops.Int64))
	k := NewMultinomial()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil {
		t.Error("num_samples -4 at Eval: no error")
	}
}
