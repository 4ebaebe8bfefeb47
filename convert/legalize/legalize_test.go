package legalize

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOptionsUnionCoversEveryUse checks that every options table a
// legaliser builds has a case in options() (which panics on a type it does
// not know): it collects the "&schema.XOptionsT{" literals of the package
// sources and the case list of options().
func TestOptionsUnionCoversEveryUse(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	used := map[string]bool{}
	lit := regexp.MustCompile(`&schema\.([A-Za-z0-9]+OptionsT)\{`)
	var cases string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			used[m[1]] = true
		}
		if f == "legalize.go" {
			cases = string(b)
		}
	}
	delete(used, "BuiltinOptionsT") // the union itself
	for name := range used {
		if !strings.Contains(cases, "case *schema."+name+":") {
			t.Errorf("options() has no case for %s", name)
		}
	}
	if len(used) < 20 {
		t.Errorf("found only %d options types; the scan is broken", len(used))
	}
}

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
