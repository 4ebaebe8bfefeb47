package builtin

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Helpers shared by RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and
// MULTINOMIAL: the Philox 4x32-10 counter-based generator that TFLite's
// random_ops.cc takes from TensorFlow (tsl::random::PhiloxRandom), the
// conversions of its words to floats, and the seeds option.

// philox is the Philox 4x32-10 generator of Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3" (SC 2011), in TensorFlow's layout: a
// 128-bit counter as four 32-bit words (word 0 least significant) and a
// 64-bit key as two. Each call of next encrypts the counter with ten
// rounds and then increments it, so the stream is a pure function of the
// initial counter and key.
type philox struct {
	counter [4]uint32
	key     [2]uint32
}

// The round constants of the paper: the Weyl increments of the key and
// the two multipliers.
const (
	philoxW0 = 0x9E3779B9
	philoxW1 = 0xBB67AE85
	philoxM0 = 0xD2511F53
	philoxM1 = 0xCD9E8D57
)

// newPhilox seeds a generator as TensorFlow's PhiloxRandom(seed_lo,
// seed_hi): seedLo is the key, seedHi the counter's upper 64 bits, the
// lower 64 start at zero.
func newPhilox(seedLo, seedHi uint64) philox {
	return philox{
		key:     [2]uint32{uint32(seedLo), uint32(seedLo >> 32)},
		counter: [4]uint32{0, 0, uint32(seedHi), uint32(seedHi >> 32)},
	}
}

// block returns the ten-round encryption of counter c under key k.
func philoxBlock(c [4]uint32, k [2]uint32) [4]uint32 {
	for r := 0; r < 10; r++ {
		if r > 0 {
			k[0] += philoxW0
			k[1] += philoxW1
		}
		hi0, lo0 := bits.Mul32(philoxM0, c[0])
		hi1, lo1 := bits.Mul32(philoxM1, c[2])
		c = [4]uint32{hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0}
	}
	return c
}

// next returns the four words of the current counter's block and steps
// the counter by one (with carry through all 128 bits).
func (p *philox) next() [4]uint32 {
	out := philoxBlock(p.counter, p.key)
	for i := range p.counter {
		p.counter[i]++
		if p.counter[i] != 0 {
			break
		}
	}
	return out
}

// skip advances the counter by count blocks as PhiloxRandom::Skip does:
// the 64-bit count adds to the lower half, and a carry out of word 1
// increments the upper half.
func (p *philox) skip(count uint64) {
	lo, hi := uint32(count), uint32(count>>32)
	p.counter[0] += lo
	if p.counter[0] < lo {
		hi++
	}
	p.counter[1] += hi
	if p.counter[1] < hi {
		p.counter[2]++
		if p.counter[2] == 0 {
			p.counter[3]++
		}
	}
}

// uint32ToFloat maps the low 23 bits of x to a float32 in [0, 1):
// the mantissa of a number in [1, 2), minus one (TensorFlow's
// Uint32ToFloat).
func uint32ToFloat(x uint32) float32 {
	return math.Float32frombits(127<<23|x&0x7fffff) - 1
}

// uint64ToDouble maps the low 20 bits of x0 and all of x1 to a float64 in
// [0, 1) the same way (TensorFlow's Uint64ToDouble).
func uint64ToDouble(x0, x1 uint32) float64 {
	man := uint64(x0&0xfffff)<<32 | uint64(x1)
	return math.Float64frombits(1023<<52|man) - 1
}

// boxMuller turns two words into two standard normal float32 values as
// TensorFlow's BoxMullerFloat: u1 (at least 1e-7) gives the radius
// sqrt(-2 log u1) in float32, u2 the angle 2π·u2 (π as a double, the
// product rounded to float32), and the pair is (r·sin, r·cos). The
// transcendental functions are float64's, rounded to float32; glibc's
// logf and sincosf may differ from that by an ulp, well inside the float
// tolerance.
func boxMuller(x0, x1 uint32) (float32, float32) {
	u1 := uint32ToFloat(x0)
	if u1 < 1e-7 {
		u1 = 1e-7
	}
	v1 := float32(2 * math.Pi * float64(uint32ToFloat(x1)))
	l := float32(math.Log(float64(u1)))
	r := float32(math.Sqrt(float64(-2 * l)))
	s, c := math.Sincos(float64(v1))
	return float32(s) * r, float32(c) * r
}

