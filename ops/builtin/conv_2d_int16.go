package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The int16x8 path of CONV_2D: int16 input and output (zero points 0),
// int8 filter with per-tensor or per-output-channel scales (zero points
// 0), int32 or int64 bias. It follows TFLite's conv.cc
// EvalQuantizedPerChannel16x8, which picks the arithmetic from
// quantized_bias_type (the options field of version 8):
//   - INT32: the bias is int32, the sums are wrapping int32 and, for an
//     ungrouped convolution, go through TFLite's optimised ConvPerChannel,
//     whose GEMM TFLite's x86 build hands to ruy: the accumulator is
//     rescaled as ruy's x86 kernels do (ops.MultiplyByQuantizedMultiplierUp,
//     ties of the final shift upward). A grouped convolution takes the
//     reference loop and its MultiplyByQuantizedMultiplier (ties away from
//     zero);
//   - unset or INT64: TFLite's reference ConvPerChannel with int64 sums
//     and an int64 bias (TFLite reads the bias buffer as int64 whatever
//     its declared type, so an int32 bias is refused here), rescaled with
//     the 64-bit MultiplyByQuantizedMultiplier, which first rounds the
//     multiplier to 16 bits (ops.MultiplyByQuantizedMultiplier64).
//
// Every product w·x is below 2^22 in magnitude, so the sums are exact
// whatever their order; the int32 path keeps them modulo 2^32 as TFLite's
// wrapping int32 accumulator does. An ungrouped convolution (patches up to
// 2^16 long) runs on the int8 GEMM of package arch: each tile of patches
// (zeros outside the image, the zero point being 0) is split as x =
// 256·hi + lo + 128 with hi and lo int8 (splitInt16), so Σ w·x = 256·Σ w·hi
// + (Σ w·lo + 128·Σ w), two exact int32 GEMMs combined in int64. A grouped
// one gathers each pixel's patch per group and takes one dot product per
// output channel in portable Go.

// prepareInt16 finishes Prepare for the int16x8 path.
func (k *Conv2D) prepareInt16(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	if in.ZeroPoint() != 0 || out.ZeroPoint() != 0 {
		return fmt.Errorf("input 0/output 0: int16 zero points %d and %d, need 0", in.ZeroPoint(), out.ZeroPoint())
	}
	if filter.Quant != nil {
		for i, z := range filter.Quant.ZeroPoint {
			if z != 0 {
				return fmt.Errorf("input 1 (filter): zero point %d at %d; int8 filters of an int16 convolution must be symmetric", z, i)
			}
		}
	}
	qbt := k.opts.QuantizedBiasType
	switch qbt {
	case ops.Float32, ops.Int64:
		// Unset: TFLite's reference kernel with int64 sums.
		k.acc64 = true
	case ops.Int32:
	default:
		return fmt.Errorf("options: quantized_bias_type %s, need INT32 or INT64", qbt)
	}
	if bias != nil {
		want := ops.Int64
		if !k.acc64 {
			want = ops.Int32
		}
		if bias.Type != want {
			if qbt == ops.Float32 {
				return fmt.Errorf("input 2 (bias): type %s; an int16 CONV_2D without quantized_bias_type INT32 reads an int64 bias", bias.Type)
			}
			return fmt.Errorf("input 2 (bias): type %s, need %s (quantized_bias_type)", bias.Type, want)
		}
		if bias.ZeroPoint() != 0 {
			return fmt.Errorf("input 2 (bias): zero point %d, need 0", bias.ZeroPoint())
		}
	}
	// The int32 bias is checked above; convQuant checks only int32 ones.
	if err := k.q.prepare(in, filter, nil, out, k.opts.Activation, k.outC, 0, false); err != nil {
		return err
	}
	if k.opts.Activation == ops.ActTanh || k.opts.Activation == ops.ActSignBit {
		return fmt.Errorf("options: fused activation %s is not supported by CONV_2D", k.opts.Activation)
	}
	if k.acc64 {
		for c, s := range k.q.shift {
			if s > 14 {
				// The 64-bit MultiplyByQuantizedMultiplier shifts right
				// by 15 - shift, which must stay positive.
				return fmt.Errorf("output 0: channel %d rescale factor 2^%d is too large for the int16 kernel", c, s)
			}
		}
	}
	k.patchID = n.RequestScratch(2 * k.k)
	if k.groups == 1 && k.k <= conv16GemmMaxK {
		k.gemm16 = true
		g := &k.col
		k.direct = g.h.filter == 1 && g.w.filter == 1 && g.h.stride == 1 && g.w.stride == 1 && g.h.pad == 0 && g.w.pad == 0
		k.tile = max(1, min(k.pixels, convTileBytes/max(1, 2*k.k), convAccTileBytes/(4*max(1, k.outC))))
		k.colID = n.RequestScratch(2 * k.tile * k.k)        // int16 patches
		k.col2ID = n.RequestScratch(2 * k.tile * k.k)       // hi and lo halves
		k.accTileID = n.RequestScratch(8 * k.tile * k.outC) // hi and lo sums
		size := arch.PackedGemmInt8Len(k.outC, k.k)
		if filter.IsConstant() {
			k.packed8 = make([]int8, size)
			arch.PackGemmInt8(k.packed8, filter.Int8s(), k.outC, k.k)
			k.rowSums = make([]int32, k.outC)
			arch.RowSumsInt8(k.rowSums, filter.Int8s(), k.outC, k.k)
		} else {
			k.pack8ID = n.RequestScratch(size)
			k.accID = n.RequestScratch(4 * k.outC)
		}
		k.seed = make([]int32, 2*k.outC) // zeros, then 128·Σw
		if k.rowSums != nil {
			for c, v := range k.rowSums {
				k.seed[k.outC+c] = 128 * v
			}
		}
	}
	return nil
}

