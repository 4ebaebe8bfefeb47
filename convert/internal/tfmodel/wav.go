package tfmodel

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// wavCut is the replacement of a WAV string input: DecodeWav's outputs
// as the inputs, and a note saying so.
type wavCut struct {
	inputs []ir.InputSpec
	note   string
}

// wavDecoder recognises a string Placeholder read only by one DecodeWav
// (the front end of TensorFlow's speech examples and of ARM's
// keyword-spotting graphs). TFLite has no DecodeWav, and a string tensor
// cannot be decoded by any builtin, so the graph is cut after it, as the
// user would with --input_arrays: the decoded audio (float32 [samples,
// channels] in [-1, 1], sized by the desired_samples and desired_channels
// attributes where they are set) becomes an input, and so does the sample
// rate (int32 scalar) when the graph reads it (Mfcc does). It returns nil
// for any other Placeholder. needed holds the nodes the outputs need: a
// DecodeWav output nothing needed reads is not made an input.
func wavDecoder(f *ir.Function, ph *ir.Node, needed map[*ir.Node]bool) *wavCut {
	if dt, _ := ph.AttrTypeOr("dtype", ir.Invalid); dt != ir.String || len(ph.Outputs) == 0 {
		return nil
	}
	uses := f.Uses()
	var dec *ir.Node
	for _, u := range uses[ph.Outputs[0]] {
		if !needed[u] {
			continue
		}
		if u.Op != "DecodeWav" || dec != nil && dec != u || len(u.Outputs) < 2 {
			return nil
		}
		dec = u
	}
	if dec == nil {
		return nil
	}
	samples, err1 := dec.AttrInt("desired_samples", -1)
	channels, err2 := dec.AttrInt("desired_channels", -1)
	if err1 != nil || err2 != nil {
		return nil
	}
	dim := func(k int64) int {
		if k <= 0 || k > 1<<30 {
			return -1
		}
		return int(k)
	}
	audio := ir.InputSpec{Name: dec.Name + ":0", Tensor: ir.TensorRef{Node: dec.Name}, DType: ir.Float32, Shape: ir.Shape{dim(samples), dim(channels)}}
	c := &wavCut{inputs: []ir.InputSpec{audio}}
	names := fmt.Sprintf("%q (audio, float32 %v, samples in [-1, 1])", audio.Name, audio.Shape)
	readsRate := false
	for _, u := range uses[dec.Outputs[1]] {
		readsRate = readsRate || needed[u]
	}
	if readsRate {
		rate := ir.InputSpec{Name: dec.Name + ":1", Tensor: ir.TensorRef{Node: dec.Name, Index: 1}, DType: ir.Int32, Shape: ir.Shape{}}
		c.inputs = append(c.inputs, rate)
		names += fmt.Sprintf(" and %q (sample rate in Hz, int32 scalar)", rate.Name)
	}
	c.note = fmt.Sprintf("input %q is a WAV file (string) decoded by %q (DecodeWav), which TensorFlow Lite cannot run: the graph is cut after it, its inputs are %s; feed decoded samples, or cut elsewhere with --input_arrays", ph.Name, dec.Name, names)
	return c
}
