package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestRegisterBuiltins(t *testing.T) {
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, tc := range []struct {
		op   ops.BuiltinOperator
		v    int
		ok   bool
		kind ops.Kernel
	}{
		{ops.OpFullyConnected, 1, true, &FullyConnected{}},
		{ops.OpFullyConnected, 2, true, &FullyConnected{}},
		{ops.OpFullyConnected, 4, true, &FullyConnected{}},
		{ops.OpFullyConnected, 8, true, &FullyConnected{}},
		{ops.OpFullyConnected, 12, true, &FullyConnected{}},
		{ops.OpFullyConnected, 13, true, &FullyConnected{}},
		{ops.OpFullyConnected, 14, true, &FullyConnected{}},
		{ops.OpFullyConnected, 15, false, nil},
		{ops.OpSoftmax, 2, true, &Softmax{}},
		{ops.OpSoftmax, 3, true, &Softmax{}},
		{ops.OpSoftmax, 4, true, &Softmax{}},
		{ops.OpSoftmax, 5, false, nil},
		{ops.OpLogistic, 3, true, &Logistic{}},
		{ops.OpLogistic, 4, false, nil},
		{ops.OpAdd, 4, true, &Add{}},
		{ops.OpAdd, 6, true, &Add{}},
		{ops.OpAdd, 7, false, nil},
		{ops.OpSub, 5, true, &Sub{}},
		{ops.OpMul, 5, true, &Mul{}},
		{ops.OpMul, 8, true, &Mul{}},
		{ops.OpMul, 9, false, nil},
		{ops.OpReshape, 1, true, &Reshape{}},
		{ops.OpReshape, 2, false, nil},
		{ops.OpQuantize, 3, true, &Quantize{}},
		{ops.OpQuantize, 4, true, &Quantize{}},
		{ops.OpQuantize, 7, false, nil},
		{ops.OpDequantize, 5, true, &Dequantize{}},
		{ops.OpDequantize, 4, true, &Dequantize{}},
		{ops.OpDequantize, 9, true, &Dequantize{}},
		{ops.OpDequantize, 10, false, nil},
		{ops.OpRelu0To1, 1, true, &Relu{}},
	} {
		reg, err := r.FindBuiltin(tc.op, tc.v)
		if (err == nil) != tc.ok {
			t.Fatalf("op %d v%d: err %v, want ok=%v", tc.op, tc.v, err, tc.ok)
		}
		if !tc.ok {
			if !strings.Contains(err.Error(), "version") {
				t.Fatalf("op %d v%d: error %q does not name the version", tc.op, tc.v, err)
			}
			continue
		}
		k := reg.New()
		if k == nil {
			t.Fatalf("op %d v%d: nil kernel", tc.op, tc.v)
		}
	}
	if _, err := r.FindBuiltin(ops.OpLSTM, 1); err == nil {
		t.Fatal("LSTM resolved, but this package has no LSTM kernel")
	}
}