// conv16GemmMaxK bounds the patch length of the GEMM path: the low
// halves' sums Σ w·lo + 128·Σ w stay within int32 (|·| ≤ 2·127·128·k).
const conv16GemmMaxK = 1 << 16

// evalInt16Gemm is the ungrouped int16x8 convolution on arch.GemmInt8.
func (k *Conv2D) evalInt16Gemm(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	cb, err := scratchBytes(n, k.colID, 2*k.tile*k.k)
	if err != nil {
		return err
	}
	col := ops.View[int16](cb)[: k.tile*k.k : k.tile*k.k]
	halves, err := scratchInt8(n, k.col2ID, 2*k.tile*k.k)
	if err != nil {
		return err
	}
	accs, err := scratchInt32(n, k.accTileID, 2*k.tile*k.outC)
	if err != nil {
		return err
	}
	packed, seed := k.packed8, k.seed
	if packed == nil {
		if packed, err = scratchInt8(n, k.pack8ID, arch.PackedGemmInt8Len(k.outC, k.k)); err != nil {
			return err
		}
		w := filter.Int8s()
		arch.PackGemmInt8(packed, w, k.outC, k.k)
		sums, err := scratchInt32(n, k.accID, k.outC)
		if err != nil {
			return err
		}
		arch.RowSumsInt8(sums, w, k.outC, k.k)
		for c, v := range sums {
			seed[k.outC+c] = 128 * v
		}
	}
	var b32 []int32
	var b64 []int64
	if bias != nil {
		if k.acc64 {
			b64 = bias.Int64s()[:k.outC]
		} else {
			b32 = bias.Int32s()[:k.outC]
		}
	}
	x, o := in.Int16s(), out.Int16s()
	q := &k.q
	inImage := k.col.h.in * k.col.inRowStride
	for batch := 0; batch < k.batches; batch++ {
		xb := x[batch*inImage : (batch+1)*inImage]
		for p0 := 0; p0 < k.pixels; p0 += k.tile {
			cnt := min(k.tile, k.pixels-p0)
			m := cnt * k.k
			src := col[:m]
			if k.direct {
				src = xb[p0*k.k : p0*k.k+m]
			} else {
				im2colFill(&k.col, src, xb, p0, cnt, 0)
			}
			hi, lo := halves[:m], halves[k.tile*k.k:][:m]
			splitInt16(hi, lo, src)
			accHi, accLo := accs[:cnt*k.outC], accs[k.tile*k.outC:][:cnt*k.outC]
			arch.GemmInt8(accHi, k.outC, hi, k.k, packed, seed[:k.outC], cnt, k.outC, k.k)
			arch.GemmInt8(accLo, k.outC, lo, k.k, packed, seed[k.outC:], cnt, k.outC, k.k)
			dst := o[(batch*k.pixels+p0)*k.outC:][:cnt*k.outC]
			for i := range dst {
				c := i % k.outC
				sum := int64(accHi[i])<<8 + int64(accLo[i])
				var v int32
				if k.acc64 {
					if b64 != nil {
						sum += b64[c]
					}
					v = ops.MultiplyByQuantizedMultiplier64(sum, q.mult[c], q.shift[c])
				} else {
					a := int32(sum) // wrapping, as TFLite's int32 sums
					if b32 != nil {
						a += b32[c]
					}
					v = ops.MultiplyByQuantizedMultiplierUp(a, q.mult[c], q.shift[c])
				}
				dst[i] = int16(min(max(v, q.actMin), q.actMax))
			}
		}
	}
	return nil
}

