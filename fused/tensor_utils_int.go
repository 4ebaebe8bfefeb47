package fused

import (
	"sync"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// This file holds the integer vector utilities of TFLite's integer LSTM
// (tensor_utils, reference/portable_tensor_utils.cc), with the same
// rounding, saturation and wrap-around. Batched vectors are stored back to
// back: element i of batch b is at b*n+i.

// matBatchVecMulAccInt16 is TFLite's MatrixBatchVectorMultiplyAccumulate with
// int16 output: for every batch b and row r,
//
//	out[b*rows+r] = sat16(out[b*rows+r] + outZP + MBQM(bias[r] + Σ_c w[r*cols+c]·in[b*cols+c]))
//
// where MBQM multiplies by multiplier·2^(shift-31) with TFLite's rounding.
// The input zero point is folded into bias by the caller. acc is int32
// scratch of at least batch*rows elements.
func matBatchVecMulAccInt16(in []int8, bias []int32, w []int8, multiplier int32, shift int,
	batch, cols, rows int, outZP int32, acc []int32, out []int16) {
	matBatchVecMulInt32(in, bias, w, batch, cols, rows, acc)
	out = out[:batch*rows]
	for i, v := range acc[:batch*rows] {
		v = ops.MultiplyByQuantizedMultiplier(v, multiplier, shift) + outZP + int32(out[i])
		out[i] = ops.SaturateInt16(v)
	}
}

// matBatchVecMulAccInt8 is matBatchVecMulAccInt16 with int8 output
// saturation (the projection of the integer LSTM).
func matBatchVecMulAccInt8(in []int8, bias []int32, w []int8, multiplier int32, shift int,
	batch, cols, rows int, outZP int32, acc []int32, out []int8) {
	matBatchVecMulInt32(in, bias, w, batch, cols, rows, acc)
	out = out[:batch*rows]
	for i, v := range acc[:batch*rows] {
		v = ops.MultiplyByQuantizedMultiplier(v, multiplier, shift) + outZP + int32(out[i])
		out[i] = ops.SaturateInt8(v)
	}
}

// matBatchVecMulInt32 sets acc[b*rows+r] = bias[r] + Σ_c w[r*cols+c]·in[b*cols+c]
// (bias may be nil for zero) with wrapping int32 accumulation.
func matBatchVecMulInt32(in []int8, bias []int32, w []int8, batch, cols, rows int, acc []int32) {
	acc = acc[:batch*rows]
	for b := 0; b < batch; b++ {
		row := acc[b*rows : b*rows+rows]
		if bias != nil {
			copy(row, bias[:rows])
		} else {
			clear(row)
		}
		arch.MatVecMulAccInt8(row, w, rows, cols, in[b*cols:])
	}
}

// cwiseMulShift16 is TFLite's CwiseMul with a shift and int16 output:
// out[i] = int16(RoundingDivideByPOT(a[i]·b[i], shift)). The conversion to
// int16 wraps (-32768·-32768 >> 15 gives -32768), as TFLite's cast does.
func cwiseMulShift16(a, b []int16, shift int, out []int16) {
	b = b[:len(a)]
	out = out[:len(a)]
	for i, x := range a {
		out[i] = int16(ops.RoundingDivideByPOT(int32(x)*int32(b[i]), shift))
	}
}

// cwiseMulRescaleInt8 is TFLite's CwiseMul with a multiplier and int8
// output: out[i] = sat8(MBQM(a[i]·b[i]) + outZP).
func cwiseMulRescaleInt8(a, b []int16, multiplier int32, shift int, outZP int32, out []int8) {
	b = b[:len(a)]
	out = out[:len(a)]
	for i, x := range a {
		v := ops.MultiplyByQuantizedMultiplier(int32(x)*int32(b[i]), multiplier, shift) + outZP
		out[i] = ops.SaturateInt8(v)
	}
}

// cwiseAddSat16 is TFLite's CwiseAdd: out[i] = sat16(a[i] + b[i]).
func cwiseAddSat16(a, b, out []int16) {
	b = b[:len(a)]
	out = out[:len(a)]
	for i, x := range a {
		out[i] = saturatingAdd16(x, b[i])
	}
}

// cwiseClip16 clamps v in place to [-clip, clip] (TFLite's CwiseClipping).
func cwiseClip16(v []int16, clip int16) {
	for i, x := range v {
		v[i] = max(min(clip, x), -clip)
	}
}

// cwiseClip8 clamps v in place to [-clip, clip].
func cwiseClip8(v []int8, clip int8) {
	for i, x := range v {
		v[i] = max(min(clip, x), -clip)
	}
}

// sub1Int16 sets out[i] = 32767 - v[i], "1 - x" for Q0.15 values in
// [0, 32767] (TFLite's Sub1Vector for int16, used by CIFG).
func sub1Int16(v, out []int16) {
	out = out[:len(v)]
	for i, x := range v {
		out[i] = fp16One - x
	}
}

// vecBatchVecCwiseProdAccInt16 is TFLite's VectorBatchVectorCwiseProductAccumulate
// for int16: for b < batch and i < n,
//
//	out[b*n+i] = sat16(out[b*n+i] + MBQM(vec[i]·batchVec[b*n+i]))
func vecBatchVecCwiseProdAccInt16(vec []int16, n int, batchVec []int16, batch int,
	multiplier int32, shift int, out []int16) {
	vec = vec[:n]
	for b := 0; b < batch; b++ {
		bv := batchVec[b*n : b*n+n]
		o := out[b*n : b*n+n]
		for i, w := range vec {
			p := ops.MultiplyByQuantizedMultiplier(int32(w)*int32(bv[i]), multiplier, shift)
			o[i] = ops.SaturateInt16(p + int32(o[i]))
		}
	}
}

// applyLayerNormInt16 is TFLite's integer ApplyLayerNorm on batch vectors of
// n int16 values: each vector is normalised with an integer mean and
// variance (the variance uses 2^20/n in integer arithmetic, exact only for
// power-of-two n, as TFLite), scaled by weights, shifted by bias (scale
// weight_scale·2^-10), rescaled by scaleA·2^(scaleB-31) and written as
// Q3.12. A variance below 1 is replaced by varianceLimit. in and out may be
// the same slice. The weight product and bias sum wrap in int32 as TFLite's
// C++ does.
func applyLayerNormInt16(in, weights []int16, bias []int32, scaleA int32, scaleB int,
	varianceLimit int32, batch, n int, out []int16) {
	const twoToPower20 = 1 << 20
	if n == 0 {
		return
	}
	weights = weights[:n]
	bias = bias[:n]
	for b := 0; b < batch; b++ {
		x := in[b*n : b*n+n]
		o := out[b*n : b*n+n]
		var sum, sumSq int64
		for _, v := range x {
			sum += int64(v)
			sumSq += int64(int32(v) * int32(v))
		}
		mean := int32(sum * 1024 / int64(n))
		temp := int32(twoToPower20 / n)
		variance := sumSq*int64(temp) - int64(mean)*int64(mean)
		variance2 := int32(variance / twoToPower20)
		if variance2 < 1 {
			variance2 = varianceLimit
		}
		invA, invB := invSqrtQuantizedMultiplierExp(variance2, -1)
		for i, v := range x {
			shifted := 1024*int32(v) - mean
			rescaled := ops.MultiplyByQuantizedMultiplier(shifted, invA, invB)
			val3 := int64(rescaled*int32(weights[i]) + bias[i])
			if val3 > 0 {
				val3 += 512
			} else {
				val3 -= 512
			}
			val4 := int32(val3 / 1024)
			val5 := ops.MultiplyByQuantizedMultiplier(val4, scaleA, scaleB+12)
			o[i] = ops.SaturateInt16(val5)
		}
	}
}

// applySigmoidInt16 applies the logistic function to Q3.12 inputs giving
// Q0.15 outputs (TFLite's ApplySigmoid: gemmlowp logistic on
// FixedPoint<int16, 3>). in and out may be the same slice.
func applySigmoidInt16(in, out []int16) {
	out = out[:len(in)]
	tbl := sigmoidQ3Table()
	for i, v := range in {
		out[i] = tbl[uint16(v)]
	}
}

// applyTanhInt16 applies tanh to inputs with intBits integer bits
// (Q intBits.(15-intBits)) giving Q0.15 outputs (TFLite's ApplyTanh, which
// supports intBits 0..6; the caller checks the range). in and out may be
// the same slice.
func applyTanhInt16(intBits int, in, out []int16) {
	out = out[:len(in)]
	tbl := tanhTables[intBits]()
	for i, v := range in {
		out[i] = tbl[uint16(v)]
	}
}

// The fixed-point activations are pure functions of an int16, so they are
// tabulated once (128 KiB per table, built on first use in about a
// millisecond) and looked up: the same bits as gemmlowp, several times
// faster than evaluating the polynomial and Newton steps per element.
type int16Table = [1 << 16]int16

func tabulate(f func(int16) int16) *int16Table {
	var t int16Table
	for i := range t {
		t[i] = f(int16(uint16(i)))
	}
	return &t
}

var (
	sigmoidQ3Table = sync.OnceValue(func() *int16Table {
		return tabulate(func(v int16) int16 { return logistic16(v, 3) })
	})
	// tanhTables[n] maps Qn.(15-n) inputs, n = 0..6.
	tanhTables [7]func() *int16Table
)

func init() {
	for n := range tanhTables {
		tanhTables[n] = sync.OnceValue(func() *int16Table {
			return tabulate(func(v int16) int16 { return tanh16(v, n) })
		})
	}
}
