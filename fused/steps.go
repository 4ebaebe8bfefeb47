package fused

import "fmt"

// checkSteps refuses a sequence whose time loop carries no data: with
// empty input rows (n_input and n_aux 0) and empty output rows (n_output,
// or units, 0), the tensors hold nothing however long the declared time
// dimension is, so nothing bounds the loop's work by the model's size (a
// few hundred bytes can declare 2^31−1 steps). No model a converter
// writes has such a layer; TensorFlow Lite would run its loop. maxTime
// and batch are the input's dimensions; a batch of 0 runs no step (the
// kernels skip it), so it is not refused.
func checkSteps(maxTime, batch, rowIn, rowOut int) error {
	if maxTime <= 1 || batch == 0 || rowIn > 0 || rowOut > 0 {
		return nil
	}
	return fmt.Errorf("the input and output rows are empty (%d input and %d output features a step): its %d time steps would read and write no data, and tflrun refuses a loop over a declared size the tensors do not hold", rowIn, rowOut, maxTime)
}
