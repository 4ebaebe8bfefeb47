package builtin

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/tflrun/tflrun/ops"
)

// Multinomial is the kernel of TFLite's MULTINOMIAL operator: input 0 is a
// float32 [batch, classes] matrix of unnormalised log-probabilities,
// input 1 an int32 scalar count of samples; the output, int32 or int64
// [batch, samples], holds class indices drawn from each row's
// distribution.
//
// As TFLite's random_ops.cc (after TensorFlow's multinomial_op.cc): the
// Philox 4x32-10 generator (seeds as RANDOM_UNIFORM's) is copied, and the
// kept generator skips batch·⌈samples/4⌉·4·2·256 blocks so the next
// Invoke draws fresh numbers. The copy then serves every row in turn,
// two words per sample (a block serves two samples and carries over to
// the next row): the row's cumulative sums, in float64, of
// exp(logit − max) over its finite logits (non-finite logits add
// nothing; max over the finite ones), times Uint64ToDouble of the pair,
// gives the value whose std::upper_bound in the sums is the class. A row
// without a finite logit therefore always yields index classes, as
// TFLite's. Version 1, as TFLite's register.cc.
type Multinomial struct {
	rng            philox
	batch, classes int
	dynamic        bool
	cdf            []float64
	shape          [2]int
}

// NewMultinomial returns a MULTINOMIAL kernel for one node.
func NewMultinomial() ops.Kernel { return &Multinomial{} }

func init() {
	register(ops.OpMultinomial, NewMultinomial, [2]int{1, 1})
}

// Prepare validates the node, seeds the generator and sets the output
// shape (or marks the output dynamic when the sample count is not
// constant).
func (k *Multinomial) Prepare(n *ops.Node) error {
	*k = Multinomial{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	logits, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	ns, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(logits, "input 0 (logits)", ops.Float32); err != nil {
		return err
	}
	if logits.Rank() != 2 {
		return fmt.Errorf("input 0 (logits): shape %v, need [batch, classes]", logits.Shape)
	}
	if err := requireType(ns, "input 1 (num_samples)", ops.Int32); err != nil {
		return err
	}
	if ns.Rank() != 0 {
		return fmt.Errorf("input 1 (num_samples): shape %v, need a scalar", ns.Shape)
	}
	if err := requireType(out, "output 0", ops.Int32, ops.Int64); err != nil {
		return err
	}
	k.batch, k.classes = logits.Shape[0], logits.Shape[1]
	if k.classes <= 0 {
		return fmt.Errorf("input 0 (logits): shape %v has no classes", logits.Shape)
	}
	if k.rng, err = randomGenerator(n); err != nil {
		return err
	}
	if k.cdf, err = ops.Alloc[float64](n, k.classes, "MULTINOMIAL cumulative sums"); err != nil {
		return err
	}
	if ns.Kind != ops.ConstTensor {
		k.dynamic = true
		return n.SetOutputDynamic(0)
	}
	samples, err := k.samples(ns)
	if err != nil {
		return err
	}
	out.Shape = []int{k.batch, samples}
	return nil
}

// samples reads and checks the sample count and the output size.
func (k *Multinomial) samples(ns *ops.Tensor) (int, error) {
	if len(ns.Data) < 4 {
		return 0, errors.New("input 1 (num_samples): data missing")
	}
	s := int(ns.Int32s()[0])
	if s < 0 {
		return 0, fmt.Errorf("input 1 (num_samples): %d is negative", s)
	}
	k.shape = [2]int{k.batch, s}
	if _, err := ops.ShapeElements(k.shape[:], 8); err != nil {
		return 0, fmt.Errorf("output 0: %v", err)
	}
	return s, nil
}

// Eval draws the samples.
func (k *Multinomial) Eval(n *ops.Node) error {
	logits, ns, out := n.Input(0), n.Input(1), n.Output(0)
	if logits == nil || ns == nil || out == nil {
		return errors.New("MULTINOMIAL: input or output missing at Eval")
	}
	samples, err := k.samples(ns)
	if err != nil {
		return err
	}
	if k.dynamic {
		if err := n.ResizeOutput(0, k.shape[:]); err != nil {
			return err
		}
	} else if out.Shape[1] != samples {
		return fmt.Errorf("input 1 (num_samples): %d, but the output has %d columns", samples, out.Shape[1])
	}
	if err := checkData(logits, out); err != nil {
		return err
	}
	rng := k.rng
	k.rng.skip(uint64(k.batch) * uint64((samples+3)/4*4) * 2 * 256)
	x := logits.Float32s()
	var o32 []int32
	var o64 []int64
	if out.Type == ops.Int32 {
		o32 = out.Int32s()
	} else {
		o64 = out.Int64s()
	}
	var words [4]uint32
	used := 4
	for b := 0; b < k.batch; b++ {
		row := x[b*k.classes : (b+1)*k.classes]
		mx := float32(-math.MaxFloat32)
		for _, v := range row {
			if isFinite32(v) && v > mx {
				mx = v
			}
		}
		total := 0.0
		for i, v := range row {
			if isFinite32(v) {
				total += math.Exp(float64(v) - float64(mx))
			}
			k.cdf[i] = total
		}
		for j := 0; j < samples; j++ {
			if used == 4 {
				words = rng.next()
				used = 0
			}
			find := uint64ToDouble(words[used], words[used+1]) * total
			used += 2
			c := sort.Search(len(k.cdf), func(i int) bool { return k.cdf[i] > find })
			if o32 != nil {
				o32[b*samples+j] = int32(c)
			} else {
				o64[b*samples+j] = int64(c)
			}
		}
	}
	return nil
}

// isFinite32 reports whether v is neither infinite nor NaN.
func isFinite32(v float32) bool { return v-v == 0 }
