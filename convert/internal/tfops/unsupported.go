package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
)

// unsupportedOps are ops tflrun reads (so that a graph holding them
// imports, and a cut around them converts the rest) but does not convert:
// DTLN's in-graph FFT, the WAV decoding of ARM's keyword-spotting
// graphs, and others TFLite has no builtin for or tflrun does not map
// yet.
var unsupportedOps = []struct {
	name, outputs string
	minInputs     int
}{
	{"Angle", "output:Tout=float", 1},
	{"BroadcastArgs", "r0:T", 2},
	{"Complex", "out:Tout=complex64", 2},
	{"ComplexAbs", "y:Tout=float", 1},
	{"Conv1D", "output:T", 2},
	{"Cumsum", "out:T", 2},
	{"DecodeWav", "audio:=float sample_rate:=int32", 1},
	{"IRFFT", "output:Treal=float", 2},
	{"Imag", "output:Tout=float", 1},
	{"MaxPoolV2", "output:T", 3},
	{"OneHot", "output:T", 4},
	{"RFFT", "output:Tcomplex=complex64", 2},
	{"Real", "output:Tout=float", 1},
	{"Selu", "activations:T", 1},
	{"ShapeN", "output:out_type=int32*N", 1},
	{"TopKV2", "values:T indices:index_type=int32", 2},
	{"Where", "index:=int64", 1},
}

func init() {
	for _, op := range unsupportedOps {
		ir.RegisterOp(ir.OpRecord{Name: op.name, Outputs: op.outputs, MinInputs: op.minInputs, NoLegalize: unsupported})
	}
}
