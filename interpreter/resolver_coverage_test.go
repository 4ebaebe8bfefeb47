package interpreter

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// tfliteBuiltins is what TensorFlow Lite's BuiltinOpResolver registers
// (tflite/core/kernels/register.cc, LiteRT f67457790c9c, the commit the
// recorded cases come from): every builtin operator by its schema name and
// the inclusive range of versions it accepts (AddBuiltin's default is
// 1..1). Its custom operators are in tfliteCustoms.
var tfliteBuiltins = []struct {
	name     string
	min, max int
}{
	{"ABS", 1, 5},
	{"HARD_SWISH", 1, 1},
	{"RELU", 1, 3},
	{"RELU_N1_TO_1", 1, 1},
	{"RELU_0_TO_1", 1, 1},
	{"RELU6", 1, 3},
	{"TANH", 1, 3},
	{"LOGISTIC", 1, 3},
	{"AVERAGE_POOL_2D", 1, 3},
	{"MAX_POOL_2D", 1, 3},
	{"L2_POOL_2D", 1, 1},
	{"CONV_2D", 1, 8},
	{"DEPTHWISE_CONV_2D", 1, 7},
	{"SVDF", 1, 4},
	{"RNN", 1, 3},
	{"BIDIRECTIONAL_SEQUENCE_RNN", 1, 3},
	{"UNIDIRECTIONAL_SEQUENCE_RNN", 1, 3},
	{"EMBEDDING_LOOKUP", 1, 5},
	{"EMBEDDING_LOOKUP_SPARSE", 1, 1},
	{"FULLY_CONNECTED", 1, 14},
	{"LSH_PROJECTION", 1, 1},
	{"HASHTABLE_LOOKUP", 1, 1},
	{"SOFTMAX", 1, 4},
	{"CONCATENATION", 1, 7},
	{"ADD", 1, 6},
	{"SPACE_TO_BATCH_ND", 1, 4},
	{"BATCH_TO_SPACE_ND", 1, 4},
	{"MUL", 1, 8},
	{"L2_NORMALIZATION", 1, 2},
	{"LOCAL_RESPONSE_NORMALIZATION", 1, 1},
	{"LSTM", 1, 4},
	{"BIDIRECTIONAL_SEQUENCE_LSTM", 1, 3},
	{"UNIDIRECTIONAL_SEQUENCE_LSTM", 1, 4},
	{"PAD", 1, 6},
	{"PADV2", 1, 6},
	{"RESHAPE", 1, 1},
	{"RESIZE_BILINEAR", 1, 4},
	{"RESIZE_NEAREST_NEIGHBOR", 1, 4},
	{"SKIP_GRAM", 1, 1},
	{"SPACE_TO_DEPTH", 1, 2},
	{"DEPTH_TO_SPACE", 1, 2},
	{"GATHER", 1, 8},
	{"TRANSPOSE", 1, 9},
	{"MEAN", 1, 3},
	{"DIV", 1, 2},
	{"SUB", 1, 5},
	{"SPLIT", 1, 5},
	{"SPLIT_V", 1, 3},
	{"SQUEEZE", 1, 2},
	{"STRIDED_SLICE", 1, 8},
	{"EXP", 1, 2},
	{"TOPK_V2", 1, 3},
	{"LOG", 1, 2},
	{"LOG_SOFTMAX", 1, 2},
	{"CAST", 1, 9},
	{"DEQUANTIZE", 1, 9},
	{"PRELU", 1, 1},
	{"MAXIMUM", 1, 4},
	{"MINIMUM", 1, 4},
	{"ARG_MAX", 1, 3},
	{"ARG_MIN", 1, 3},
	{"GREATER", 1, 2},
	{"GREATER_EQUAL", 1, 3},
	{"LESS", 1, 3},
	{"LESS_EQUAL", 1, 2},
	{"FLOOR", 1, 1},
	{"CEIL", 1, 1},
	{"ROUND", 1, 1},
	{"NEG", 1, 1},
	{"SELECT", 1, 4},
	{"SELECT_V2", 1, 2},
	{"SLICE", 1, 8},
	{"SIN", 1, 2},
	{"COS", 1, 2},
	{"TRANSPOSE_CONV", 1, 5},
	{"TILE", 1, 3},
	{"SUM", 1, 2},
	{"REDUCE_PROD", 1, 2},
	{"REDUCE_MAX", 1, 3},
	{"REDUCE_MIN", 1, 3},
	{"REDUCE_ANY", 1, 1},
	{"REDUCE_ALL", 1, 1},
	{"EXPAND_DIMS", 1, 1},
	{"SPARSE_TO_DENSE", 1, 3},
	{"EQUAL", 1, 5},
	{"NOT_EQUAL", 1, 4},
	{"SQRT", 1, 2},
	{"RSQRT", 1, 3},
	{"SHAPE", 1, 1},
	{"RANK", 1, 1},
	{"POW", 1, 1},
	{"FAKE_QUANT", 1, 2},
	{"PACK", 1, 5},
	{"ONE_HOT", 1, 1},
	{"LOGICAL_OR", 1, 1},
	{"LOGICAL_AND", 1, 1},
	{"LOGICAL_NOT", 1, 1},
	{"UNPACK", 1, 6},
	{"FLOOR_DIV", 1, 3},
	{"SQUARE", 1, 1},
	{"ZEROS_LIKE", 1, 1},
	{"FLOOR_MOD", 1, 2},
	{"RANGE", 1, 2},
	{"LEAKY_RELU", 1, 2},
	{"SQUARED_DIFFERENCE", 1, 2},
	{"FILL", 1, 5},
	{"MIRROR_PAD", 1, 3},
	{"UNIQUE", 1, 1},
	{"REVERSE_V2", 1, 4},
	{"ADD_N", 1, 1},
	{"GATHER_ND", 1, 6},
	{"WHERE", 1, 2},
	{"ELU", 1, 1},
	{"REVERSE_SEQUENCE", 1, 1},
	{"MATRIX_DIAG", 1, 1},
	{"QUANTIZE", 1, 6},
	{"MATRIX_SET_DIAG", 1, 1},
	{"IF", 1, 1},
	{"WHILE", 1, 1},
	{"NON_MAX_SUPPRESSION_V4", 1, 1},
	{"NON_MAX_SUPPRESSION_V5", 1, 1},
	{"SCATTER_ND", 1, 1},
	{"DENSIFY", 1, 1},
	{"SEGMENT_SUM", 1, 1},
	{"BATCH_MATMUL", 1, 4},
	{"CUMSUM", 1, 1},
	{"BROADCAST_TO", 2, 4},
	{"CALL_ONCE", 1, 1},
	{"RFFT2D", 1, 1},
	{"CONV_3D", 1, 1},
	{"IMAG", 1, 1},
	{"REAL", 1, 1},
	{"COMPLEX_ABS", 1, 1},
	{"BROADCAST_ARGS", 1, 1},
	{"HASHTABLE", 1, 1},
	{"HASHTABLE_FIND", 1, 1},
	{"HASHTABLE_IMPORT", 1, 1},
	{"HASHTABLE_SIZE", 1, 1},
	{"CONV_3D_TRANSPOSE", 1, 1},
	{"VAR_HANDLE", 1, 1},
	{"READ_VARIABLE", 1, 1},
	{"ASSIGN_VARIABLE", 1, 1},
	{"MULTINOMIAL", 1, 1},
	{"RANDOM_STANDARD_NORMAL", 1, 1},
	{"BUCKETIZE", 1, 1},
	{"RANDOM_UNIFORM", 1, 1},
	{"GELU", 1, 3},
	{"DYNAMIC_UPDATE_SLICE", 1, 6},
	{"UNSORTED_SEGMENT_PROD", 1, 1},
	{"UNSORTED_SEGMENT_MAX", 1, 1},
	{"UNSORTED_SEGMENT_MIN", 1, 1},
	{"UNSORTED_SEGMENT_SUM", 1, 1},
	{"ATAN2", 1, 1},
	{"SIGN", 1, 2},
	{"BITCAST", 1, 1},
	{"BITWISE_XOR", 1, 1},
	{"RIGHT_SHIFT", 1, 1},
	{"STABLEHLO_SCATTER", 1, 1},
	{"DILATE", 1, 1},
	{"STABLEHLO_RNG_BIT_GENERATOR", 1, 1},
	{"REDUCE_WINDOW", 1, 1},
	{"STABLEHLO_REDUCE_WINDOW", 1, 1},
	{"STABLEHLO_GATHER", 1, 1},
	{"STABLEHLO_ADD", 1, 1},
	{"STABLEHLO_AND", 1, 1},
	{"STABLEHLO_MULTIPLY", 1, 1},
	{"STABLEHLO_MAXIMUM", 1, 1},
	{"STABLEHLO_MINIMUM", 1, 1},
	{"STABLEHLO_SHIFT_LEFT", 1, 1},
	{"STABLEHLO_PAD", 1, 1},
	{"STABLEHLO_COMPOSITE", 1, 1},
	{"STABLEHLO_CASE", 1, 1},
}

