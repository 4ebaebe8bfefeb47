package builtin

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestDepthwiseMultPath runs the multiplier path (depthwise_conv_2d_mult.go,
// forced on whatever the CPU) and rect mode or the byte path (forced off)
// on the same nodes: input channels 1, 2, 3 and 5, multipliers 2-9 and
// 16, filters 1x1-5x5, strides 1 and 2, dilations 1 and 2, SAME and
// VALID, batches of 1 and 2, every fused activation, float32 (signed
// zeros, infinities and NaNs among the inputs), int8 with per-channel
// and per-tensor scales and uint8, constant and variable filters, with
// and without bias. It checks that the path is taken exactly for its
// class, that each path gives the same bits on 1-4 threads
// (sweepThreads), that integer outputs are bit-identical between the
// paths, that float outputs equal a scalar sum in TFLite's order (bias,
// taps by row then column, no fused multiply-add) bit for bit, and, on
// amd64 where rect mode does not fuse either, that they equal rect
// mode's.
func TestDepthwiseMultPath(t *testing.T) {
	defer func(v int) { dwMultUse = v }(dwMultUse)
	r := lcg(41)
	acts := []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActReluN1To1, ops.ActRelu6}
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40}
	taken := 0
	for trial := 0; trial < 600; trial++ {
		inC := []int{1, 2, 3, 5}[r.intn(0, 3)]
		mult := r.intn(2, 9)
		switch r.intn(0, 5) {
		case 0:
			mult = 8
		case 1:
			mult = 16
		}
		outC := inC * mult
		fh, fw := r.intn(1, 5), r.intn(1, 5)
		sh, sw := r.intn(1, 2), r.intn(1, 2)
		dh, dw := 1, 1
		if r.intn(0, 3) == 0 {
			dh, dw = r.intn(1, 2), r.intn(1, 2)
		}
		pad := []ops.Padding{ops.PaddingSame, ops.PaddingValid}[r.intn(0, 1)]
		batch := r.intn(1, 2)
		h, w := r.intn(1, 14), r.intn(1, 14)
		act := acts[r.intn(0, 3)]
		typ := []ops.DataType{ops.Float32, ops.Int8, ops.Uint8}[trial%3]
		if trial < 3 { // magic_wand's layer
			inC, mult, outC, fh, fw, sh, sw, dh, dw, pad, batch, h, w, act = 1, 8, 8, 4, 3, 1, 1, 1, 1, ops.PaddingSame, 1, 128, 3, ops.ActRelu
		}
		constFilter, withBias := r.intn(0, 3) != 0, r.intn(0, 4) != 0
		opts := &DepthwiseConv2DOptions{Padding: pad, StrideW: sw, StrideH: sh, DilationWFactor: dw, DilationHFactor: dh, DepthMultiplier: mult, Activation: act}
		inShape, fShape := []int{batch, h, w, inC}, []int{1, fh, fw, outC}
		var in, f, b *ops.Tensor
		switch typ {
		case ops.Float32:
			x := randFloats(&r, prod(inShape), -2, 2)
			for i := range x {
				if r.intn(0, 40) == 0 {
					x[i] = specials[r.intn(0, len(specials)-1)]
				}
			}
			in = tensorOf(ops.Float32, inShape, x)
			f = tensorOf(ops.Float32, fShape, randFloats(&r, prod(fShape), -1, 1))
			b = tensorOf(ops.Float32, []int{outC}, randFloats(&r, outC, -1, 1))
		case ops.Int8:
			in = q(tensorOf(ops.Int8, inShape, toInt8(randInts(&r, prod(inShape), -128, 127))), 0.05, int64(r.intn(-20, 20)))
			f = tensorOf(ops.Int8, fShape, toInt8(randInts(&r, prod(fShape), -127, 127)))
			scales := []float32{r.float(0.001, 0.01)}
			if r.intn(0, 1) == 0 {
				scales = make([]float32, outC)
				for c := range scales {
					scales[c] = r.float(0.001, 0.01)
				}
			}
			f.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, len(scales)), QuantizedDimension: 3}
			b = tensorOf(ops.Int32, []int{outC}, randInts(&r, outC, -3000, 3000))
		default:
			in = q(tensorOf(ops.Uint8, inShape, toUint8(randInts(&r, prod(inShape), 0, 255))), 0.05, int64(r.intn(100, 150)))
			f = tensorOf(ops.Uint8, fShape, toUint8(randInts(&r, prod(fShape), 0, 255)))
			f.Quant = &ops.Quantization{Scale: []float32{0.004}, ZeroPoint: []int64{int64(r.intn(100, 150))}, QuantizedDimension: 3}
			b = tensorOf(ops.Int32, []int{outC}, randInts(&r, outC, -3000, 3000))
		}
		if constFilter {
			f, b = constT(f), constT(b)
		}
		ins := []*ops.Tensor{in, f, b}
		if !withBias {
			ins = ins[:2]
		}
		what := fmt.Sprintf("trial %d %s in %v filter %v stride %dx%d dilation %dx%d %s %s const=%v bias=%v", trial, typ, inShape, fShape, sh, sw, dh, dw, pad, act, constFilter, withBias)
		outZP := int64(r.intn(-5, 5))
		if typ == ops.Uint8 {
			outZP += 128
		}
		var outs [2][]byte
		var dk *DepthwiseConv2D
		skipped := false
		for pass, use := range []int{1, -1} {
			dwMultUse = use
			var out *ops.Tensor
			if typ == ops.Float32 {
				out = outTensor(typ)
			} else {
				out = q(outTensor(typ), 0.07, outZP)
			}
			n := node(opts, ins, out)
			k := NewDepthwiseConv2D()
			if err := prepare(k, n); err != nil {
				skipped = true // VALID with a filter larger than the image
				break
			}
			if err := k.Eval(n); err != nil {
				t.Fatalf("%s: Eval: %v", what, err)
			}
			sweepThreads(t, k, n)
			outs[pass] = append([]byte(nil), out.Data[:out.Bytes()]...)
			if pass == 0 {
				dk = k.(*DepthwiseConv2D)
				want := outC <= dwMultMaxC && out.NumElements() > 0
				if got := dk.dm != nil; got != want {
					t.Fatalf("%s: multiplier path taken %v, want %v", what, got, want)
				}
			} else if k.(*DepthwiseConv2D).dm != nil {
				t.Fatalf("%s: multiplier path taken when turned off", what)
			}
		}
		if skipped || dk.dm == nil {
			continue
		}
		taken++
		if typ != ops.Float32 {
			if !bytes.Equal(outs[0], outs[1]) {
				t.Fatalf("%s: multiplier path differs from rect mode", what)
			}
			continue
		}
		got := ops.View[float32](outs[0])
		want := dwMultRefFloat(in, f, b, withBias, dk)
		for i := range want {
			if g, w := got[i], want[i]; math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
				t.Fatalf("%s: output %d = %v, scalar reference %v", what, i, g, w)
			}
		}
		if runtime.GOARCH == "amd64" && !bytes.Equal(outs[0], outs[1]) {
			t.Fatalf("%s: multiplier path differs from rect mode", what)
		}
	}
	t.Logf("multiplier path taken in %d trials", taken)
	if taken < 150 {
		t.Fatalf("multiplier path taken in %d trials only", taken)
	}
}

