package schema

import (
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// Numbers below are TFLite's published values (schema.fbs and the C++
// header generated from it); a mismatch means models would be misread.

func TestBuiltinOperatorNumbering(t *testing.T) {
	cases := []struct {
		op   BuiltinOperator
		code int32
		name string
	}{
		{BuiltinOperatorADD, 0, "ADD"},
		{BuiltinOperatorFULLY_CONNECTED, 9, "FULLY_CONNECTED"},
		{BuiltinOperatorLOGISTIC, 14, "LOGISTIC"},
		{BuiltinOperatorLSTM, 16, "LSTM"},
		{BuiltinOperatorRNN, 24, "RNN"},
		{BuiltinOperatorSVDF, 27, "SVDF"},
		{BuiltinOperatorCUSTOM, 32, "CUSTOM"},
		{BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN, 35, "UNIDIRECTIONAL_SEQUENCE_RNN"},
		{BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, 44, "UNIDIRECTIONAL_SEQUENCE_LSTM"},
		{BuiltinOperatorBIDIRECTIONAL_SEQUENCE_RNN, 46, "BIDIRECTIONAL_SEQUENCE_RNN"},
		{BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM, 52, "BIDIRECTIONAL_SEQUENCE_LSTM"},
		{BuiltinOperatorQUANTIZE, 114, "QUANTIZE"},
		{BuiltinOperatorBATCH_MATMUL, 126, "BATCH_MATMUL"},
		{BuiltinOperatorPLACEHOLDER_FOR_GREATER_OP_CODES, 127, "PLACEHOLDER_FOR_GREATER_OP_CODES"},
		{BuiltinOperatorCUMSUM, 128, "CUMSUM"},
		{BuiltinOperatorGELU, 150, "GELU"},
		{BuiltinOperatorRIGHT_SHIFT, 161, "RIGHT_SHIFT"},
		{BuiltinOperatorSTABLEHLO_LOGISTIC, 162, "STABLEHLO_LOGISTIC"},
		{BuiltinOperatorSTABLEHLO_TRANSPOSE, 202, "STABLEHLO_TRANSPOSE"},
		{BuiltinOperatorDILATE, 203, "DILATE"},
		{BuiltinOperatorSTABLEHLO_RNG_BIT_GENERATOR, 204, "STABLEHLO_RNG_BIT_GENERATOR"},
		{BuiltinOperatorREDUCE_WINDOW, 205, "REDUCE_WINDOW"},
		{BuiltinOperatorSTABLEHLO_COMPOSITE, 206, "STABLEHLO_COMPOSITE"},
		{BuiltinOperatorSTABLEHLO_SHIFT_LEFT, 207, "STABLEHLO_SHIFT_LEFT"},
		{BuiltinOperatorSTABLEHLO_CBRT, 208, "STABLEHLO_CBRT"},
		{BuiltinOperatorSTABLEHLO_CASE, 209, "STABLEHLO_CASE"},
	}
	for _, c := range cases {
		if int32(c.op) != c.code {
			t.Errorf("%s = %d, want %d", c.name, c.op, c.code)
		}
		if got := BuiltinOperatorName(c.code); got != c.name {
			t.Errorf("BuiltinOperatorName(%d) = %q, want %q", c.code, got, c.name)
		}
	}
	// The enum is dense from 0 to the newest value, 209.
	for code := int32(0); code <= 209; code++ {
		if _, ok := EnumNamesBuiltinOperator[BuiltinOperator(code)]; !ok {
			t.Errorf("no operator with code %d", code)
		}
	}
	if n := len(EnumNamesBuiltinOperator); n != 210 {
		t.Errorf("%d operators, want 210", n)
	}
	for _, code := range []int32{210, 1000, -1} {
		want := "BUILTIN_OPERATOR(" + itoa(int64(code)) + ")"
		if got := BuiltinOperatorName(code); got != want {
			t.Errorf("BuiltinOperatorName(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestBuiltinOptionsNumbering(t *testing.T) {
	cases := []struct {
		got, want int
		name      string
	}{
		{int(BuiltinOptionsConv2DOptions), 1, "Conv2DOptions"},
		{int(BuiltinOptionsSVDFOptions), 6, "SVDFOptions"},
		{int(BuiltinOptionsRNNOptions), 7, "RNNOptions"},
		{int(BuiltinOptionsFullyConnectedOptions), 8, "FullyConnectedOptions"},
		{int(BuiltinOptionsSoftmaxOptions), 9, "SoftmaxOptions"},
		{int(BuiltinOptionsLSTMOptions), 14, "LSTMOptions"},
		{int(BuiltinOptionsReshapeOptions), 17, "ReshapeOptions"},
		{int(BuiltinOptionsSequenceRNNOptions), 31, "SequenceRNNOptions"},
		{int(BuiltinOptionsFillOptions), 68, "FillOptions"},
		{int(BuiltinOptionsBidirectionalSequenceLSTMOptions), 69, "BidirectionalSequenceLSTMOptions"},
		{int(BuiltinOptionsBidirectionalSequenceRNNOptions), 70, "BidirectionalSequenceRNNOptions"},
		{int(BuiltinOptionsUnidirectionalSequenceLSTMOptions), 71, "UnidirectionalSequenceLSTMOptions"},
		{int(BuiltinOptionsQuantizeOptions), 89, "QuantizeOptions"},
		{int(BuiltinOptionsBatchMatMulOptions), 101, "BatchMatMulOptions"},
		{int(BuiltinOptionsRightShiftOptions), 126, "RightShiftOptions"},
		{int(BuiltinOptions2StablehloConcatenateOptions), 1, "StablehloConcatenateOptions"},
		{int(BuiltinOptions2ReduceWindowOptions), 20, "ReduceWindowOptions"},
		{int(BuiltinOptions2StableHLOCompositeOptions), 21, "StableHLOCompositeOptions"},
		{int(BuiltinOptions2StablehloCaseOptions), 23, "StablehloCaseOptions"},
		{int(QuantizationDetailsCustomQuantization), 1, "CustomQuantization"},
		{int(QuantizationDetailsMultiAxisQuantization), 3, "MultiAxisQuantization"},
		{int(SparseIndexVectorUint8Vector), 3, "Uint8Vector"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	// The first union is closed at 126 members, the second at 23.
	if n := len(EnumNamesBuiltinOptions); n != 127 {
		t.Errorf("BuiltinOptions has %d values, want 127 (NONE + 126)", n)
	}
	if n := len(EnumNamesBuiltinOptions2); n != 24 {
		t.Errorf("BuiltinOptions2 has %d values, want 24 (NONE + 23)", n)
	}
}

func TestTensorTypeNumbering(t *testing.T) {
	cases := []struct {
		got  TensorType
		want int8
	}{
		{TensorTypeFLOAT32, 0}, {TensorTypeINT32, 2}, {TensorTypeUINT8, 3}, {TensorTypeINT64, 4},
		{TensorTypeBOOL, 6}, {TensorTypeINT16, 7}, {TensorTypeINT8, 9}, {TensorTypeRESOURCE, 13},
		{TensorTypeVARIANT, 14}, {TensorTypeINT4, 17}, {TensorTypeBFLOAT16, 18},
		{TensorTypeFLOAT8_E5M2, 22},
	}
	for _, c := range cases {
		if int8(c.got) != c.want {
			t.Errorf("%v = %d, want %d", c.got, c.got, c.want)
		}
	}
}

// TestEffectiveBuiltinCode covers old files (code only in the byte field),
// new files (placeholder 127 in the byte, real code in builtin_code) and
// files that set both.
func TestEffectiveBuiltinCode(t *testing.T) {
	cases := []struct {
		deprecated int8
		extended   BuiltinOperator
		want       BuiltinOperator
	}{
		{9, 0, BuiltinOperatorFULLY_CONNECTED},
		{0, 0, BuiltinOperatorADD},
		{44, 44, BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM},
		{127, 150, BuiltinOperatorGELU},
		{127, 209, BuiltinOperatorSTABLEHLO_CASE},
	}
	for _, c := range cases {
		b := flatbuffers.NewBuilder(0)
		OperatorCodeStart(b)
		OperatorCodeAddDeprecatedBuiltinCode(b, c.deprecated)
		OperatorCodeAddBuiltinCode(b, c.extended)
		b.Finish(OperatorCodeEnd(b))
		oc := GetRootAsOperatorCode(b.FinishedBytes(), 0)
		if got := EffectiveBuiltinCode(oc); got != c.want {
			t.Errorf("deprecated %d, builtin %d: got %v, want %v", c.deprecated, c.extended, got, c.want)
		}
		if got := EffectiveBuiltinCodeT(oc.UnPack()); got != c.want {
			t.Errorf("T: deprecated %d, builtin %d: got %v, want %v", c.deprecated, c.extended, got, c.want)
		}
	}
}
