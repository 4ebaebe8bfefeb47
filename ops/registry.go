package ops

import (
	"fmt"
	"sort"
)

// BuiltinOperator is a TFLite builtin operator code, numbered as the
// BuiltinOperator enum of TFLite's schema.fbs. Only the codes tflrun's
// kernels register are named here; the schema package has the complete
// enum (the interpreter's tests check that the two agree).
type BuiltinOperator int32

// Builtin operator codes (TFLite schema numbering).
const (
	OpAdd                        BuiltinOperator = 0
	OpAveragePool2D              BuiltinOperator = 1
	OpConcatenation              BuiltinOperator = 2
	OpConv2D                     BuiltinOperator = 3
	OpDepthwiseConv2D            BuiltinOperator = 4
	OpDepthToSpace               BuiltinOperator = 5
	OpDequantize                 BuiltinOperator = 6
	OpEmbeddingLookup            BuiltinOperator = 7
	OpFullyConnected             BuiltinOperator = 9
	OpLogistic                   BuiltinOperator = 14
	OpLSTM                       BuiltinOperator = 16
	OpMaxPool2D                  BuiltinOperator = 17
	OpMul                        BuiltinOperator = 18
	OpRelu                       BuiltinOperator = 19
	OpReluN1To1                  BuiltinOperator = 20
	OpRelu6                      BuiltinOperator = 21
	OpReshape                    BuiltinOperator = 22
	OpRNN                        BuiltinOperator = 24
	OpSoftmax                    BuiltinOperator = 25
	OpSVDF                       BuiltinOperator = 27
	OpTanh                       BuiltinOperator = 28
	BuiltinCustom                BuiltinOperator = 32
	OpEmbeddingLookupSparse      BuiltinOperator = 33
	OpPad                        BuiltinOperator = 34
	OpUnidirectionalSequenceRNN  BuiltinOperator = 35
	OpGather                     BuiltinOperator = 36
	OpTranspose                  BuiltinOperator = 39
	OpMean                       BuiltinOperator = 40
	OpSub                        BuiltinOperator = 41
	OpSqueeze                    BuiltinOperator = 43
	OpUnidirectionalSequenceLSTM BuiltinOperator = 44
	OpStridedSlice               BuiltinOperator = 45
	OpBidirectionalSequenceRNN   BuiltinOperator = 46
	OpTopKV2                     BuiltinOperator = 48
	OpSplit                      BuiltinOperator = 49
	OpBidirectionalSequenceLSTM  BuiltinOperator = 52
	OpCast                       BuiltinOperator = 53
	OpLess                       BuiltinOperator = 58
	OpPadV2                      BuiltinOperator = 60
	OpGreater                    BuiltinOperator = 61
	OpGreaterEqual               BuiltinOperator = 62
	OpLessEqual                  BuiltinOperator = 63
	OpExpandDims                 BuiltinOperator = 70
	OpEqual                      BuiltinOperator = 71
	OpNotEqual                   BuiltinOperator = 72
	OpPack                       BuiltinOperator = 83
	OpUnpack                     BuiltinOperator = 88
	OpSplitV                     BuiltinOperator = 102
	OpReverseV2                  BuiltinOperator = 105
	OpQuantize                   BuiltinOperator = 114
	OpRelu0To1                   BuiltinOperator = 152
)

// Builtin operator codes of the element-wise math, logical, reduction,
// selection, shape and resize kernels (TFLite schema numbering).
const (
	OpFloor                 BuiltinOperator = 8
	OpResizeBilinear        BuiltinOperator = 23
	OpDiv                   BuiltinOperator = 42
	OpExp                   BuiltinOperator = 47
	OpLogSoftmax            BuiltinOperator = 50
	OpPRelu                 BuiltinOperator = 54
	OpMaximum               BuiltinOperator = 55
	OpArgMax                BuiltinOperator = 56
	OpMinimum               BuiltinOperator = 57
	OpNeg                   BuiltinOperator = 59
	OpSelect                BuiltinOperator = 64
	OpSlice                 BuiltinOperator = 65
	OpSin                   BuiltinOperator = 66
	OpTile                  BuiltinOperator = 69
	OpLog                   BuiltinOperator = 73
	OpSum                   BuiltinOperator = 74
	OpSqrt                  BuiltinOperator = 75
	OpRsqrt                 BuiltinOperator = 76
	OpShape                 BuiltinOperator = 77
	OpPow                   BuiltinOperator = 78
	OpArgMin                BuiltinOperator = 79
	OpReduceProd            BuiltinOperator = 81
	OpReduceMax             BuiltinOperator = 82
	OpLogicalOr             BuiltinOperator = 84
	OpLogicalAnd            BuiltinOperator = 86
	OpLogicalNot            BuiltinOperator = 87
	OpReduceMin             BuiltinOperator = 89
	OpFloorDiv              BuiltinOperator = 90
	OpReduceAny             BuiltinOperator = 91
	OpSquare                BuiltinOperator = 92
	OpZerosLike             BuiltinOperator = 93
	OpFill                  BuiltinOperator = 94
	OpFloorMod              BuiltinOperator = 95
	OpResizeNearestNeighbor BuiltinOperator = 97
	OpLeakyRelu             BuiltinOperator = 98
	OpSquaredDifference     BuiltinOperator = 99
	OpMirrorPad             BuiltinOperator = 100
	OpAbs                   BuiltinOperator = 101
	OpCeil                  BuiltinOperator = 104
	OpAddN                  BuiltinOperator = 106
	OpCos                   BuiltinOperator = 108
	OpElu                   BuiltinOperator = 111
	OpRound                 BuiltinOperator = 116
	OpHardSwish             BuiltinOperator = 117
	OpSelectV2              BuiltinOperator = 123
	OpNonMaxSuppressionV4   BuiltinOperator = 120
	OpNonMaxSuppressionV5   BuiltinOperator = 121
	OpDensify               BuiltinOperator = 124
	OpRfft2d                BuiltinOperator = 131
	OpImag                  BuiltinOperator = 133
	OpReal                  BuiltinOperator = 134
	OpComplexAbs            BuiltinOperator = 135
	OpBroadcastTo           BuiltinOperator = 130
	OpReduceAll             BuiltinOperator = 140
	OpSign                  BuiltinOperator = 158
)

