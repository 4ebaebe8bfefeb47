package builtin_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of uint8 and int8 LOG_SOFTMAX: inputs across the whole range
// at several input scales and zero points, inner dimensions of 1, odd and
// large sizes.

// logSoftmaxI8 is an int8 LOG_SOFTMAX model (op version 2) with the output
// quantisation TFLite requires (16/256, zero point 127) unless outQ is given.
func logSoftmaxI8(inQ, outQ *optest.Quant, shape ...int32) []byte {
	i8 := schema.TensorTypeINT8
	if outQ == nil {
		outQ = optest.PerTensor(16.0/256, 127)
	}
	return opModel(schema.BuiltinOperatorLOG_SOFTMAX, 2, nil,
		[]gIn{actQ(i8, inQ, shape...)}, []gOut{resQ(i8, outQ, shape...)})
}

// logSoftmaxU8 is a uint8 LOG_SOFTMAX model with the output quantisation
// TFLite requires (16/256, zero point 255) unless outQ is given.
func logSoftmaxU8(inQ, outQ *optest.Quant, shape ...int32) []byte {
	u8 := schema.TensorTypeUINT8
	if outQ == nil {
		outQ = optest.PerTensor(16.0/256, 255)
	}
	return opModel(schema.BuiltinOperatorLOG_SOFTMAX, 1, nil,
		[]gIn{actQ(u8, inQ, shape...)}, []gOut{resQ(u8, outQ, shape...)})
}

func TestRecordLogSoftmax(t *testing.T) {
	q := optest.PerTensor
	recordGolden(t, "log_softmax", []goldenModel{
		{variant: "uint8_s0.1_4x10", model: logSoftmaxU8(q(0.1, 128), nil, 4, 10)},
		{variant: "uint8_s0.0039_inner1", model: logSoftmaxU8(q(1.0/256, 0), nil, 7, 1)},
		{variant: "uint8_s0.02_odd", model: logSoftmaxU8(q(0.02, 17), nil, 3, 5, 13)},
		{variant: "uint8_s0.5_large", model: logSoftmaxU8(q(0.5, 200), nil, 2, 1001)},
		{variant: "uint8_s0.0625_1d", model: logSoftmaxU8(q(0.0625, 255), nil, 37)},
		{variant: "uint8_s3.7_wide", model: logSoftmaxU8(q(3.7, 5), nil, 5, 64)},
		{variant: "int8_s0.1_4x10", model: logSoftmaxI8(q(0.1, 0), nil, 4, 10)},
		{variant: "int8_s0.0039_inner1", model: logSoftmaxI8(q(1.0/256, -128), nil, 7, 1)},
		{variant: "int8_s0.02_odd", model: logSoftmaxI8(q(0.02, 17), nil, 3, 5, 13)},
		{variant: "int8_s0.5_large", model: logSoftmaxI8(q(0.5, 100), nil, 2, 1001)},
		{variant: "int8_s0.0625_1d", model: logSoftmaxI8(q(0.0625, 127), nil, 37)},
		{variant: "int8_s3.7_wide", model: logSoftmaxI8(q(3.7, -5), nil, 5, 64)},
		{variant: "int8_s0.003_wide", model: logSoftmaxI8(q(0.003, 0), nil, 9, 300)},
	})
}

func TestGoldenLogSoftmax(t *testing.T) { checkGolden(t, "log_softmax") }

// TestLogSoftmaxBadOutputQuant: TFLite's LogSoftmaxPrepare refuses any
// output quantisation but 16/256 with zero point 255 (uint8) or 127
// (int8); so does tflrun, naming the field.
func TestLogSoftmaxBadOutputQuant(t *testing.T) {
	for _, c := range []struct {
		q    *optest.Quant
		want string
	}{
		{optest.PerTensor(1.0/256, 255), "scale"},
		{optest.PerTensor(16.0/256, 0), "zero point"},
	} {
		err := loadAndInvoke(logSoftmaxU8(optest.PerTensor(0.1, 128), c.q, 2, 8))
		if err == nil || !strings.Contains(err.Error(), "output 0: "+c.want) {
			t.Errorf("uint8 output quantisation %v/%v: error %v, want one naming output 0 %s", c.q.Scale, c.q.ZeroPoint, err, c.want)
		}
	}
	for _, c := range []struct {
		q    *optest.Quant
		want string
	}{
		{optest.PerTensor(1.0/256, 127), "scale"},
		{optest.PerTensor(16.0/256, -128), "zero point"},
	} {
		err := loadAndInvoke(logSoftmaxI8(optest.PerTensor(0.1, 0), c.q, 2, 8))
		if err == nil || !strings.Contains(err.Error(), "output 0: "+c.want) {
			t.Errorf("int8 output quantisation %v/%v: error %v, want one naming output 0 %s", c.q.Scale, c.q.ZeroPoint, err, c.want)
		}
	}
}
