package fusion

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// LSTMCellSimple is the built-in rule for the composite interfaces
// "LSTMCellSimple" and "LayerNormalizedLstmCellSimple" (LayerNorm set)
// of TensorFlow Lite's converter (ConvertLSTMCellSimpleToFusedLSTM and
// ConvertLayerNormalizedLSTMCellSimpleToFusedLSTM in
// tensorflow/compiler/mlir/lite/utils/lstm_utils.cc): a function
// annotated _implements="LSTMCellSimple" (optionally followed by
// comma-separated tokens; "CoupleInputForgetGates" means CIFG) taking
// (input [batch, n_input], weight [n_input + n_output, gates·n_cell],
// bias [gates·n_cell], projection [n_cell, n_output] or a tensor of
// another rank for none[, layer_norm_scale [gates·n_cell]]) and returning
// one output [batch, n_output].
//
// The interface defines the mapping, as in TensorFlow's converter (the
// body is not inspected): the weight is transposed to [gates·n_cell,
// n_input + n_output] and cut into gate blocks in the order cell, input,
// forget, output (cell, forget, output with CIFG), each block's first
// n_input columns being the input weights and the rest the recurrent
// weights; the bias and layer-norm scale are cut likewise (the layer-norm
// scale at offsets 0, n_cell, 2·n_cell, 3·n_cell for cell, input, forget,
// output, TensorFlow's offsets); the projection is transposed, with a zero
// projection bias. It emits one LSTM operator (kernel type FULL, TANH,
// cell_clip CellClip, proj_clip 0) with zero-initialised variable state
// tensors [batch, n_output] and [batch, n_cell].
//
// Preconditions: the signature above with static shapes and constant
// weight, bias, projection and scale (TensorFlow only requires ranked
// types and leaves constancy to later passes; tflrun's fused kernels need
// constants).
type LSTMCellSimple struct {
	CellClip  float32
	LayerNorm bool
}

// Name implements Rule.
func (r LSTMCellSimple) Name() string {
	if r.LayerNorm {
		return "layer-normalized-lstm-cell-simple"
	}
	return "lstm-cell-simple"
}

// Fuse implements Rule.
func (r LSTMCellSimple) Fuse(s *Site) (Result, error) { return refusalResult(r.fuse(s)) }

