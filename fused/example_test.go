package fused_test

import (
	"fmt"

	"github.com/tflrun/tflrun/fused"
	"github.com/tflrun/tflrun/ops"
)

// The interpreter's default resolver already holds these kernels; a
// program that builds its own resolver (to restrict or replace operators)
// adds them with RegisterBuiltins.
func Example() {
	r := ops.NewResolver()
	fused.RegisterBuiltins(r)
	for name, op := range map[string]ops.BuiltinOperator{
		"UNIDIRECTIONAL_SEQUENCE_LSTM": ops.OpUnidirectionalSequenceLSTM,
		"BIDIRECTIONAL_SEQUENCE_LSTM":  ops.OpBidirectionalSequenceLSTM,
		"SVDF":                         ops.OpSVDF,
	} {
		_, err := r.FindBuiltin(op, 1)
		fmt.Println(name, err == nil)
	}
	_, err := r.FindCustom(fused.GRUCustomName)
	fmt.Println(fused.GRUCustomName, err == nil)
	// Unordered output:
	// UNIDIRECTIONAL_SEQUENCE_LSTM true
	// BIDIRECTIONAL_SEQUENCE_LSTM true
	// SVDF true
	// UNIDIRECTIONAL_SEQUENCE_GRU true
}
