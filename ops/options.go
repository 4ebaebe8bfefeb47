package ops

import "strconv"

// This file declares how kernels receive their builtin options, and the
// option types several kernel families share. Each operator's options
// struct lives beside its kernel (builtin.AddOptions, fused.LSTMOptions,
// …), with the function that decodes it from the model: field meanings and
// defaults are those of the matching tables in TFLite's schema.fbs (a
// missing field takes the schema default).

// OptionsTable is an operator's builtin options table as the model holds
// it: Type is the table's tag in TFLite's BuiltinOptions union
// (schema.BuiltinOptions), Bytes and Pos the flatbuffer and the table's
// position in it. The interpreter has verified the whole flatbuffer before
// it hands a table to a decoder, so a decoder may read the table with the
// generated schema accessors (schema.XOptions.Init(Bytes, Pos)) without
// further bounds checks; it must not keep Bytes beyond the Model's life.
type OptionsTable struct {
	Type  uint8
	Bytes []byte
	Pos   uint32
	// Union2 says Type is a tag of TFLite's second options union
	// (schema.BuiltinOptions2, the operator's builtin_options_2 field,
	// which the StableHLO operators use) rather than of BuiltinOptions.
	Union2 bool
}

// OptionsDecoder turns one kind of builtin options table into the value
// its kernels read from Node.Options (a pointer to the operator's options
// struct). It returns an error for values TFLite's own parser rejects (a
// new_shape of more than 8 dimensions, say), naming the field.
type OptionsDecoder func(OptionsTable) (any, error)

// Activation is a fused activation function, numbered as TFLite's
// ActivationFunctionType.
type Activation int8

// Fused activations (TFLite ActivationFunctionType numbering).
const (
	ActNone      Activation = 0
	ActRelu      Activation = 1
	ActReluN1To1 Activation = 2
	ActRelu6     Activation = 3
	ActTanh      Activation = 4
	ActSignBit   Activation = 5
)

// String returns the schema name of the activation ("RELU6").
func (a Activation) String() string {
	switch a {
	case ActNone:
		return "NONE"
	case ActRelu:
		return "RELU"
	case ActReluN1To1:
		return "RELU_N1_TO_1"
	case ActRelu6:
		return "RELU6"
	case ActTanh:
		return "TANH"
	case ActSignBit:
		return "SIGN_BIT"
	}
	return "ACTIVATION(" + strconv.Itoa(int(a)) + ")"
}

// Padding is a convolution or pooling padding scheme, numbered as TFLite's
// schema Padding enum.
type Padding int8

// Padding schemes (TFLite schema numbering).
const (
	// PaddingSame pads so that the output has ceil(input/stride) positions.
	PaddingSame Padding = 0
	// PaddingValid uses only windows that lie fully inside the input.
	PaddingValid Padding = 1
)

// String returns the schema name of the padding ("SAME").
func (p Padding) String() string {
	switch p {
	case PaddingSame:
		return "SAME"
	case PaddingValid:
		return "VALID"
	}
	return "PADDING(" + strconv.Itoa(int(p)) + ")"
}
