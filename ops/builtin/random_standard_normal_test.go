package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestRandomStandardNormalStream checks RANDOM_STANDARD_NORMAL against
// its definition (two Box-Muller pairs per Philox block, sine first, a
// tail consuming a whole block), computed here in float64.
func TestRandomStandardNormalStream(t *testing.T) {
	for _, size := range []int32{0, 1, 2, 3, 4, 5, 7, 33} {
		n := node(&RandomOptions{Seed: 42, Seed2: 7}, []*ops.Tensor{c32(size)}, outTensor(ops.Float32))
		k := NewRandomStandardNormal()
		run(t, k, n)
		ref := newPhilox(42, 7)
		for call := 0; call < 2; call++ {
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
			got := n.Outputs[0].Float32s()
			for i := 0; i < int(size); i += 4 {
				w := ref.next()
				for j := 0; j < 4 && i+j < int(size); j++ {
					u1 := math.Max(float64(w[j&^1]&0x7fffff)/(1<<23), 1e-7)
					u2 := float64(w[j|1]&0x7fffff) / (1 << 23)
					r := math.Sqrt(-2 * math.Log(u1))
					want := r * math.Sin(2*math.Pi*u2)
					if j&1 == 1 {
						want = r * math.Cos(2*math.Pi*u2)
					}
					if d := math.Abs(float64(got[i+j]) - want); d > 1e-5*math.Max(1, math.Abs(want)) {
						t.Fatalf("size %d call %d element %d: %v, want %v", size, call, i+j, got[i+j], want)
					}
				}
			}
		}
	}
}

// TestRandomStandardNormalMoments draws many values on a run-time shape
// and checks mean 0 and variance 1 (as TFLite's
// random_standard_normal_test.cc does), and that Eval does not allocate.
func TestRandomStandardNormalMoments(t *testing.T) {
	n := node(&RandomOptions{Seed: 3, Seed2: 11}, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{100, 101})}, outTensor(ops.Float32))
	k := NewRandomStandardNormal()
	run(t, k, n)
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	wantShape(t, n.Outputs[0].Shape, []int{100, 101})
	var sum, sq float64
	v := n.Outputs[0].Float32s()
	for _, x := range v {
		sum += float64(x)
		sq += float64(x) * float64(x)
	}
	mean := sum / float64(len(v))
	variance := sq/float64(len(v)) - mean*mean
	if math.Abs(mean) > 0.05 || math.Abs(variance-1) > 0.05 {
		t.Errorf("mean %v variance %v over %d values", mean, variance, len(v))
	}
	noAllocs(t, k, n)
}