// Builtin operator codes of the convolution, matrix-product and
// normalisation kernels added for the breadth of TFLite's resolver
// (TFLite schema numbering).
const (
	OpL2Normalization            BuiltinOperator = 11
	OpL2Pool2D                   BuiltinOperator = 12
	OpLocalResponseNormalization BuiltinOperator = 13
	OpTransposeConv              BuiltinOperator = 67
	OpBatchMatMul                BuiltinOperator = 126
	OpConv3D                     BuiltinOperator = 132
	OpConv3DTranspose            BuiltinOperator = 141
	OpGelu                       BuiltinOperator = 150
)

// Builtin operator codes of the data-movement, scatter/gather, segment,
// bitwise and miscellaneous kernels (TFLite schema numbering).
const (
	OpSpaceToDepth        BuiltinOperator = 26
	OpBatchToSpaceND      BuiltinOperator = 37
	OpSpaceToBatchND      BuiltinOperator = 38
	OpSparseToDense       BuiltinOperator = 68
	OpFakeQuant           BuiltinOperator = 80
	OpOneHot              BuiltinOperator = 85
	OpGatherND            BuiltinOperator = 107
	OpRank                BuiltinOperator = 110
	OpReverseSequence     BuiltinOperator = 112
	OpMatrixDiag          BuiltinOperator = 113
	OpMatrixSetDiag       BuiltinOperator = 115
	OpScatterND           BuiltinOperator = 122
	OpSegmentSum          BuiltinOperator = 125
	OpCumsum              BuiltinOperator = 128
	OpBroadcastArgs       BuiltinOperator = 145
	OpBucketize           BuiltinOperator = 147
	OpDynamicUpdateSlice  BuiltinOperator = 151
	OpUnsortedSegmentProd BuiltinOperator = 153
	OpUnsortedSegmentMax  BuiltinOperator = 154
	OpUnsortedSegmentSum  BuiltinOperator = 155
	OpAtan2               BuiltinOperator = 156
	OpUnsortedSegmentMin  BuiltinOperator = 157
	OpBitcast             BuiltinOperator = 159
	OpBitwiseXor          BuiltinOperator = 160
	OpRightShift          BuiltinOperator = 161
)

// Builtin operator codes of the kernels whose output shape comes from
// input values: RANGE, WHERE, UNIQUE (TFLite schema numbering).
const (
	OpRange  BuiltinOperator = 96
	OpWhere  BuiltinOperator = 109
	OpUnique BuiltinOperator = 103
)

// Builtin operator codes of the StableHLO element-wise kernels (TFLite
// schema numbering).
const (
	OpStablehloAdd       BuiltinOperator = 163
	OpStablehloMultiply  BuiltinOperator = 165
	OpStablehloMaximum   BuiltinOperator = 166
	OpStablehloAnd       BuiltinOperator = 176
	OpStablehloMinimum   BuiltinOperator = 181
	OpStablehloShiftLeft BuiltinOperator = 207
)

// Builtin operator codes of the StableHLO data-movement kernels (TFLite
// schema numbering).
const (
	OpStablehloPad BuiltinOperator = 195
	OpDilate       BuiltinOperator = 203
	OpReduceWindow BuiltinOperator = 205
)

// Control-flow operator codes (TFLite schema numbering).
const (
	OpIf       BuiltinOperator = 118
	OpWhile    BuiltinOperator = 119
	OpCallOnce BuiltinOperator = 129
	// StableHLO control flow: a branch by index, a call of a
	// decomposition.
	OpStablehloComposite BuiltinOperator = 206
	OpStablehloCase      BuiltinOperator = 209
	OpVarHandle          BuiltinOperator = 142
	OpReadVariable       BuiltinOperator = 143
	OpAssignVariable     BuiltinOperator = 144
)

