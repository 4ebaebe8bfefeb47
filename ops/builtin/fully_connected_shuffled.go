package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// fcShuffled4x16 is FullyConnectedOptions.WeightsFormat SHUFFLED4x16INT8.
const fcShuffled4x16 = 1

// The shuffled weights format of FULLY_CONNECTED (TFLite's
// kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8, operator version 2)
// is TFLite's ShuffledFullyConnected (reference_ops and optimized_ops;
// fully_connected.cc's EvalShuffledQuantized):
//
//   - input uint8 whose zero point is taken to be 128 (its sign bit is
//     flipped to read it as int8: x ^ 0x80), weights likewise with zero
//     point 128 (stored already sign-flipped, as int8), both zero points
//     in the model ignored; int32 bias (required: TFLite dereferences it);
//     int16 output whose zero point is ignored;
//   - the weights [units, input_size] are stored in blocks: for each group
//     of 4 output rows, for each run of 16 columns, the 4×16 block row by
//     row. units must be a multiple of 4, input_size of 16, and the batch
//     1 or 4 (TFLite's kernels compute nothing for any other batch);
//   - acc = Σ int8(w)·int8(x ^ 0x80) + bias in wrapping int32, then
//     MultiplyByQuantizedMultiplier (the multiplier is
//     input_scale·weights_scale/output_scale, with the bias-scale check of
//     the dense path) and a clamp to the int16 range. The clamp ignores
//     the fused activation as TFLite's optimised kernel (the builtin one)
//     does;
//   - output 1 is the workspace (uint8, sized [batch, input_size] here,
//     where TFLite keeps the declared shape and writes as many bytes into
//     it): TFLite leaves the sign-flipped input in it, for batch 4
//     interleaved by runs of 16 columns (run c of rows 0-3, then run c+1),
//     and so does this kernel.

// prepareShuffled checks the shuffled format's constraints after the
// shared checks (types, shapes, multiplier) passed.
func (k *FullyConnected) prepareShuffled(n *ops.Node, in, w, bias *ops.Tensor) error {
	if bias == nil {
		return fmt.Errorf("%s: the shuffled weights format needs a bias", fcBias)
	}
	if bias.Type != ops.Int32 {
		return fmt.Errorf("%s: type %s, the shuffled weights format needs int32", fcBias, bias.Type)
	}
	if isPerChannel(w) {
		return fmt.Errorf("%s: per-channel quantization is not supported with shuffled weights", fcWeights)
	}
	if k.units%4 != 0 || k.cols%16 != 0 {
		return fmt.Errorf("%s: shape %v; shuffled 4x16 weights need units a multiple of 4 and input_size a multiple of 16", fcWeights, w.Shape)
	}
	if !k.zeroCols && k.batch != 1 && k.batch != 4 {
		return fmt.Errorf("%s: batch %d; TFLite's shuffled FULLY_CONNECTED computes batch 1 or 4 only", fcInput, k.batch)
	}
	ws := n.Output(1)
	if ws == nil {
		return fmt.Errorf("output 1 (shuffled input workspace) is missing")
	}
	if ws.Type != ops.Uint8 {
		return fmt.Errorf("output 1 (shuffled input workspace): type %s, need uint8", ws.Type)
	}
	// TFLite leaves the workspace at its declared shape and writes
	// batch·input_size bytes into it; tflrun sizes it to exactly that.
	if ws.Kind == ops.ConstTensor {
		return fmt.Errorf("output 1 (shuffled input workspace) is a constant")
	}
	setShape(ws, []int{k.batch, k.cols})
	k.path = fcShuffled
	return nil
}

// evalShuffled is ShuffledFullyConnected for batch 1 or 4.
func (k *FullyConnected) evalShuffled(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	ws := n.Output(1)
	if ws == nil || len(ws.Data) < k.batch*k.cols {
		return fmt.Errorf("FULLY_CONNECTED: output 1 (shuffled input workspace) missing or too small at Eval")
	}
	units, cols, batch := k.units, k.cols, k.batch
	x := in.Data[:batch*cols]
	sx := ws.Data[:batch*cols]
	// The sign-flipped input, in the order the kernel reads it: batch 1
	// as is, batch 4 by runs of 16 columns of each row in turn.
	if batch == 1 {
		for i, v := range x {
			sx[i] = v ^ 0x80
		}
	} else {
		p := 0
		for c := 0; c < cols; c += 16 {
			for b := 0; b < 4; b++ {
				for j := 0; j < 16; j++ {
					sx[p] = x[b*cols+c+j] ^ 0x80
					p++
				}
			}
		}
	}
	wd := w.Data[:units*cols]
	b32 := bias.Int32s()[:units]
	o := out.Int16s()[:batch*units]
	var acc [4][4]int32
	p := 0 // position in the shuffled weights
	for c := 0; c < units; c += 4 {
		acc = [4][4]int32{}
		for d := 0; d < cols; d += 16 {
			// Block (c, d): rows c..c+3, columns d..d+15; the input run
			// of batch row b is sx[d·batch + 16·b ...] for batch 4 and
			// sx[d ...] for batch 1 (the same expression).
			for i := 0; i < 4; i++ {
				wr := wd[p+16*i : p+16*i+16]
				for b := 0; b < batch; b++ {
					xr := sx[d*batch+16*b : d*batch+16*b+16]
					var s int32
					for j, wv := range wr {
						s += int32(int8(wv)) * int32(int8(xr[j]))
					}
					acc[i][b] += s
				}
			}
			p += 64
		}
		for i := 0; i < 4; i++ {
			for b := 0; b < batch; b++ {
				a := acc[i][b] + b32[c+i]
				v := ops.MultiplyByQuantizedMultiplier(a, k.mult, k.shift)
				o[b*units+c+i] = int16(ops.ClampInt32(v, -32768, 32767))
			}
		}
	}
	return nil
}
