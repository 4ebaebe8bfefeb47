package builtin

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestNewWindowPadded checks the explicit-padding window against VALID
// over the padded size: the same output count, the leading padding as
// given and the real input size.
func TestNewWindowPadded(t *testing.T) {
	for in := 1; in <= 9; in++ {
		for f := 1; f <= 5; f++ {
			for s := 1; s <= 3; s++ {
				for d := 1; d <= 2; d++ {
					for before := 0; before <= 3; before++ {
						for after := 0; after <= 3; after++ {
							valid, verr := newWindow(ops.PaddingValid, in+before+after, f, s, d, "height")
							w, err := newWindowPadded(in, f, s, d, before, after, "height")
							if (err != nil) != (verr != nil) {
								t.Fatalf("in %d f %d s %d d %d pads %d,%d: error %v, VALID %v", in, f, s, d, before, after, err, verr)
							}
							if err != nil {
								continue
							}
							if w.out != valid.out || w.pad != before || w.in != in {
								t.Fatalf("in %d f %d s %d d %d pads %d,%d: out %d pad %d in %d, want out %d", in, f, s, d, before, after, w.out, w.pad, w.in, valid.out)
							}
						}
					}
				}
			}
		}
	}
	if _, err := newWindowPadded(4, 3, 1, 1, -1, 0, "height"); err == nil {
		t.Fatal("negative padding accepted")
	}
}

// TestExplicitPadRefused checks that the convolutions refuse explicit
// padding with SAME padding and on their hybrid and int16 paths.
func TestExplicitPadRefused(t *testing.T) {
	q := func(s float32) *ops.Quantization {
		return &ops.Quantization{Scale: []float32{s}, ZeroPoint: []int64{0}}
	}
	for _, c := range []struct {
		name    string
		in, f   ops.DataType
		padding ops.Padding
		want    string
	}{
		{"same", ops.Float32, ops.Float32, ops.PaddingSame, "need VALID"},
		{"hybrid", ops.Float32, ops.Int8, ops.PaddingValid, "explicit padding is supported"},
		{"int16", ops.Int16, ops.Int8, ops.PaddingValid, "explicit padding is supported"},
	} {
		for _, dw := range []bool{false, true} {
			in := &ops.Tensor{Type: c.in, Shape: []int{1, 6, 6, 4}, Kind: ops.ArenaTensor}
			fShape := []int{4, 3, 3, 4}
			if dw {
				fShape = []int{1, 3, 3, 4}
			}
			filter := &ops.Tensor{Type: c.f, Shape: fShape, Kind: ops.ConstTensor}
			filter.Data = make([]byte, filter.Bytes())
			out := &ops.Tensor{Type: c.in, Kind: ops.ArenaTensor}
			if c.in != ops.Float32 {
				in.Quant, out.Quant = q(0.1), q(0.2)
			}
			if c.f != ops.Float32 {
				filter.Quant = q(0.05)
			}
			n := &ops.Node{Inputs: []*ops.Tensor{in, filter}, Outputs: []*ops.Tensor{out}}
			var k ops.Kernel
			if dw {
				n.Options = &DepthwiseConv2DOptions{Padding: c.padding, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, DepthMultiplier: 1, ExplicitPad: [4]int{1, 1, 0, 2}}
				k = NewDepthwiseConv2D()
			} else {
				n.Options = &Conv2DOptions{Padding: c.padding, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, ExplicitPad: [4]int{1, 1, 0, 2}}
				k = NewConv2D()
			}
			err := k.Prepare(n)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s depthwise %v: %v, want %q", c.name, dw, err, c.want)
			}
		}
	}
}