// Registration binds an operator to its kernel: a builtin code with the
// range of versions the kernel implements, or a custom operator name.
type Registration struct {
	// Op is the builtin code, BuiltinCustom for a custom operator.
	Op BuiltinOperator
	// Custom is the custom operator's name (custom_code), empty for
	// builtins.
	Custom string
	// MinVersion and MaxVersion bound the builtin versions the kernel
	// accepts (inclusive). Custom operators ignore them.
	MinVersion, MaxVersion int
	// New makes a kernel instance for one operator node.
	New func() Kernel
}

// Resolver maps operators to kernels, like TFLite's OpResolver. The zero
// value is not usable; make one with NewResolver.
type Resolver struct {
	builtins map[BuiltinOperator][]Registration
	customs  map[string]Registration
	options  map[uint8]OptionsDecoder
	options2 map[uint8]OptionsDecoder
}

// NewResolver returns an empty resolver.
func NewResolver() *Resolver {
	return &Resolver{
		builtins: map[BuiltinOperator][]Registration{},
		customs:  map[string]Registration{},
		options:  map[uint8]OptionsDecoder{},
		options2: map[uint8]OptionsDecoder{},
	}
}

// AddBuiltin registers a kernel for versions minVersion..maxVersion of a
// builtin operator. A later registration overlapping an earlier one takes
// precedence for the overlapping versions.
func (r *Resolver) AddBuiltin(op BuiltinOperator, minVersion, maxVersion int, newKernel func() Kernel) {
	r.builtins[op] = append([]Registration{{Op: op, MinVersion: minVersion, MaxVersion: maxVersion, New: newKernel}}, r.builtins[op]...)
}

// AddCustom registers (or replaces) the kernel of the custom operator
// called name.
func (r *Resolver) AddCustom(name string, newKernel func() Kernel) {
	r.customs[name] = Registration{Op: BuiltinCustom, Custom: name, New: newKernel}
}

// AddOptions registers (or replaces) the decoder of one kind of builtin
// options table: typ is the table's tag in TFLite's BuiltinOptions union
// (schema.BuiltinOptions). The package that holds an operator's kernel
// registers the decoder of the table its kernel reads.
func (r *Resolver) AddOptions(typ uint8, dec OptionsDecoder) {
	r.options[typ] = dec
}

// AddOptions2 is AddOptions for TFLite's second options union: typ is the
// table's tag in BuiltinOptions2 (schema.BuiltinOptions2).
func (r *Resolver) AddOptions2(typ uint8, dec OptionsDecoder) {
	r.options2[typ] = dec
}

// DecodeOptions decodes t with the decoder registered for its type. It
// returns nil and no error when none is registered (an operator without a
// kernel here; the interpreter refuses it at AllocateTensors), and the
// decoder's error for option values TFLite's own parser rejects.
func (r *Resolver) DecodeOptions(t OptionsTable) (any, error) {
	dec := r.options[t.Type]
	if t.Union2 {
		dec = r.options2[t.Type]
	}
	if dec == nil {
		return nil, nil
	}
	return dec(t)
}

// FindBuiltin returns the registration for version v of op. The error says
// whether the operator is unknown or only the version is unsupported
// (naming the versions that are).
func (r *Resolver) FindBuiltin(op BuiltinOperator, v int) (Registration, error) {
	regs := r.builtins[op]
	if len(regs) == 0 {
		return Registration{}, fmt.Errorf("no kernel for this operator")
	}
	for _, reg := range regs {
		if v >= reg.MinVersion && v <= reg.MaxVersion {
			return reg, nil
		}
	}
	return Registration{}, fmt.Errorf("version %d is not supported (supported: %s)", v, versionRanges(regs))
}

// FindCustom returns the registration for the custom operator name.
func (r *Resolver) FindCustom(name string) (Registration, error) {
	reg, ok := r.customs[name]
	if !ok {
		return Registration{}, fmt.Errorf("no kernel for custom operator %q", name)
	}
	return reg, nil
}

func versionRanges(regs []Registration) string {
	s := make([]Registration, len(regs))
	copy(s, regs)
	sort.Slice(s, func(i, j int) bool { return s[i].MinVersion < s[j].MinVersion })
	out := ""
	for i, reg := range s {
		if i > 0 {
			out += ", "
		}
		if reg.MinVersion == reg.MaxVersion {
			out += fmt.Sprint(reg.MinVersion)
		} else {
			out += fmt.Sprintf("%d-%d", reg.MinVersion, reg.MaxVersion)
		}
	}
	return out
}

// Builtin operator codes of the random-number kernels (TFLite schema
// numbering).
const (
	OpRandomStandardNormal BuiltinOperator = 146
	OpRandomUniform        BuiltinOperator = 148
	OpMultinomial          BuiltinOperator = 149
)