// evalInt16 runs the int16x8 convolution.
func (k *Conv2D) evalInt16(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	if k.gemm16 {
		return k.evalInt16Gemm(n, in, filter, bias, out)
	}
	b, err := scratchBytes(n, k.patchID, 2*k.k)
	if err != nil {
		return err
	}
	patch := ops.View[int16](b)[:k.k]
	x, w, o := in.Int16s(), filter.Int8s(), out.Int16s()
	var b32 []int32
	var b64 []int64
	if bias != nil {
		if k.acc64 {
			b64 = bias.Int64s()[:k.outC]
		} else {
			b32 = bias.Int32s()[:k.outC]
		}
	}
	g := &k.col
	perGroup := k.outC / k.groups
	depth := g.depth
	q := &k.q
	up := !k.acc64 && k.groups == 1 // ruy's rounding (see above)
	inImage := g.h.in * g.inRowStride
	oi := 0
	for batch := 0; batch < k.batches; batch++ {
		xb := x[batch*inImage : (batch+1)*inImage]
		for oy := 0; oy < g.h.out; oy++ {
			for ox := 0; ox < g.w.out; ox++ {
				for grp := 0; grp < k.groups; grp++ {
					gatherPatchInt16(patch, xb, g, oy, ox, grp*depth)
					for c := grp * perGroup; c < (grp+1)*perGroup; c++ {
						sum := dotInt8Int16(w[c*k.k:(c+1)*k.k], patch)
						var v int32
						switch {
						case k.acc64:
							if b64 != nil {
								sum += b64[c]
							}
							v = ops.MultiplyByQuantizedMultiplier64(sum, q.mult[c], q.shift[c])
						default:
							a := int32(sum) // wrapping, as TFLite's int32 sums
							if b32 != nil {
								a += b32[c]
							}
							if up {
								v = ops.MultiplyByQuantizedMultiplierUp(a, q.mult[c], q.shift[c])
							} else {
								v = ops.MultiplyByQuantizedMultiplier(a, q.mult[c], q.shift[c])
							}
						}
						o[oi+c] = int16(min(max(v, q.actMin), q.actMax))
					}
				}
				oi += k.outC
			}
		}
	}
	return nil
}

// gatherPatchInt16 copies the patch of output pixel (oy, ox) for the
// input channels [c0, c0+depth) of one image xb into patch, laid out as
// the filter's [fH][fW][depth]; taps outside the image are 0.
func gatherPatchInt16(patch, xb []int16, g *im2col, oy, ox, c0 int) {
	depth := g.depth
	fW := g.w.filter
	yOrigin := oy*g.h.stride - g.h.pad
	xOrigin := ox*g.w.stride - g.w.pad
	p := 0
	for fy := 0; fy < g.h.filter; fy++ {
		iy := yOrigin + fy*g.h.dilation
		if iy < 0 || iy >= g.h.in {
			clear(patch[p : p+fW*depth])
			p += fW * depth
			continue
		}
		row := xb[iy*g.inRowStride:]
		for fx := 0; fx < fW; fx++ {
			ix := xOrigin + fx*g.w.dilation
			dst := patch[p : p+depth]
			if ix < 0 || ix >= g.w.in {
				clear(dst)
			} else {
				copy(dst, row[ix*g.inC+c0:ix*g.inC+c0+depth])
			}
			p += depth
		}
	}
}

// dotInt8Int16 returns Σ w[i]·x[i] in int64. Each product fits in int32
// (|w·x| < 2^22); four int64 partial sums keep the loop short.
func dotInt8Int16(w []int8, x []int16) int64 {
	x = x[:len(w)]
	var s0, s1, s2, s3 int64
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += int64(int32(w[i]) * int32(x[i]))
		s1 += int64(int32(w[i+1]) * int32(x[i+1]))
		s2 += int64(int32(w[i+2]) * int32(x[i+2]))
		s3 += int64(int32(w[i+3]) * int32(x[i+3]))
	}
	for ; i < len(w); i++ {
		s0 += int64(int32(w[i]) * int32(x[i]))
	}
	return (s0 + s1) + (s2 + s3)
}