func (r LSTMCellSimple) fuse(s *Site) (Result, error) {
	want := "LSTMCellSimple"
	nArgs := 4
	if r.LayerNorm {
		want, nArgs = "LayerNormalizedLstmCellSimple", 5
	}
	tokens := strings.Split(s.Name, ",")
	if strings.TrimSpace(tokens[0]) != want {
		return Result{}, refuse("the annotation %q is not %q", s.Name, want)
	}
	cifg := false
	for _, t := range tokens[1:] {
		switch strings.TrimSpace(t) {
		case "CoupleInputForgetGates":
			cifg = true
		case "":
		default:
			return Result{}, refuse("unknown option %q in the annotation", strings.TrimSpace(t))
		}
	}
	if len(s.Call.Inputs) != nArgs || len(s.Call.Outputs) != 1 {
		return Result{}, refuse("the function has %d inputs and %d outputs; %s takes %d and returns 1", len(s.Call.Inputs), len(s.Call.Outputs), want, nArgs)
	}
	x := s.Call.Inputs[0]
	if x.DType != ir.Float32 || x.Shape.Rank() != 2 {
		return Result{}, refuse("the input is %s%s; a float32 [batch, n_input] is needed", x.DType, x.Shape)
	}
	if !x.Shape.Static() {
		return Result{}, refuse("the batch size is not static (input shape %s); pin it with --input_shapes", x.Shape)
	}
	nIn := x.Shape[1]
	W, b, P := constValue(s.Call.Inputs[1]), constValue(s.Call.Inputs[2]), constValue(s.Call.Inputs[3])
	names := []string{"weight", "bias", "projection"}
	for i, t := range []*ir.Tensor{W, b, P} {
		if t == nil {
			return Result{}, refuse("the %s is not a constant (computed at run time); the fused LSTM needs constant weights", names[i])
		}
	}
	gates := 4
	if cifg {
		gates = 3
	}
	if W.Shape.Rank() != 2 || W.Shape[1]%gates != 0 {
		return Result{}, refuse("the weight has shape %s, want [n_input + n_output, %d·n_cell]", W.Shape, gates)
	}
	nCell := W.Shape[1] / gates
	nOut := nCell
	if P.Shape.Rank() == 2 {
		if P.Shape[0] != nCell {
			return Result{}, refuse("the projection has shape %s, want [%d, n_output]", P.Shape, nCell)
		}
		nOut = P.Shape[1]
	}
	if W.Shape[0] != nIn+nOut {
		return Result{}, refuse("the weight has %d rows, want n_input + n_output = %d + %d", W.Shape[0], nIn, nOut)
	}
	if !b.Shape.Equal(ir.Shape{gates * nCell}) {
		return Result{}, refuse("the bias has shape %s, want [%d]", b.Shape, gates*nCell)
	}
	var ln *ir.Tensor
	if r.LayerNorm {
		ln = constValue(s.Call.Inputs[4])
		if ln == nil {
			return Result{}, refuse("the layer-norm scale is not a constant")
		}
		// TensorFlow reads the scale at 0, n, 2n, 3n whatever the gate
		// count; with CIFG that leaves its layout ambiguous.
		if !ln.Shape.Equal(ir.Shape{4 * nCell}) {
			return Result{}, refuse("the layer-norm scale has shape %s, want [%d] (TensorFlow's offsets 0, n, 2n, 3n for cell, input, forget, output)", ln.Shape, 4*nCell)
		}
	}
	if o := s.Call.Outputs[0]; o.Shape.Rank() == 2 && o.Shape.Static() && !o.Shape.Equal(ir.Shape{x.Shape[0], nOut}) {
		return Result{}, refuse("the function returns %s, want [%d, %d]", o.Shape, x.Shape[0], nOut)
	}

	wv, bv := W.Float64s(), b.Float64s()
	cols := W.Shape[1]
	// Gate block k of the weight, transposed; input part then recurrent.
	block := func(k int) (in, rec *ir.Tensor) {
		wIn := make([]float32, nCell*nIn)
		wRec := make([]float32, nCell*nOut)
		for i := 0; i < nCell; i++ {
			c := k*nCell + i
			for j := 0; j < nIn; j++ {
				wIn[i*nIn+j] = float32(wv[j*cols+c])
			}
			for j := 0; j < nOut; j++ {
				wRec[i*nOut+j] = float32(wv[(nIn+j)*cols+c])
			}
		}
		return ir.FromFloat32s(ir.Shape{nCell, nIn}, wIn), ir.FromFloat32s(ir.Shape{nCell, nOut}, wRec)
	}
	g := &LSTMGates{CIFG: cifg}
	// TFLite gate index (input 0, forget 1, cell 2, output 3) → block.
	order := map[int]int{2: 0, 0: 1, 1: 2, 3: 3}
	if cifg {
		order = map[int]int{2: 0, 1: 1, 3: 2}
	}
	lnOffset := map[int]int{2: 0, 0: 1, 1: 2, 3: 3}
	for tg, blk := range order {
		g.Input[tg], g.Recurrent[tg] = block(blk)
		g.Bias[tg] = vecBlock(bv, blk*nCell, nCell)
		if ln != nil {
			g.LayerNorm[tg] = vecBlock(ln.Float64s(), lnOffset[tg]*nCell, nCell)
		}
	}
	if P.Shape.Rank() == 2 {
		pv := P.Float64s()
		g.Projection = gateBlockT(pv, nCell, nOut, 0, nOut)
		g.ProjectionBias = ir.FromFloat32s(ir.Shape{nOut}, make([]float32, nOut))
	}
	out, err := s.EmitLSTMCell(x, g, LSTMOptions{Activation: schema.ActivationFunctionTypeTANH, CellClip: r.CellClip})
	if err != nil {
		return Result{}, err
	}
	s.ReplaceOutput(0, out)
	note := fmt.Sprintf("n_input %d, n_cell %d, n_output %d", nIn, nCell, nOut)
	if cifg {
		note += ", CIFG"
	}
	if P.Shape.Rank() == 2 {
		note += ", projection"
	}
	if r.CellClip != 0 {
		note += fmt.Sprintf("; cell_clip %g as TensorFlow Lite's converter writes", r.CellClip)
	}
	return Result{Fused: true, Ops: []string{"LSTM"}, Reason: note}, nil
}

// EmbeddingMatmul is the built-in rule for the "embedding_matmul"
// composite of TensorFlow Lite's converter (ConvertEmbeddedLookupFunc in
// prepare_composite_functions_tf.cc): a function (table [rows, ...], ids)
// → table rows gathered by ids becomes one EMBEDDING_LOOKUP(ids, table);
// as the operator takes 1-D ids only, ids of another rank are flattened
// with a RESHAPE before and the rows reshaped after (TensorFlow's
// converter emits the operator on them as they are, which TFLite then
// refuses).
// Preconditions: two inputs and one output, as TensorFlow checks; int32
// ids (the operator's only index type) and a static output shape. When the
// body can be evaluated at conversion time, it is checked on probe ids to
// gather rows.
type EmbeddingMatmul struct{}