// TestRegisteredVersions pins every operator's registered version ranges:
// the table RegisterBuiltins held before each operator's file registered
// itself. A change here changes which models tflrun runs. (Operators added
// since need no entry.)
func TestRegisteredVersions(t *testing.T) {
	want := map[ops.BuiltinOperator][][2]int{
		ops.OpFullyConnected:        {{1, 14}},
		ops.OpSoftmax:               {{1, 4}},
		ops.OpLogistic:              {{1, 3}},
		ops.OpTanh:                  {{1, 3}},
		ops.OpRelu:                  {{1, 3}},
		ops.OpRelu6:                 {{1, 3}},
		ops.OpReluN1To1:             {{1, 1}},
		ops.OpRelu0To1:              {{1, 1}},
		ops.OpAdd:                   {{1, 6}},
		ops.OpSub:                   {{1, 5}},
		ops.OpMul:                   {{1, 8}},
		ops.OpReshape:               {{1, 1}},
		ops.OpQuantize:              {{1, 6}},
		ops.OpDequantize:            {{1, 9}},
		ops.OpConv2D:                {{1, 8}},
		ops.OpDepthwiseConv2D:       {{1, 7}},
		ops.OpMaxPool2D:             {{1, 3}},
		ops.OpAveragePool2D:         {{1, 3}},
		ops.OpGather:                {{1, 8}},
		ops.OpEqual:                 {{1, 5}},
		ops.OpNotEqual:              {{1, 4}},
		ops.OpLess:                  {{1, 3}},
		ops.OpLessEqual:             {{1, 2}},
		ops.OpGreater:               {{1, 2}},
		ops.OpGreaterEqual:          {{1, 3}},
		ops.OpCast:                  {{1, 9}},
		ops.OpStridedSlice:          {{1, 8}},
		ops.OpTopKV2:                {{1, 3}},
		ops.OpMean:                  {{1, 3}},
		ops.OpConcatenation:         {{1, 7}},
		ops.OpPack:                  {{1, 5}},
		ops.OpUnpack:                {{1, 6}},
		ops.OpSqueeze:               {{1, 2}},
		ops.OpExpandDims:            {{1, 1}},
		ops.OpTranspose:             {{1, 9}},
		ops.OpReverseV2:             {{1, 4}},
		ops.OpPad:                   {{1, 6}},
		ops.OpPadV2:                 {{1, 6}},
		ops.OpSplit:                 {{1, 5}},
		ops.OpSplitV:                {{1, 3}},
		ops.OpEmbeddingLookup:       {{1, 5}},
		ops.OpAbs:                   {{1, 5}},
		ops.OpNeg:                   {{1, 1}},
		ops.OpSquare:                {{1, 1}},
		ops.OpSqrt:                  {{1, 2}},
		ops.OpRsqrt:                 {{1, 3}},
		ops.OpExp:                   {{1, 2}},
		ops.OpLog:                   {{1, 2}},
		ops.OpSin:                   {{1, 2}},
		ops.OpCos:                   {{1, 2}},
		ops.OpFloor:                 {{1, 1}},
		ops.OpCeil:                  {{1, 1}},
		ops.OpRound:                 {{1, 1}},
		ops.OpSign:                  {{1, 2}},
		ops.OpLogicalNot:            {{1, 1}},
		ops.OpMaximum:               {{1, 4}},
		ops.OpMinimum:               {{1, 4}},
		ops.OpSquaredDifference:     {{1, 2}},
		ops.OpDiv:                   {{1, 2}},
		ops.OpFloorDiv:              {{1, 3}},
		ops.OpFloorMod:              {{1, 2}},
		ops.OpPow:                   {{1, 1}},
		ops.OpSum:                   {{1, 2}},
		ops.OpReduceProd:            {{1, 2}},
		ops.OpReduceMax:             {{1, 3}},
		ops.OpReduceMin:             {{1, 3}},
		ops.OpReduceAny:             {{1, 1}},
		ops.OpReduceAll:             {{1, 1}},
		ops.OpArgMax:                {{1, 3}},
		ops.OpArgMin:                {{1, 3}},
		ops.OpSlice:                 {{1, 8}},
		ops.OpTile:                  {{1, 3}},
		ops.OpBroadcastTo:           {{2, 4}},
		ops.OpFill:                  {{1, 5}},
		ops.OpShape:                 {{1, 1}},
		ops.OpZerosLike:             {{1, 1}},
		ops.OpSelect:                {{1, 4}},
		ops.OpSelectV2:              {{1, 2}},
		ops.OpResizeBilinear:        {{1, 4}},
		ops.OpResizeNearestNeighbor: {{1, 4}},
		ops.OpLeakyRelu:             {{1, 2}},
		ops.OpPRelu:                 {{1, 1}},
		ops.OpHardSwish:             {{1, 1}},
		ops.OpElu:                   {{1, 1}},
		ops.OpLogSoftmax:            {{1, 2}},
		ops.OpAddN:                  {{1, 1}},
		ops.OpLogicalAnd:            {{1, 1}},
		ops.OpLogicalOr:             {{1, 1}},
		ops.OpMirrorPad:             {{1, 3}},
	}
	got := map[ops.BuiltinOperator][][2]int{}
	for _, o := range operators {
		got[o.op] = append(got[o.op], o.versions...)
	}
	for op, w := range want {
		g := got[op]
		slices.SortFunc(g, func(a, b [2]int) int { return a[0] - b[0] })
		if !slices.Equal(g, w) {
			t.Errorf("operator %d: registered versions %v, want %v", op, g, w)
		}
	}
}
