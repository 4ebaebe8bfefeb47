package legalize

import (
	"strings"
	"testing"
)

func TestSupportedList(t *testing.T) {
	s := strings.Join(Supported(), " ")
	for _, op := range []string{"MatMul", "BatchMatMulV2", "BiasAdd", "Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool",
		"Relu", "Relu6", "Sigmoid", "Tanh", "Softmax", "Add", "AddV2", "Sub", "Mul", "RealDiv", "Reshape", "Squeeze", "ExpandDims",
		"ConcatV2", "Pack", "Unpack", "Split", "StridedSlice", "Transpose", "Mean", "Pad", "Cast", "ResourceGather", "GatherV2",
		"FusedBatchNormV3", "Fill", "Shape"} {
		if !strings.Contains(" "+s+" ", " "+op+" ") {
			t.Errorf("no legalisation for %s", op)
		}
	}
}