// dwMultRefFloat is the float depthwise convolution in TFLite's order
// with k's windows.
func dwMultRefFloat(in, f, b *ops.Tensor, withBias bool, k *DepthwiseConv2D) []float32 {
	x, w := in.Float32s(), f.Float32s()
	C, inC, m := k.outC, k.inC, k.mult
	out := make([]float32, 0, k.batches*k.h.out*k.w.out*C)
	for n := 0; n < k.batches; n++ {
		for oy := 0; oy < k.h.out; oy++ {
			for ox := 0; ox < k.w.out; ox++ {
				for c := 0; c < C; c++ {
					var s float32
					if withBias {
						s = b.Float32s()[c]
					}
					for ty := 0; ty < k.h.filter; ty++ {
						iy := oy*k.h.stride - k.h.pad + ty*k.h.dilation
						if iy < 0 || iy >= k.h.in {
							continue
						}
						for tx := 0; tx < k.w.filter; tx++ {
							ix := ox*k.w.stride - k.w.pad + tx*k.w.dilation
							if ix < 0 || ix >= k.w.in {
								continue
							}
							s += float32(x[((n*k.h.in+iy)*k.w.in+ix)*inC+c/m] * w[(ty*k.w.filter+tx)*C+c])
						}
					}
					out = append(out, min(max(s, k.fMin), k.fMax))
				}
			}
		}
	}
	return out
}