// Name implements Rule.
func (EmbeddingMatmul) Name() string { return "embedding-matmul" }

// Fuse implements Rule.
func (r EmbeddingMatmul) Fuse(s *Site) (Result, error) { return refusalResult(r.fuse(s)) }

func (EmbeddingMatmul) fuse(s *Site) (Result, error) {
	if len(s.Call.Inputs) != 2 || len(s.Call.Outputs) != 1 {
		return Result{}, refuse("the function has %d inputs and %d outputs; embedding_matmul takes (table, ids) and returns one tensor", len(s.Call.Inputs), len(s.Call.Outputs))
	}
	table, ids, out := s.Call.Inputs[0], s.Call.Inputs[1], s.Call.Outputs[0]
	if ids.DType != ir.Int32 {
		return Result{}, refuse("the ids are %s; EMBEDDING_LOOKUP takes int32 ids", ids.DType)
	}
	if !table.Shape.Static() || table.Shape.Rank() < 2 || !ids.Shape.Static() {
		return Result{}, refuse("the table (%s) and ids (%s) need static shapes, the table rank 2 or more", table.Shape, ids.Shape)
	}
	want := append(ids.Shape.Clone(), table.Shape[1:]...)
	if out.Shape != nil && !out.Shape.Equal(want) {
		if _, ok := ir.Merge(out.Shape, want); !ok {
			return Result{}, refuse("the function returns %s; gathering %s rows of %s gives %s", out.Shape, ids.Shape, table.Shape, want)
		}
	}
	if err := checkGather(s, want); err != nil {
		return Result{}, err
	}
	// The operator takes 1-D ids: others are flattened before and the
	// rows reshaped after.
	ops := []string{"EMBEDDING_LOOKUP"}
	lookup := ids
	count, _ := ids.Shape.NumElements()
	flat := append(ir.Shape{count}, table.Shape[1:]...)
	if ids.Shape.Rank() != 1 {
		lookup = emitReshape(s.Caller, s.Call.Name+"/ids", ids, ir.Shape{count})
		ops = append([]string{"RESHAPE"}, ops...)
	}
	n := s.Caller.NewTFL(s.Call.Name+"/embedding_lookup", &ir.TFLOp{Builtin: schema.BuiltinOperatorEMBEDDING_LOOKUP, Version: 1},
		[]*ir.Value{lookup, table}, ir.TypeShape{DType: table.DType, Shape: flat})
	rows := n.Outputs[0]
	if ids.Shape.Rank() != 1 {
		rows = emitReshape(s.Caller, s.Call.Name+"/rows", rows, want)
		ops = append(ops, "RESHAPE")
	}
	s.ReplaceOutput(0, rows)
	return Result{Fused: true, Ops: ops}, nil
}

// checkGather evaluates the composite on a probe table and probe ids when
// it folds, and refuses when it does not gather rows.
func checkGather(s *Site, outShape ir.Shape) error {
	g := s.Callee
	if s.Call.Inputs[0].DType != ir.Float32 {
		return nil // the probe table is float32
	}
	ts, is := s.Call.Inputs[0].Shape, s.Call.Inputs[1].Shape
	rows := ts[0]
	n, _ := is.NumElements()
	if rows <= 0 && n > 0 {
		return refuse("the embedding table has no rows to gather from")
	}
	idv := make([]int32, n)
	for i := range idv {
		idv[i] = int32((i*7 + 3) % rows)
	}
	table := ramp(ts)
	got, err := evaluate(g, map[*ir.Value]binding{g.Params[0]: {t: table}, g.Params[1]: {t: ir.FromInt32s(is, idv)}}, g.Results)
	if err != nil || got[0] == nil {
		return nil // not evaluable at conversion time: the interface decides
	}
	width := 1
	for _, d := range ts[1:] {
		width *= d
	}
	want := make([]float64, 0, n*width)
	tv := table.Float64s()
	for _, id := range idv {
		want = append(want, tv[int(id)*width:(int(id)+1)*width]...)
	}
	if !sameValues(got[0], outShape, want) {
		return refuse("the function does not gather table rows by id (checked on probe values)")
	}
	return nil
}