// tfliteCustoms are the custom operators BuiltinOpResolver registers by name.
var tfliteCustoms = []string{"NumericVerify", "Mfcc", "AudioSpectrogram", "TFLite_Detection_PostProcess", "aeq.hadamard_rotation"}

// notRun is every (operator, version) of tfliteBuiltins and every custom
// operator that DefaultResolver does not run, each with the reason. The
// test fails when the resolver's coverage moves either way, so a kernel
// added or dropped updates this list (and the README's operator list).
var notRun = map[string]string{
	"LSH_PROJECTION v1":              "needs FarmHash Fingerprint64 (and string inputs)",
	"HASHTABLE_LOOKUP v1":            "string values: tflrun has no string tensors",
	"SKIP_GRAM v1":                   "string tensors",
	"GATHER_ND v2":                   "string params: tflrun has no string tensors",
	"HASHTABLE v1":                   "hash-table resources with string keys or values: no string tensors",
	"HASHTABLE_FIND v1":              "hash-table resources with string keys or values: no string tensors",
	"HASHTABLE_IMPORT v1":            "hash-table resources with string keys or values: no string tensors",
	"HASHTABLE_SIZE v1":              "hash-table resources with string keys or values: no string tensors",
	"STABLEHLO_SCATTER v1":           "not implemented yet (computation subgraph per update)",
	"STABLEHLO_RNG_BIT_GENERATOR v1": "random bits (Philox, ThreeFry) not implemented yet",
	"STABLEHLO_REDUCE_WINDOW v1":     "not implemented yet (computation subgraph)",
	"STABLEHLO_GATHER v1":            "not implemented yet",
}

