package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Bucketize is the kernel of TFLite's BUCKETIZE operator: out[i] is the
// number of boundaries (BucketizeOptions.boundaries, float32, sorted
// ascending) that are not greater than in[i], an int32 tensor of the
// input's shape: std::upper_bound's position.
//
// As TFLite's bucketize.cc, the comparison is C++'s in[i] < boundary with
// the usual conversions: int32 and int64 inputs convert to float32 (so
// large integers round first), float64 compares against the boundary
// widened to float64. The search is std::upper_bound's binary search, so a
// NaN input lands past every boundary. Unsorted boundaries are refused at
// Prepare. Types: float32, float64, int32, int64. Version 1, as TFLite's
// register.cc.
type Bucketize struct {
	typ        ops.DataType
	boundaries []float32
	count      int
}

// BucketizeOptions is TFLite's BucketizeOptions.
type BucketizeOptions struct {
	Boundaries []float32
	// missing records a decoded table without the boundaries field, which
	// TFLite's parser refuses; Prepare does so here, so that decoding
	// itself takes every table.
	missing bool
}

// NewBucketize returns a BUCKETIZE kernel for one node.
func NewBucketize() ops.Kernel { return &Bucketize{} }

func init() {
	register(ops.OpBucketize, NewBucketize, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsBucketizeOptions, decodeBucketizeOptions)
}

// decodeBucketizeOptions decodes TFLite's BucketizeOptions table, noting
// a table without the boundaries field (an empty list is fine).
func decodeBucketizeOptions(t ops.OptionsTable) (any, error) {
	var o schema.BucketizeOptions
	initTable(&o, t)
	b := make([]float32, o.BoundariesLength())
	for i := range b {
		b[i] = o.Boundaries(i)
	}
	tab := o.Table()
	return &BucketizeOptions{Boundaries: b, missing: tab.Offset(4) == 0}, nil
}

var errBucketizeNoBoundaries = errors.New("options: BucketizeOptions has no boundaries array (TFLite's parser refuses the model)")

// Prepare validates the node and gives the output the input's shape.
func (k *Bucketize) Prepare(n *ops.Node) error {
	*k = Bucketize{}
	if o, ok := n.Options.(*BucketizeOptions); ok && o != nil {
		if o.missing {
			return errBucketizeNoBoundaries
		}
		k.boundaries = append([]float32(nil), o.Boundaries...)
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *BucketizeOptions", n.Options)
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	// std::is_sorted: no boundary smaller than the one before it.
	for i := 1; i < len(k.boundaries); i++ {
		if k.boundaries[i] < k.boundaries[i-1] {
			return fmt.Errorf("options: boundaries are not sorted (entry %d, %g, is below entry %d, %g)",
				i, k.boundaries[i], i-1, k.boundaries[i-1])
		}
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Int32, ops.Float32, ops.Int64, ops.Float64); err != nil {
		return err
	}
	if err := requireType(out, "output 0", ops.Int32); err != nil {
		return err
	}
	if k.count, err = numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k.typ = in.Type
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval finds every element's bucket.
func (k *Bucketize) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("BUCKETIZE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	o := out.Int32s()[:k.count]
	b := k.boundaries
	switch k.typ {
	case ops.Float32:
		for i, v := range in.Float32s()[:k.count] {
			o[i] = upperBound(b, func(x float32) bool { return v < x })
		}
	case ops.Float64:
		for i, v := range in.Float64s()[:k.count] {
			o[i] = upperBound(b, func(x float32) bool { return v < float64(x) })
		}
	case ops.Int32:
		for i, v := range in.Int32s()[:k.count] {
			f := float32(v)
			o[i] = upperBound(b, func(x float32) bool { return f < x })
		}
	default: // Int64
		for i, v := range in.Int64s()[:k.count] {
			f := float32(v)
			o[i] = upperBound(b, func(x float32) bool { return f < x })
		}
	}
	return nil
}

// upperBound is std::upper_bound over b with less(x) meaning value < x:
// the same halving steps, so it agrees with libstdc++ even where b or the
// value is NaN.
func upperBound(b []float32, less func(x float32) bool) int32 {
	first, count := 0, len(b)
	for count > 0 {
		step := count / 2
		if !less(b[first+step]) {
			first += step + 1
			count -= step + 1
		} else {
			count = step
		}
	}
	return int32(first)
}
