package convert

import (
	"github.com/tflrun/tflrun/convert/internal/quantize"
	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
)

// The converter's internals live under convert/internal; these names give
// a program everything Options and Result need with this one import (and
// convert/ir and convert/fusion for fusion rules of its own).

// QuantizeOptions configure post-training weight quantisation
// (Options.Quantize): the Mode, the smallest weight tensor quantised in
// dynamic mode, and the TF 2.2–2.4 per-tensor Legacy variant.
type QuantizeOptions = quantize.Options

// QuantizeMode selects the quantisation: QuantizeNone, QuantizeDynamic
// (int8 weights, float activations, TFLite's hybrid kernels) or
// QuantizeFloat16 (float16 weights dequantised once at load).
type QuantizeMode = quantize.Mode

// The quantisation modes.
const (
	QuantizeNone    = quantize.None
	QuantizeDynamic = quantize.Dynamic
	QuantizeFloat16 = quantize.Float16
)

// QuantizeSummary says which weights Options.Quantize quantised
// (Result.Quantization).
type QuantizeSummary = quantize.Summary

// ParseQuantizeMode reads a --quantize value: "" or "none", "dynamic" (or
// "dynamic_range"), "float16" (or "fp16"); "int8" is refused with an
// explanation (full-integer quantisation needs calibration data, which this
// converter does not do).
func ParseQuantizeMode(s string) (QuantizeMode, error) { return quantize.ParseMode(s) }

// ParseInputShapes parses the --input_shapes syntax of TensorFlow's
// converter for Options.InputShapes: shapes separated by ":", dimensions by
// "," ("1,49,10,1:1,5"; an empty shape is a scalar; -1 or ? is unknown).
func ParseInputShapes(s string) ([]ir.Shape, error) { return tfmodel.ParseInputShapes(s) }

// Signature names the entry point of a model WriteFunction writes: its key
// ("serving_default") and the names of the function's parameters and
// results, in order.
type Signature = tflite.Signature

// WriteFunction serialises a TFLite-level function (every node legalised
// to a TFLite operator, as Result.Entry.Func is) as a .tflite flatbuffer
// with one subgraph and the signature sig. Errors name the node that
// cannot be written.
func WriteFunction(f *ir.Function, sig Signature, description string) ([]byte, error) {
	return tflite.Write(f, sig, description)
}
