package fused

import (
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// This file holds the float vector utilities of TFLite's float LSTM
// (tensor_utils). Products that are then added are converted to float32
// explicitly so that the Go compiler cannot fuse them into one FMA on
// architectures that have it: TFLite's x86 build does not fuse, and the
// float golden data comes from it.

// sigmoidFloat is 1/(1+exp(-x)) rounded once to float32. TFLite evaluates
// it with Eigen's vectorised logistic, which is accurate to a few ulp; this
// is the correctly rounded value.
func sigmoidFloat(x float32) float32 {
	return float32(1 / (1 + math.Exp(-float64(x))))
}

// applySigmoidFloat sets v[i] = sigmoid(v[i]) with arch's vector sigmoid
// (absolute error below 1e-7, as Eigen's logistic in TFLite is within a few
// ulp; the golden tolerance is 1e-5).
func applySigmoidFloat(v []float32) {
	arch.Sigmoid(v, v)
}

// applyActivationFloat applies a fused activation in place, as TFLite's
// ApplyActivationToVector does for RELU, RELU_N1_TO_1, RELU6, TANH and
// SIGN_BIT. ActNone is a no-op; the LSTM kernel refuses it in Prepare
// because TFLite then leaves the gate buffer unwritten.
func applyActivationFloat(v []float32, act ops.Activation) {
	switch act {
	case ops.ActRelu:
		for i, x := range v {
			v[i] = stdMax(0, x)
		}
	case ops.ActReluN1To1:
		for i, x := range v {
			v[i] = stdMax(-1, stdMin(x, 1))
		}
	case ops.ActRelu6:
		for i, x := range v {
			v[i] = stdMax(0, stdMin(x, 6))
		}
	case ops.ActTanh:
		arch.Tanh(v, v) // vector tanh, absolute error below 1e-7
	case ops.ActSignBit:
		for i, x := range v {
			if math.Signbit(float64(x)) {
				v[i] = 1
			} else {
				v[i] = 0
			}
		}
	}
}

// floatActivationSupported reports whether applyActivationFloat implements
// act for the LSTM's cell gate and output.
func floatActivationSupported(act ops.Activation) bool {
	switch act {
	case ops.ActRelu, ops.ActReluN1To1, ops.ActRelu6, ops.ActTanh, ops.ActSignBit:
		return true
	}
	return false
}

// meanStddevNormalization normalises each of the batch vectors of n values
// in place to zero mean and unit variance, with TFLite's epsilon 1e-8 and
// its summation order (MeanStddevNormalization).
func meanStddevNormalization(v []float32, n, batch int) {
	for b := 0; b < batch; b++ {
		x := v[b*n : b*n+n]
		var sum float32
		for _, e := range x {
			sum += e
		}
		mean := sum / float32(n)
		var sumDiffSq float32
		for _, e := range x {
			diff := e - mean
			sumDiffSq += float32(diff * diff)
		}
		variance := sumDiffSq / float32(n)
		stddevInv := 1 / float32(math.Sqrt(float64(variance+1e-8)))
		for i, e := range x {
			x[i] = (e - mean) * stddevInv
		}
	}
}

// stdMin and stdMax are C++'s std::min and std::max, whose treatment of
// NaN (the first argument wins unless the comparison holds) differs from
// Go's built-ins; the activations and clipping use them so that NaN inputs
// give TFLite's results too.
func stdMin(a, b float32) float32 {
	if b < a {
		return b
	}
	return a
}

func stdMax(a, b float32) float32 {
	if a < b {
		return b
	}
	return a
}

// cwiseClipFloat clamps v in place to [-clip, clip] as TFLite's
// CwiseClipping does (std::max(std::min(clip, x), -clip)).
func cwiseClipFloat(v []float32, clip float32) {
	for i, x := range v {
		v[i] = stdMax(stdMin(clip, x), -clip)
	}
}

// isZeroFloat reports whether every element of v is zero (TFLite's
// IsZeroVector; -0 counts as zero).
func isZeroFloat(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
