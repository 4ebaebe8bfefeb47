package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of REVERSE_SEQUENCE: every type, the batch before and after
// the sequence dimension, random lengths from 0 to the whole sequence
// (int32 and int64).

func reverseSequenceModel(typ, lenType schema.TensorType, seqDim, batchDim int32, shape ...int32) []byte {
	return opModel(schema.BuiltinOperatorREVERSE_SEQUENCE, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReverseSequenceOptions, Value: &schema.ReverseSequenceOptionsT{SeqDim: seqDim, BatchDim: batchDim}},
		[]gIn{act(typ, shape...), act(lenType, shape[batchDim])}, []gOut{res(typ, shape...)})
}

func TestRecordReverseSequence(t *testing.T) {
	i32 := schema.TensorTypeINT32
	lens := func(max int) map[int][2]int { return map[int][2]int{1: {0, max}} }
	recordGolden(t, "reverse_sequence", []goldenModel{
		{variant: "f32_seq1_batch0", gen: genInputs(lens(5)), model: reverseSequenceModel(schema.TensorTypeFLOAT32, i32, 1, 0, 4, 5, 3)},
		{variant: "f32_seq0_batch2", gen: genInputs(lens(6)), model: reverseSequenceModel(schema.TensorTypeFLOAT32, i32, 0, 2, 6, 2, 3, 2)},
		{variant: "uint8_int64_lengths", gen: genInputs(lens(4)), model: reverseSequenceModel(schema.TensorTypeUINT8, schema.TensorTypeINT64, 2, 1, 2, 3, 4)},
		{variant: "int16", gen: genInputs(lens(3)), model: reverseSequenceModel(schema.TensorTypeINT16, i32, 1, 0, 5, 3)},
		{variant: "int32", gen: genInputs(lens(7)), model: reverseSequenceModel(i32, i32, 0, 1, 7, 3)},
		{variant: "int64", gen: genInputs(lens(4)), model: reverseSequenceModel(schema.TensorTypeINT64, i32, 1, 2, 2, 4, 3, 2)},
	})
}

func TestGoldenReverseSequence(t *testing.T) { checkGolden(t, "reverse_sequence") }
