package builtin

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tflrun/tflrun/ops"
)

// This file holds int8 LOG_SOFTMAX (op version 2): TFLite's builtin
// kernel calls reference_integer_ops::LogSoftmax, a gemmlowp fixed-point
// computation, for every int8 input (unlike uint8, which takes the float
// table of optimized_ops). x − max is rescaled to Q5.26, exponentiated
// (exp_on_negative_values), summed in Q12.19, its log taken in Q5.26
// (log_x_for_x_greater_than_or_equal_to_1), and the difference shifted to
// the output's 1/16 steps with zero point 127. The helpers below work on
// raw int32 values; each comment names the integer bits of its operands.

// logSoftmaxInt8Params are the values TFLite's LogSoftmaxPrepare derives
// from the input scale (PreprocessLogSoftmaxScalingExp, β = 1, 5 integer
// bits, and CalculateInputRadius).
type logSoftmaxInt8Params struct {
	inMult   int32
	inShift  int // left shift, ≥ 0
	revMult  int32
	revShift int // as passed to MultiplyByQuantizedMultiplier, ≤ 0
	diffMin  int32
}

// prepareInt8 checks the quantisation TFLite requires (output scale
// exactly 16/256, zero point 127) and derives the multipliers.
func (k *LogSoftmax) prepareInt8(in, out *ops.Tensor) error {
	inScale, _, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if outScale != 16.0/256 {
		return fmt.Errorf("output 0: scale %g, int8 LOG_SOFTMAX needs 16/256", outScale)
	}
	if outZP != 127 {
		return fmt.Errorf("output 0: zero point %d, int8 LOG_SOFTMAX needs 127", outZP)
	}
	const intBits = 5
	// PreprocessSoftmaxScaling: β·scale·2^(31−5), capped below 2^31, as a
	// multiplier greater than one.
	real := math.Min(float64(inScale)*float64(int64(1)<<(31-intBits)), float64(int64(1)<<31)-1)
	p := &k.i8
	p.inMult, p.inShift = ops.QuantizeMultiplier(real)
	if p.inMult == 0 || p.inShift < 0 {
		return fmt.Errorf("input 0: scale %g too small for int8 LOG_SOFTMAX", inScale)
	}
	rev := float64(int64(1)<<(31-p.inShift)) / float64(p.inMult)
	p.revMult, p.revShift = ops.QuantizeMultiplier(rev)
	if p.revShift > 0 {
		return fmt.Errorf("input 0: scale %g gives a reverse scaling above one", inScale)
	}
	// CalculateInputRadius(5, left shift), in double, floored.
	radius := math.Floor(float64((1<<intBits)-1) * float64(int64(1)<<(31-intBits)) / float64(int64(1)<<p.inShift))
	p.diffMin = -int32(radius)
	return nil
}

// fpSatAdd and fpSatSub are int32 additions saturating to the int32 range.
func fpSatAdd(a, b int32) int32 {
	return int32(max(min(int64(a)+int64(b), math.MaxInt32), math.MinInt32))
}
func fpSatSub(a, b int32) int32 {
	return int32(max(min(int64(a)-int64(b), math.MaxInt32), math.MinInt32))
}

// fpMul is gemmlowp's FixedPoint product: a·b with the integer bits added.
func fpMul(a, b int32) int32 { return ops.SaturatingRoundingDoublingHighMul(a, b) }

// fpHalfSum is gemmlowp's RoundingHalfSum for int32.
func fpHalfSum(a, b int32) int32 {
	s := int64(a) + int64(b)
	sign := int64(1)
	if s < 0 {
		sign = -1
	}
	return int32((s + sign) / 2)
}

// fpExpNegQuarter is exp(a) for Q0.31 a in [−1/4, 0), gemmlowp's Taylor
// expansion around −1/8.
func fpExpNegQuarter(a int32) int32 {
	const expMinusEighth, oneThird = 1895147668, 715827883
	x := a + 1<<28
	x2 := fpMul(x, x)
	x3 := fpMul(x2, x)
	x4 := fpMul(x2, x2)
	x4q := ops.SaturatingRoundingMultiplyByPOT(x4, -2)
	poly := ops.SaturatingRoundingMultiplyByPOT(fpMul(x4q+x3, oneThird)+x2, -1)
	return expMinusEighth + fpMul(expMinusEighth, x+poly)
}

// fpExpBarrel32 are exp(−2^k) for k = −2..4 in Q0.31.
var fpExpBarrel32 = [7]int32{1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242}

