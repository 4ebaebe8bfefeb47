package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// LocalResponseNormalization is the kernel of TFLite's
// LOCAL_RESPONSE_NORMALIZATION operator: every value is divided by a power
// of the sum of squares of its neighbours along the channel dimension,
//
//	out[..., c] = in[..., c] · (bias + alpha·Σ_{|d−c| ≤ radius} in[..., d]²)^(−beta).
//
// Input 0 and output 0 are float32 and 4-D. The window sum is TFLite's
// optimised kernel's running sum in float32 (each square times alpha added
// when it enters the window, subtracted when it leaves), so rounding
// follows TFLite's; beta 1 and 0.5 take TFLite's reciprocal and reciprocal
// square root, other betas a float64 power rounded to float32 (TFLite's
// Eigen pow differs from it by a few ulp). Version 1, TFLite's register.cc.
type LocalResponseNormalization struct {
	opts   LocalResponseNormalizationOptions
	radius int // clamped to the depth: a wider window sums the same values
	depth  int
	pixels int
	padID  int
}

// LocalResponseNormalizationOptions is TFLite's
// LocalResponseNormalizationOptions.
type LocalResponseNormalizationOptions struct {
	Radius            int
	Bias, Alpha, Beta float32
}

// NewLocalResponseNormalization returns a LOCAL_RESPONSE_NORMALIZATION
// kernel for one node.
func NewLocalResponseNormalization() ops.Kernel { return &LocalResponseNormalization{} }

func init() {
	register(ops.OpLocalResponseNormalization, NewLocalResponseNormalization, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsLocalResponseNormalizationOptions, decodeLocalResponseNormalizationOptions)
}

// decodeLocalResponseNormalizationOptions decodes TFLite's
// LocalResponseNormalizationOptions table.
func decodeLocalResponseNormalizationOptions(t ops.OptionsTable) (any, error) {
	var o schema.LocalResponseNormalizationOptions
	initTable(&o, t)
	return &LocalResponseNormalizationOptions{Radius: int(o.Radius()), Bias: o.Bias(), Alpha: o.Alpha(), Beta: o.Beta()}, nil
}

// Prepare validates the node and sets the output shape.
func (k *LocalResponseNormalization) Prepare(n *ops.Node) error {
	*k = LocalResponseNormalization{}
	// No options table: the schema's defaults, all zero.
	if o, ok := n.Options.(*LocalResponseNormalizationOptions); ok {
		if o != nil {
			k.opts = *o
		}
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *LocalResponseNormalizationOptions", n.Options)
	}
	in, _, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := check4D(in, "input 0"); err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return err
	}
	if k.opts.Radius < 0 {
		return fmt.Errorf("options: radius %d must be ≥ 0", k.opts.Radius)
	}
	k.depth = in.Shape[3]
	if k.depth > 0 {
		k.pixels = in.NumElements() / k.depth
	}
	k.radius = min(k.opts.Radius, k.depth)
	k.padID = n.RequestScratch(4 * (k.depth + 2*k.radius))
	return nil
}

// Eval normalises every pixel's channels.
func (k *LocalResponseNormalization) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("LOCAL_RESPONSE_NORMALIZATION: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	padded, err := scratchFloat32(n, k.padID, k.depth+2*k.radius)
	if err != nil {
		return err
	}
	d, r := k.depth, k.radius
	clear(padded)
	x, o := in.Float32s(), out.Float32s()
	bias, alpha, beta := k.opts.Bias, k.opts.Alpha, k.opts.Beta
	for p := 0; p < k.pixels; p++ {
		row, dst := x[p*d:(p+1)*d], o[p*d:(p+1)*d]
		for i, v := range row {
			padded[r+i] = float32(float32(v*v) * alpha)
		}
		var acc float32
		for _, v := range padded[:2*r] {
			acc += v
		}
		for i := range dst {
			acc += padded[i+2*r]
			dst[i] = bias + acc
			acc -= padded[i]
		}
		for i, v := range row {
			switch {
			case beta == 1:
				dst[i] = v * (1 / dst[i])
			case beta == 0.5:
				dst[i] = v * (1 / float32(math.Sqrt(float64(dst[i]))))
			default:
				dst[i] = v * float32(math.Pow(float64(dst[i]), -float64(beta)))
			}
		}
	}
	return nil
}