// resolverGaps lists what DefaultResolver lacks of tfliteBuiltins, as
// "NAME vN" and custom names, and the number of register.cc's (operator,
// version) pairs it runs, out of how many.
func resolverGaps(t *testing.T) (gaps []string, ran, total int) {
	r := DefaultResolver()
	for _, b := range tfliteBuiltins {
		code, ok := schema.EnumValuesBuiltinOperator[b.name]
		if !ok {
			t.Fatalf("register.cc's %s is not in the schema", b.name)
		}
		for v := b.min; v <= b.max; v++ {
			total++
			if _, err := r.FindBuiltin(ops.BuiltinOperator(code), v); err != nil {
				gaps = append(gaps, fmt.Sprintf("%s v%d", b.name, v))
				continue
			}
			ran++
		}
	}
	for _, c := range tfliteCustoms {
		if _, err := r.FindCustom(c); err != nil {
			gaps = append(gaps, c)
		}
	}
	return gaps, ran, total
}

// minCoveredPairs is how many of register.cc's (operator, version) pairs
// DefaultResolver ran when this was last updated. Raise it when kernels
// are added; the test fails when coverage falls below it.
const minCoveredPairs = 428

// TestResolverCoverage compares DefaultResolver with TensorFlow Lite's
// BuiltinOpResolver, version by version; -v prints the gaps.
func TestResolverCoverage(t *testing.T) {
	gaps, ran, total := resolverGaps(t)
	t.Logf("register.cc (operator, version) pairs tflrun runs: %d of %d", ran, total)
	if ran < minCoveredPairs {
		t.Errorf("tflrun runs %d of register.cc's (operator, version) pairs, fewer than the %d it ran before: coverage regressed", ran, minCoveredPairs)
	}
	for _, g := range gaps {
		t.Logf("not run: %-36s %s", g, notRun[g])
	}
	for _, g := range gaps {
		if _, ok := notRun[g]; !ok {
			t.Errorf("%s: TensorFlow Lite registers it, tflrun does not, and notRun does not say why", g)
		}
	}
	for g := range notRun {
		if !slices.Contains(gaps, g) {
			t.Errorf("%s: listed in notRun, but DefaultResolver runs it (or register.cc does not have it): drop the entry", g)
		}
	}
}