// fpExpNeg5 is exp_on_negative_values for a Q5.26 a ≤ 0, result Q0.31.
func fpExpNeg5(a int32) int32 {
	const intBits, fracBits = 5, 26
	const quarter = int32(1) << (fracBits - 2)
	aq := (a & (quarter - 1)) - quarter
	res := fpExpNegQuarter(ops.SaturatingRoundingMultiplyByPOT(aq, intBits))
	rem := aq - a
	for e := -2; e <= 4; e++ {
		if rem&(int32(1)<<(fracBits+e)) != 0 {
			res = fpMul(res, fpExpBarrel32[e+2])
		}
	}
	if a == 0 {
		res = math.MaxInt32
	}
	return res
}

// fpOneOverOnePlusX is 1/(1+a) for Q0.31 a in [0, 1), result Q0.31, by
// three Newton–Raphson steps in Q2.29.
func fpOneOverOnePlusX(a int32) int32 {
	half := fpHalfSum(a, math.MaxInt32)
	x := 1515870810 + fpMul(half, -1010580540)
	for i := 0; i < 3; i++ {
		hx := fpMul(half, x)
		x = x + ops.SaturatingRoundingMultiplyByPOT(fpMul(x, 1<<29-hx), 2)
	}
	return ops.SaturatingRoundingMultiplyByPOT(x, 1)
}

// fpLogQ12ToQ5 is log_x_for_x_greater_than_or_equal_to_1<5> of a Q12.19
// value, result Q5.26 (accumulated in Q6.25).
func fpLogQ12ToQ5(in int32) int32 {
	const inBits, accBits = 12, 6
	const log2, sqrtSqrtHalf, sqrtHalf, quarter = 1488522236, 1805811301, 1518500250, 536870912
	const alphaN, alphaD, alphaI, alphaF = 117049297, 127690142, 1057819769, 638450708
	shiftedQuarter := ops.SaturatingRoundingMultiplyByPOT(quarter, -accBits)
	za := in
	hp1 := bits.LeadingZeros32(uint32(za))
	raTmp := ops.SaturatingRoundingMultiplyByPOT(za, hp1-1)
	ra := ops.SaturatingRoundingMultiplyByPOT(fpMul(raTmp, sqrtHalf), 1)
	zaAdj := fpSatAdd(ops.SaturatingRoundingMultiplyByPOT(int32(inBits-hp1), 31-accBits), shiftedQuarter)
	zb := fpMul(za, sqrtHalf)
	zbHead := bits.LeadingZeros32(uint32(zb)) - 1
	rb := ops.SaturatingRoundingMultiplyByPOT(za, zbHead)
	zbAdj := fpSatSub(ops.SaturatingRoundingMultiplyByPOT(int32(inBits-zbHead), 31-accBits), shiftedQuarter)
	r := min(ra, rb)
	adj := max(zaAdj, zbAdj)
	p := fpHalfSum(r, sqrtSqrtHalf)
	q := r - sqrtSqrtHalf
	q = q + q
	sq := fpMul(q, q)
	num := fpMul(q, r) + fpMul(fpMul(q, sq), alphaN)
	den := fpMul(p, alphaI+q+fpMul(alphaD, sq)) + fpMul(alphaF, q)
	recip := fpOneOverOnePlusX(den)
	numScaled := ops.SaturatingRoundingMultiplyByPOT(num, -accBits)
	return ops.SaturatingRoundingMultiplyByPOT(fpMul(adj, log2)+fpMul(numScaled, recip), accBits-5)
}

// logSoftmaxInt8 is reference_integer_ops::LogSoftmax's row loop.
func (k *LogSoftmax) logSoftmaxInt8(x, y []int8) {
	p := &k.i8
	d := k.depth
	for r := 0; r < k.rows; r++ {
		row, orow := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
		maxVal := int32(math.MinInt8)
		for _, v := range row {
			maxVal = max(maxVal, int32(v))
		}
		var sum int32 // Q12.19
		for _, v := range row {
			diff := int32(v) - maxVal
			if diff >= p.diffMin {
				q5 := ops.MultiplyByQuantizedMultiplier(diff, p.inMult, p.inShift)
				sum += ops.SaturatingRoundingMultiplyByPOT(fpExpNeg5(q5), -12)
			}
		}
		logSum := fpLogQ12ToQ5(sum)
		adjMin := max(p.diffMin-1, ops.MultiplyByQuantizedMultiplier(logSum+math.MinInt32, p.revMult, p.revShift))
		for i, v := range row {
			diff := int32(v) - maxVal
			if diff > adjMin {
				q5 := ops.MultiplyByQuantizedMultiplier(diff, p.inMult, p.inShift)
				o := ops.RoundingDivideByPOT(q5-logSum, 31-5-4) + 127
				orow[i] = int8(ops.ClampInt32(o, math.MinInt8, math.MaxInt8))
			} else {
				orow[i] = math.MinInt8
			}
		}
	}
}