// RandomOptions is TFLite's RandomOptions: the two seeds of the Philox
// generator. When both are zero the kernel draws its seeds from a
// non-deterministic source, as TFLite does, so every run differs.
type RandomOptions struct {
	Seed, Seed2 int64
}

func init() {
	registerOptions(schema.BuiltinOptionsRandomOptions, decodeRandomOptions)
}

func decodeRandomOptions(t ops.OptionsTable) (any, error) {
	var o schema.RandomOptions
	initTable(&o, t)
	return &RandomOptions{Seed: o.Seed(), Seed2: o.Seed2()}, nil
}

// randomGenerator reads the node's RandomOptions (nil: both seeds zero)
// and returns the generator TFLite's InitializeOpData builds from them.
func randomGenerator(n *ops.Node) (philox, error) {
	var o RandomOptions
	switch v := n.Options.(type) {
	case nil:
	case *RandomOptions:
		if v != nil {
			o = *v
		}
	default:
		return philox{}, fmt.Errorf("options: have %T, need *RandomOptions", n.Options)
	}
	seed, seed2 := uint64(o.Seed), uint64(o.Seed2)
	if seed == 0 && seed2 == 0 {
		seed, seed2 = rand.Uint64(), rand.Uint64()
	}
	return newPhilox(seed, seed2), nil
}

// randomShapeKernel is the part of RANDOM_UNIFORM and
// RANDOM_STANDARD_NORMAL that sizes the output from input 0, a 1-D int32
// shape vector: at Prepare when it is constant, at every Eval otherwise.
type randomShapeKernel struct {
	rng   philox
	count int
	shape []int // Eval's shape buffer when the shape is not constant
}

// prepare validates the node (one int32 1-D shape input, one float32
// output, as random_ops.cc's Prepare and Eval), seeds the generator and
// sets or defers the output shape.
func (k *randomShapeKernel) prepare(n *ops.Node) error {
	*k = randomShapeKernel{}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	shape, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return fmt.Errorf("output 0 is missing")
	}
	if err := requireType(shape, "input 0 (shape)", ops.Int32); err != nil {
		return err
	}
	if shape.Rank() != 1 {
		return fmt.Errorf("input 0 (shape): rank %d, need a 1-D vector", shape.Rank())
	}
	if err := requireType(out, "output 0", ops.Float32); err != nil {
		return err
	}
	if k.rng, err = randomGenerator(n); err != nil {
		return err
	}
	if shape.Shape[0] > maxDynamicRank {
		return fmt.Errorf("input 0 (shape): %d dimensions, at most %d are supported", shape.Shape[0], maxDynamicRank)
	}
	if shape.Kind != ops.ConstTensor {
		k.shape = make([]int, shape.Shape[0])
		return n.SetOutputDynamic(0)
	}
	dims := make([]int, shape.Shape[0])
	if len(shape.Data) < 4*len(dims) {
		return fmt.Errorf("input 0 (shape): constant without data")
	}
	if err := fillShape(dims, shape, nil); err != nil {
		return err
	}
	if k.count, err = ops.ShapeElements(dims, 4); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = dims
	return nil
}

// output sizes a dynamic output from the shape input and returns the
// float32 elements to fill.
func (k *randomShapeKernel) output(n *ops.Node) ([]float32, error) {
	out := n.Output(0)
	if out == nil {
		return nil, fmt.Errorf("output 0 missing at Eval")
	}
	if k.shape != nil {
		s := n.Input(0)
		if s == nil || len(s.Data) < 4*len(k.shape) {
			return nil, fmt.Errorf("input 0 (shape): data missing at Eval")
		}
		if err := fillShape(k.shape, s, nil); err != nil {
			return nil, err
		}
		var err error
		if k.count, err = ops.ShapeElements(k.shape, 4); err != nil {
			return nil, fmt.Errorf("output 0: shape %v: %v", k.shape, err)
		}
		if err := n.ResizeOutput(0, k.shape); err != nil {
			return nil, err
		}
	}
	if err := checkData(out); err != nil {
		return nil, err
	}
	return out.Float32s()[:k.count], nil
}
