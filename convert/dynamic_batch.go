package convert

import (
	"fmt"
	"math"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
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
// dynamic batch was dropped. at2, when not nil, converts the same model
// at batch 2 (nil if that fails), for the RESHAPE shapes that follow the
// batch (followingDims); it is called only when the model fails at
// checkBatch as converted.
func withDynamicBatch(mt *schema.ModelT, dyn []bool, names []string, at2 func() *schema.ModelT) ([]byte, string) {
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
	var notes []string
	if err != nil {
		// A RESHAPE whose constant shape holds the batch 1 (the
		// converter folded a Keras TimeDistributed or Reshape layer's
		// shape at the pinned batch) runs at batch 1 only; with -1 where
		// its shape follows the batch (at2 tells where) it runs at any,
		// and the check says whether the model then does.
		var dims []reshapeDim
		if at2 != nil {
			if m2 := at2(); m2 != nil {
				dims = followingDims(mt, m2)
			}
		}
		if k := len(dims); k > 0 {
			free := schema.GetRootAsModel(static, 0).UnPack()
			freeReshapeBatch(free, dims)
			packed := tflite.Pack(free)
			if b, st, err2 := batchedOutputs(packed, dyn); err2 == nil {
				mt, sg, batched, states, err = free, free.Subgraphs[0], b, st, nil
				notes = append(notes, fmt.Sprintf("dynamic batch of input %s kept with %d RESHAPE shape(s) written with -1 where they follow the batch (the converted model held the batch 1 there)", strings.Join(dynNames, ", "), k))
			}
		}
	}
	if err != nil {
		return static, fmt.Sprintf("dynamic batch of input %s not kept (written at batch 1): %v", strings.Join(dynNames, ", "), err)
	}
	mark := func(ti int32) {
		t := sg.Tensors[ti]
		sig := append([]int32(nil), t.Shape...)
		if len(t.ShapeSignature) == len(sig) {
			// Dynamic inner dimensions kept (withDynamicDims).
			copy(sig, t.ShapeSignature)
		}
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
	if n := stateNote(mt, states); n != "" {
		notes = append(notes, n)
	}
	return tflite.Pack(mt), strings.Join(notes, "; ")
}

// reshapeDim names one dimension of the constant shape of a RESHAPE:
// subgraph, operator index, dimension.
type reshapeDim struct{ subgraph, op, dim int }

// reshapeShapes returns, for each RESHAPE of mt whose shape operand is a
// constant int32 vector, its values, keyed by subgraph and operator.
func reshapeShapes(mt *schema.ModelT) map[[2]int][]int32 {
	out := map[[2]int][]int32{}
	for si, sg := range mt.Subgraphs {
		for oi, op := range sg.Operators {
			if int(op.OpcodeIndex) >= len(mt.OperatorCodes) || mt.OperatorCodes[op.OpcodeIndex].BuiltinCode != schema.BuiltinOperatorRESHAPE || len(op.Inputs) < 2 || op.Inputs[1] < 0 || int(op.Inputs[1]) >= len(sg.Tensors) {
				continue
			}
			t := sg.Tensors[op.Inputs[1]]
			if t.Type != schema.TensorTypeINT32 || len(t.Shape) != 1 || t.Buffer == 0 || int(t.Buffer) >= len(mt.Buffers) {
				continue
			}
			data := mt.Buffers[t.Buffer].Data
			if len(data) != 4*int(t.Shape[0]) {
				continue
			}
			dims := make([]int32, t.Shape[0])
			for i := range dims {
				dims[i] = int32(uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24)
			}
			out[[2]int{si, oi}] = dims
		}
	}
	return out
}

// followingDims compares the RESHAPE shapes of the model converted at
// batch 1 (mt) with the same model converted at batch 2 (at2): a shape
// that differs in exactly one dimension, twice as large at batch 2 and
// with no -1 elsewhere, holds the batch there (a Keras TimeDistributed or
// Reshape layer computes it from the input's shape, which the converter
// folded at the pinned batch); a shape the same at both batches does not
// follow the batch (a constant of the model itself). Models of another
// structure at the two batches give none.
func followingDims(mt, at2 *schema.ModelT) []reshapeDim { return followingDimsBy(mt, at2, 2) }

// followingDimsBy is followingDims for a model converted at factor times
// the pinned size of the dimension looked at.
func followingDimsBy(mt, at2 *schema.ModelT, factor int32) []reshapeDim {
	if len(mt.Subgraphs) != len(at2.Subgraphs) {
		return nil
	}
	for si := range mt.Subgraphs {
		a, b := mt.Subgraphs[si].Operators, at2.Subgraphs[si].Operators
		if len(a) != len(b) {
			return nil
		}
		for i := range a {
			ca, cb := a[i].OpcodeIndex, b[i].OpcodeIndex
			if int(ca) >= len(mt.OperatorCodes) || int(cb) >= len(at2.OperatorCodes) || mt.OperatorCodes[ca].BuiltinCode != at2.OperatorCodes[cb].BuiltinCode {
				return nil
			}
		}
	}
	s1, s2 := reshapeShapes(mt), reshapeShapes(at2)
	var out []reshapeDim
	for key, d1 := range s1 {
		d2, ok := s2[key]
		if !ok || len(d2) != len(d1) {
			continue
		}
		diff, free := -1, true
		for k := range d1 {
			if d1[k] < 0 {
				free = false
			}
			if d1[k] != d2[k] {
				if diff >= 0 || d1[k] <= 0 || d2[k] != factor*d1[k] {
					free = false
				}
				diff = k
			}
		}
		if free && diff >= 0 {
			out = append(out, reshapeDim{key[0], key[1], diff})
		}
	}
	return out
}

// freeReshapeBatch writes -1 in the RESHAPE shape dimensions dims name
// (TFLite's RESHAPE computes a -1 from the element count), each on a
// tensor and buffer of its own (constants may be shared), and in the
// new_shape option likewise.
func freeReshapeBatch(mt *schema.ModelT, dims []reshapeDim) {
	shapes := reshapeShapes(mt)
	for _, d := range dims {
		v, ok := shapes[[2]int{d.subgraph, d.op}]
		if !ok || d.dim >= len(v) {
			continue
		}
		v = append([]int32(nil), v...)
		v[d.dim] = -1
		sg := mt.Subgraphs[d.subgraph]
		op := sg.Operators[d.op]
		b := make([]byte, 4*len(v))
		for i, x := range v {
			u := uint32(x)
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		}
		mt.Buffers = append(mt.Buffers, &schema.BufferT{Data: b})
		nt := *sg.Tensors[op.Inputs[1]]
		nt.Name += "/batch_free"
		nt.Buffer = uint32(len(mt.Buffers) - 1)
		sg.Tensors = append(sg.Tensors, &nt)
		op.Inputs[1] = int32(len(sg.Tensors) - 1)
		if o, ok := builtinValue(op).(*schema.ReshapeOptionsT); ok && o != nil && len(o.NewShape) == len(v) {
			o.NewShape = v
		}
	}
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

// builtinValue is op's options table (nil without one).
func builtinValue(op *schema.OperatorT) any {
	if op.BuiltinOptions == nil {
		return nil
	}
	return op.BuiltinOptions.Value
}

// innerCheck is the size the dynamic dimensions past the batch are
// checked at (withDynamicDims).
const innerCheck = 3

// withDynamicDims keeps the dynamic dimensions past the batch (inner, per
// input) of a model converted with them at 1 (mt): the same model
// converted with them at innerCheck (at3, its inputs' shapes shapes)
// tells which RESHAPE shapes follow them (written with -1 there), and
// the model so written, resized to those shapes, must give on probe
// inputs what the model converted there gives: every output of the same
// shape and values. It returns the rewritten model, with shape_signature
// -1 on those input dimensions and on the output dimensions that grew,
// and a note; the error says how the model fails at the other size.
func withDynamicDims(mt *schema.ModelT, at3 []byte, inner [][]int, shapes []ir.Shape) (*schema.ModelT, string, error) {
	m3 := schema.GetRootAsModel(at3, 0).UnPack()
	free := schema.GetRootAsModel(tflite.Pack(mt), 0).UnPack()
	dims := followingDimsBy(free, m3, innerCheck)
	freeReshapeBatch(free, dims)
	packed := tflite.Pack(free)
	sizes := make([][]int, len(shapes))
	for i, s := range shapes {
		sizes[i] = []int(s)
	}
	outShapes, err := sameRuns(packed, at3, sizes)
	if err != nil {
		return nil, "", err
	}
	sg := free.Subgraphs[0]
	var names []string
	for i, ds := range inner {
		if i >= len(sg.Inputs) || len(ds) == 0 {
			continue
		}
		t := sg.Tensors[sg.Inputs[i]]
		sig := append([]int32(nil), t.Shape...)
		for _, d := range ds {
			if d < len(sig) {
				sig[d] = -1
			}
		}
		t.ShapeSignature = sig
		names = append(names, fmt.Sprintf("%q dimension %v", t.Name, ds))
	}
	for k, o := range sg.Outputs {
		t := sg.Tensors[o]
		if k >= len(outShapes) || len(outShapes[k]) != len(t.Shape) {
			continue
		}
		sig := append([]int32(nil), t.Shape...)
		grew := false
		for d := range sig {
			if int(sig[d]) != outShapes[k][d] {
				sig[d], grew = -1, true
			}
		}
		if grew {
			t.ShapeSignature = sig
		}
	}
	return free, fmt.Sprintf("dynamic dimensions of input %s converted at 1 and kept (shape_signature -1; %d RESHAPE shape(s) written with -1 there): resized to %d, the model gives what it gives converted at %d",
		strings.Join(names, ", "), len(dims), innerCheck, innerCheck), nil
}

// sameRuns runs model a with its inputs resized to sizes and model b as
// it is on the same probe inputs, and demands the same outputs (shapes,
// and values as sameValues compares them); it returns a's output shapes.
func sameRuns(a, b []byte, sizes [][]int) ([][]int, error) {
	load := func(model []byte, resize bool) (*interpreter.Interpreter, error) {
		m, err := interpreter.LoadBytes(model)
		if err != nil {
			return nil, err
		}
		it, err := interpreter.New(m, nil)
		if err != nil {
			return nil, err
		}
		if resize {
			for i := 0; i < it.InputCount() && i < len(sizes); i++ {
				if err := it.ResizeInputTensor(i, sizes[i]); err != nil {
					return nil, err
				}
			}
		}
		if err := it.AllocateTensors(); err != nil {
			return nil, err
		}
		return it, nil
	}
	ia, err := load(a, true)
	if err != nil {
		return nil, err
	}
	defer ia.Close()
	ib, err := load(b, false)
	if err != nil {
		return nil, err
	}
	defer ib.Close()
	if ia.InputCount() != ib.InputCount() || ia.OutputCount() != ib.OutputCount() {
		return nil, fmt.Errorf("%d inputs and %d outputs, %d and %d as converted there", ia.InputCount(), ia.OutputCount(), ib.InputCount(), ib.OutputCount())
	}
	for i := 0; i < ia.InputCount(); i++ {
		if len(ia.Input(i).Data) != len(ib.Input(i).Data) {
			return nil, fmt.Errorf("input %d holds %d bytes, %d as converted there", i, len(ia.Input(i).Data), len(ib.Input(i).Data))
		}
		fillProbe(ia.Input(i), i)
		fillProbe(ib.Input(i), i)
	}
	if err := ia.Invoke(); err != nil {
		return nil, err
	}
	if err := ib.Invoke(); err != nil {
		return nil, err
	}
	var shapes [][]int
	for k := 0; k < ia.OutputCount(); k++ {
		oa, ob := ia.Output(k), ib.Output(k)
		if !ops.SameShape(oa.Shape, ob.Shape) {
			return nil, fmt.Errorf("output %d (%s) has shape %v, %v as converted there", k, oa.Name, oa.Shape, ob.Shape)
		}
		if !sameValues(oa.Type, oa.Data, ob.Data) {
			return nil, fmt.Errorf("output %d (%s) differs from the model converted there", k, oa.Name)
		}
		shapes = append(shapes, append([]int(nil), oa.Shape...))
	}
	return shapes, nil
}
