package convert

import (
	"fmt"
	"math"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// The dynamic batch. A SavedModel input declared [-1, …] is converted at
// batch 1 (pinBatch: the passes need static shapes), and TensorFlow's
// converter then writes shape_signature [-1, …] so that an application
// may ResizeInputTensor to any batch. tflrun writes the -1 only where the
// written model really runs at another batch: it resizes the dynamic
// inputs to checkBatch rows, runs the model, and demands that every
// output either keeps its shape (and its batch-1 value) or grows by the
// same factor with each row equal to a batch-1 run on that row. A model
// that fails (a RESHAPE whose shape operand holds the batch 1) keeps its
// static batch 1, and the fusion report says why; it never carries a -1
// that would give wrong outputs or fail after a resize. The fused
// recurrent operators run at any batch: their kernels give the variable
// state [1, units] the input's batch at AllocateTensors (and reset it), so
// the state tensors that grew at checkBatch are written with
// shape_signature [-1, units] too, and the report notes that stock
// TensorFlow Lite runs such a model at batch 1 only (stateNote).

// checkBatch is the batch the written model is tried at.
const checkBatch = 3

// withDynamicBatch returns the model mt serialised, with shape_signature
// -1 on the leading dimension of the inputs dyn marks (and of the outputs
// that follow the batch) when the model runs at batch checkBatch with the
// same rows; otherwise the static model and a note saying why the
// dynamic batch was dropped.
func withDynamicBatch(mt *schema.ModelT, dyn []bool, names []string) ([]byte, string) {
	static := tflite.Pack(mt)
	sg := mt.Subgraphs[0]
	var dynNames []string
	for i, d := range dyn {
		if d && i < len(sg.Inputs) {
			dynNames = append(dynNames, fmt.Sprintf("%q", names[i]))
		}
	}
	if len(dynNames) == 0 {
		return static, ""
	}
	batched, states, err := batchedOutputs(static, dyn)
	if err != nil {
		return static, fmt.Sprintf("dynamic batch of input %s not kept (written at batch 1): %v", strings.Join(dynNames, ", "), err)
	}
	mark := func(ti int32) {
		t := sg.Tensors[ti]
		sig := append([]int32(nil), t.Shape...)
		sig[0] = -1
		t.ShapeSignature = sig
	}
	for i, d := range dyn {
		if d && i < len(sg.Inputs) {
			mark(sg.Inputs[i])
		}
	}
	for k, b := range batched {
		if b {
			mark(sg.Outputs[k])
		}
	}
	for _, ti := range states {
		if int(ti) < len(sg.Tensors) && len(sg.Tensors[ti].Shape) > 0 {
			mark(ti)
		}
	}
	return tflite.Pack(mt), stateNote(mt, states)
}

// stateNote says, for a model whose dynamic batch is kept and whose
// operators hold variable state that follows the batch, which operators
// those are and that stock TensorFlow Lite runs the model at batch 1 only:
// its ResizeInputTensor resizes the input alone, the state tensors keep
// their [1, units] shape, and the recurrent kernels' Prepare requires
// batch·units elements in them (UNIDIRECTIONAL_SEQUENCE_LSTM and
// BIDIRECTIONAL_SEQUENCE_LSTM check NumElements, the RNN kernels the
// state's dimensions); resizing the state tensors too is not re-planned
// after the first AllocateTensors (its arena planner allocates a
// persistent tensor once). tflrun's kernels give the state the input's
// batch at every AllocateTensors, which also resets it.
func stateNote(mt *schema.ModelT, states []int32) string {
	if len(states) == 0 {
		return ""
	}
	sg := mt.Subgraphs[0]
	isState := map[int32]bool{}
	for _, ti := range states {
		isState[ti] = true
	}
	var names []string
	seen := map[string]bool{}
	for _, op := range sg.Operators {
		reads := false
		for _, in := range op.Inputs {
			if in >= 0 && isState[in] {
				reads = true
			}
		}
		if !reads || int(op.OpcodeIndex) >= len(mt.OperatorCodes) {
			continue
		}
		oc := mt.OperatorCodes[op.OpcodeIndex]
		name := schema.EnumNamesBuiltinOperator[oc.BuiltinCode]
		if oc.BuiltinCode == schema.BuiltinOperatorCUSTOM {
			name = oc.CustomCode
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return fmt.Sprintf("dynamic batch kept with the variable state of %s written as [-1, …]: tflrun sizes the state to the input's batch (and resets it) at AllocateTensors; stock TensorFlow Lite runs it only at batch 1 (ResizeInputTensor leaves the [1, …] state tensors as they are, and its recurrent kernels' Prepare refuses a state without batch·units elements)",
		strings.Join(names, ", "))
}

// batchedOutputs runs model at batch 1 on checkBatch rows and at batch
// checkBatch on all of them (the inputs dyn marks resized, the others
// shared), and returns which outputs follow the batch and the variable
// tensors whose leading dimension grew from 1 to checkBatch (the state of
// fused recurrent operators, which their kernels size to the input's
// batch); an error says how the model fails at the larger batch.
func batchedOutputs(model []byte, dyn []bool) ([]bool, []int32, error) {
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		return nil, nil, err
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := it.AllocateTensors(); err != nil {
		return nil, nil, err
	}
	nIn, nOut := it.InputCount(), it.OutputCount()
	varShapes := make([][]int, it.TensorCount()) // variable tensors at batch 1
	for ti := range varShapes {
		if t := it.Tensor(ti); t.Kind == ops.VariableTensor {
			varShapes[ti] = append([]int(nil), t.Shape...)
		}
	}
	rows := make([][][]byte, checkBatch) // rows[r][i]: input i of row r
	single := make([][][]byte, checkBatch)
	shapes := make([][]int, nOut)
	for r := range rows {
		rows[r] = make([][]byte, nIn)
		for i := 0; i < nIn; i++ {
			t := it.Input(i)
			seed := i
			if dyn[i] {
				seed += 1000 * (r + 1)
			}
			fillProbe(t, seed)
			rows[r][i] = append([]byte(nil), t.Data...)
		}
		if err := it.ResetVariableTensors(); err != nil {
			return nil, nil, err
		}
		if err := it.Invoke(); err != nil {
			return nil, nil, fmt.Errorf("batch 1: %w", err)
		}
		single[r] = make([][]byte, nOut)
		for k := 0; k < nOut; k++ {
			o := it.Output(k)
			single[r][k] = append([]byte(nil), o.Data...)
			shapes[k] = append([]int(nil), o.Shape...)
		}
	}
	for i := 0; i < nIn; i++ {
		if !dyn[i] {
			continue
		}
		s := append([]int(nil), it.Input(i).Shape...)
		s[0] = checkBatch
		if err := it.ResizeInputTensor(i, s); err != nil {
			return nil, nil, err
		}
	}
	if err := it.AllocateTensors(); err != nil {
		return nil, nil, fmt.Errorf("at batch %d: %w", checkBatch, err)
	}
	var states []int32
	for ti := 0; ti < it.TensorCount(); ti++ {
		t := it.Tensor(ti)
		if t.Kind == ops.VariableTensor && len(t.Shape) > 0 && t.Shape[0] == checkBatch && len(varShapes[ti]) == len(t.Shape) && varShapes[ti][0] == 1 {
			states = append(states, int32(ti))
		}
	}
	for i := 0; i < nIn; i++ {
		t := it.Input(i)
		if !dyn[i] {
			copy(t.Data, rows[0][i])
			continue
		}
		for r := range rows {
			copy(t.Data[r*len(rows[r][i]):], rows[r][i])
		}
	}
	if err := it.ResetVariableTensors(); err != nil {
		return nil, nil, err
	}
	if err := it.Invoke(); err != nil {
		return nil, nil, fmt.Errorf("at batch %d: %w", checkBatch, err)
	}
	batched := make([]bool, nOut)
	for k := 0; k < nOut; k++ {
		o := it.Output(k)
		s1 := shapes[k]
		switch {
		case ops.SameShape(o.Shape, s1):
			for r := range single {
				if !sameValues(o.Type, o.Data, single[r][k]) {
					return nil, nil, fmt.Errorf("output %d (%s) keeps its shape %v at batch %d but not its value", k, o.Name, s1, checkBatch)
				}
			}
		case len(s1) > 0 && len(o.Shape) == len(s1) && o.Shape[0] == checkBatch*s1[0] && ops.SameShape(o.Shape[1:], s1[1:]):
			n := len(single[0][k])
			for r := range single {
				if !sameValues(o.Type, o.Data[r*n:(r+1)*n], single[r][k]) {
					return nil, nil, fmt.Errorf("output %d (%s): row %d at batch %d differs from the same row run alone", k, o.Name, r, checkBatch)
				}
			}
			batched[k] = true
		default:
			return nil, nil, fmt.Errorf("output %d (%s) has shape %v at batch %d, %v at batch 1", k, o.Name, o.Shape, checkBatch, s1)
		}
	}
	return batched, states, nil
}

// fillProbe writes deterministic values into t: floats in [-1, 1), zeros
// for every other type (a valid index for the GATHERs of embedding ids).
func fillProbe(t *interpreter.Tensor, seed int) {
	clear(t.Data)
	if t.Type != ops.Float32 {
		return
	}
	v := t.Float32s()
	for j := range v {
		v[j] = float32(math.Sin(float64(j)*0.731+float64(seed)*1.37) * math.Cos(float64(j)*0.173+float64(seed)*0.61))
	}
}

// sameValues compares two outputs: float32 within 1e-5 relative to the
// magnitude (kernels may block a larger batch differently), other types
// bit for bit.
func sameValues(dt ops.DataType, a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if dt != ops.Float32 {
		return string(a) == string(b)
	}
	for i := 0; i+4 <= len(a); i += 4 {
		x := math.Float32frombits(uint32(a[i]) | uint32(a[i+1])<<8 | uint32(a[i+2])<<16 | uint32(a[i+3])<<24)
		y := math.Float32frombits(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24)
		d := math.Abs(float64(x) - float64(y))
		if !(d <= 1e-5*(1+math.Abs(float64(y)))) && !(math.IsNaN(float64(x)) && math.IsNaN(float64(y))) {
			return false
		}
	}
	return true
}
