package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
)

// saverOps make up a SavedModel's checkpoint saver and restorer subgraph,
// which no signature output depends on.
var saverOps = []struct {
	name, outputs string
	minInputs     int
}{
	{"SaveV2", "", 3},
	{"RestoreV2", "tensors:[dtypes]", 3},
	{"MergeV2Checkpoints", "", 2},
	{"ShardedFilename", "filename:=string", 3},
	{"StringJoin", "output:=string", 1},
	{"StaticRegexFullMatch", "output:=bool", 1},
	{"DisableCopyOnRead", "", 1},
}

func init() {
	for _, op := range saverOps {
		ir.RegisterOp(ir.OpRecord{Name: op.name, Outputs: op.outputs, MinInputs: op.minInputs, NoLegalize: bySaver})
	}
}
