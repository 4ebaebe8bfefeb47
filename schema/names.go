package schema

import "strconv"

// BuiltinOperatorName returns the schema name of a builtin operator code
// ("FULLY_CONNECTED" for 9, "UNIDIRECTIONAL_SEQUENCE_LSTM" for 44), or
// "BUILTIN_OPERATOR(n)" for a code this schema does not define (a newer
// TFLite's operator, or garbage). Numbering is TFLite's BuiltinOperator.
func BuiltinOperatorName(code int32) string {
	if name, ok := EnumNamesBuiltinOperator[BuiltinOperator(code)]; ok {
		return name
	}
	return "BUILTIN_OPERATOR(" + strconv.FormatInt(int64(code), 10) + ")"
}

// EffectiveBuiltinCode returns the builtin operator an OperatorCode names,
// as TFLite's GetBuiltinCode computes it: the larger of the old one-byte
// deprecated_builtin_code and the 32-bit builtin_code. Old files (schema
// before 3a) only set the byte field, so builtin_code reads as its default
// 0 (ADD); newer writers store codes above 126 only in builtin_code and put
// PLACEHOLDER_FOR_GREATER_OP_CODES (127) in the byte. For a custom operator
// the result is CUSTOM (32) and the name is in custom_code.
func EffectiveBuiltinCode(oc *OperatorCode) BuiltinOperator {
	return maxBuiltin(BuiltinOperator(oc.DeprecatedBuiltinCode()), oc.BuiltinCode())
}

// EffectiveBuiltinCodeT is EffectiveBuiltinCode for the object API's
// OperatorCodeT.
func EffectiveBuiltinCodeT(oc *OperatorCodeT) BuiltinOperator {
	return maxBuiltin(BuiltinOperator(oc.DeprecatedBuiltinCode), oc.BuiltinCode)
}

func maxBuiltin(a, b BuiltinOperator) BuiltinOperator {
	if a > b {
		return a
	}
	return b
}
