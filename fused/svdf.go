package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// SVDF input indices (TFLite's svdf.cc).
const (
	svdfInput          = 0
	svdfWeightsFeature = 1
	svdfWeightsTime    = 2
	svdfBias           = 3
	svdfState          = 4
)

var svdfRoles = ioRoles{"input", "weights_feature", "weights_time", "bias", "state"}

// svdfPath is the arithmetic an SVDF node runs.
type svdfPath uint8

const (
	svdfFloat  svdfPath = iota // everything float32
	svdfHybrid                 // float activations, int8 weights
	svdfInt16                  // TFLite's integer SVDF: int16 weights_time and state
	svdfInt8                   // TFLite Micro's variant: int8 weights_time and state
)

// SVDF is the kernel of TFLite's SVDF (svdf.cc, reference/svdf.h),
// versions 1–4: a fully connected layer factorised into rank-1 filters,
// each a feature projection followed by a filter over the last
// memory_size projections.
//
// Inputs: 0 input [batch, n_input]; 1 weights_feature [num_filters,
// n_input]; 2 weights_time [num_filters, memory_size]; 3 bias [num_units]
// (optional), num_units = num_filters / rank; 4 state [batch, memory_size ·
// num_filters], a variable tensor holding each filter's last memory_size
// projections (oldest first), shifted by one at every Eval. Output 0:
// [batch, num_units]. Options: *SVDFOptions (rank > 0 and dividing
// num_filters; activation; asymmetric_quantize_inputs).
//
// Each step: shift the state left by one, write the new projections
// weights_feature·input into each filter's last slot, take each filter's
// dot product with its weights_time row, sum the rank filters of each
// unit, add the bias and apply the activation.
//
// Paths:
//   - float32 throughout (TFLite's EvalFloatSVDF).
//   - hybrid (EvalHybridSVDF): float32 input, bias, state and output, int8
//     weights_feature and weights_time (per tensor, zero point 0; uint8
//     tensors holding int8 bit patterns, TFLite's legacy form, are read
//     as int8 as TFLite does); the
//     input is quantised per batch row (asymmetrically with
//     asymmetric_quantize_inputs), weights_time is dequantised.
//   - integer (EvalIntegerSVDF): int8 input and output, int8
//     weights_feature, int16 weights_time, int32 bias, int16 state (the
//     zero points of the weights and the state are not used); the
//     projections are requantised to the state with
//     input·weights_feature/state scales and the output with
//     state·weights_time/output scales, TFLite's double rounding. TFLite
//     requires the RELU activation here but applies none beyond the int8
//     clamp; so does tflrun.
//   - int8 state (TFLite Micro's svdf_common.cc only; TFLite itself reads
//     past the buffers): int8 weights_time and state with the state's zero
//     point, effective scales computed in float32 as TFLite Micro does, and
//     a bias whose scale must equal state·weights_time within 1e-5.
type SVDF struct {
	prepared bool
	path     svdfPath
	act      ops.Activation
	asym     bool

	rank, batch, nInput, filters, units, memory int

	// Hybrid: weights_feature scale, weights_time dequantised once per
	// Prepare (at the first Eval, as TFLite), and the weights_feature row
	// sums for asymmetric inputs.
	wfScale, wtScale float32
	wtFloat          []float32
	wtReady          bool
	rowSums          []int32
	rowSumsReady     bool

	// Integer: the two requantisation multipliers and the zero points;
	// wfSums (-zp_in·Σ weights_feature row) and wtSums (Σ weights_time
	// row) fold the input and state zero points into the products
	// (computed at the first Eval).
	scale1A, scale2A        int32
	scale1B, scale2B        int
	inZP, outZP, stateZP    int32
	wfSums, wtSums          []int32
	intSumsReady            bool
	idScratch, idOut        int
	idNewState              int
	hybrid                  rnnHybridScratchIDs
	sizes                   ioSizes
	hasBias                 bool
	stateElems, outputElems int
}

// NewSVDF returns a kernel for one SVDF node.
func NewSVDF() ops.Kernel { return &SVDF{} }

// SVDFOptions is TFLite's SVDFOptions (operator SVDF).
type SVDFOptions struct {
	// Rank is the number of filters per output unit.
	Rank                     int
	Activation               ops.Activation
	AsymmetricQuantizeInputs bool
}

func init() {
	// Versions 1–4 as TFLite registers: float, hybrid, integer, asymmetric
	// hybrid.
	register(ops.OpSVDF, NewSVDF, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsSVDFOptions, decodeSVDFOptions)
}

// decodeSVDFOptions decodes TFLite's SVDFOptions table.
func decodeSVDFOptions(t ops.OptionsTable) (any, error) {
	var o schema.SVDFOptions
	initTable(&o, t)
	return &SVDFOptions{
		Rank:                     int(o.Rank()),
		Activation:               ops.Activation(o.FusedActivationFunction()),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
	}, nil
}

// Prepare validates the node as TFLite's Prepare does (plus ranks, types of
// every tensor for the chosen path, the state being a variable, memory_size
// ≥ 1 and, on the hybrid path, symmetric weights), derives the integer multipliers, sets the
// output shape and the state's batch, and requests scratch. Errors name
// the input.
func (k *SVDF) Prepare(n *ops.Node) error {
	k.prepared = false
	if err := n.CheckIO(5, 5, 1); err != nil {
		return err
	}
	opts := &SVDFOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*SVDFOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *SVDFOptions", n.Options)
		}
		opts = o
	}
	if err := rnnActivation(opts.Activation); err != nil {
		return err
	}
	k.act, k.asym = opts.Activation, opts.AsymmetricQuantizeInputs
	roles := svdfRoles
	in, err := roles.require(n, svdfInput)
	if err != nil {
		return err
	}
	if err := roles.rank(n, svdfInput, 2); err != nil {
		return err
	}
	wf, err := roles.require(n, svdfWeightsFeature)
	if err != nil {
		return err
	}
	if err := roles.rank(n, svdfWeightsFeature, 2); err != nil {
		return err
	}
	wt, err := roles.require(n, svdfWeightsTime)
	if err != nil {
		return err
	}
	if err := roles.rank(n, svdfWeightsTime, 2); err != nil {
		return err
	}
	k.batch, k.nInput = in.Dim(0), in.Dim(1)
	k.filters, k.memory = wf.Dim(0), wt.Dim(1)
	k.rank = opts.Rank
	if k.rank <= 0 {
		return fmt.Errorf("rank option is %d, needs > 0", k.rank)
	}
	if k.filters%k.rank != 0 {
		return fmt.Errorf("%s has %d filters, not a multiple of rank %d", roles.label(n, svdfWeightsFeature), k.filters, k.rank)
	}
	k.units = k.filters / k.rank
	if wf.Dim(1) != k.nInput {
		return fmt.Errorf("%s has shape %v, needs [num_filters, %d] (the input size)", roles.label(n, svdfWeightsFeature), wf.Shape, k.nInput)
	}
	if wt.Dim(0) != k.filters {
		return fmt.Errorf("%s has shape %v, needs [%d, memory_size] (num_filters rows)", roles.label(n, svdfWeightsTime), wt.Shape, k.filters)
	}
	if k.memory < 1 {
		return fmt.Errorf("%s has shape %v: memory_size must be at least 1", roles.label(n, svdfWeightsTime), wt.Shape)
	}
	bias := n.Input(svdfBias)
	k.hasBias = bias != nil
	if k.hasBias {
		if err := roles.shape(n, svdfBias, k.units); err != nil {
			return err
		}
	}
	stateCols, err := ops.ShapeElements([]int{k.memory, k.filters}, 0)
	if err != nil {
		return fmt.Errorf("%s: memory_size × num_filters: %v", roles.label(n, svdfState), err)
	}
	if err := roles.state(n, svdfState, k.batch, stateCols); err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return fmt.Errorf("output 0 is missing")
	}

	switch {
	case in.Type == ops.Float32 && wf.Type == ops.Float32:
		k.path = svdfFloat
		err = k.checkTypes(n, out, "float", ops.Float32, ops.Float32, ops.Float32, ops.Float32, ops.Float32)
	case in.Type == ops.Float32 && (wf.Type == ops.Int8 || wf.Type == ops.Uint8):
		k.path = svdfHybrid
		err = k.prepareHybrid(n, out, wf.Type)
	case in.Type == ops.Int8 && wt.Type == ops.Int16:
		k.path = svdfInt16
		err = k.prepareInteger(n, out)
	case in.Type == ops.Int8 && wt.Type == ops.Int8:
		k.path = svdfInt8
		err = k.prepareInteger(n, out)
	case in.Type == ops.Float32:
		err = fmt.Errorf("%s is %s; SVDF takes float32 (float path) or int8 (hybrid path) weights", roles.label(n, svdfWeightsFeature), wf.Type)
	case in.Type == ops.Int8:
		err = fmt.Errorf("%s is %s; the integer SVDF needs int16 (TFLite) or int8 (TFLite Micro) weights_time", roles.label(n, svdfWeightsTime), wt.Type)
	default:
		err = fmt.Errorf("%s is %s; SVDF takes float32 or int8 input", roles.label(n, svdfInput), in.Type)
	}
	if err != nil {
		return err
	}
	if _, err := outputShape(n, 0, k.batch, k.units); err != nil {
		return err
	}

	// Scratch: the per-filter values (float32 or int32) and, on the
	// integer paths, the per-unit int32 sums.
	k.stateElems = k.batch * stateCols
	k.outputElems = k.batch * k.units
	k.idScratch = n.RequestScratch(scratchBytes[float32](k.batch * k.filters))
	switch k.path {
	case svdfHybrid:
		k.hybrid.request(n, k.batch, k.nInput, k.filters)
	case svdfInt16, svdfInt8:
		k.idOut = n.RequestScratch(scratchBytes[int32](k.batch * k.units))
		k.idNewState = n.RequestScratch(k.newStateBytes())
	}
	k.sizes.record(n)
	k.prepared = true
	return nil
}

// checkTypes checks input, weights_feature, weights_time, bias, state and
// output types for one path.
func (k *SVDF) checkTypes(n *ops.Node, out *ops.Tensor, path string, in, wf, wt, bias, state ops.DataType) error {
	roles := svdfRoles
	want := []struct {
		idx int
		typ ops.DataType
	}{{svdfInput, in}, {svdfWeightsFeature, wf}, {svdfWeightsTime, wt}, {svdfBias, bias}, {svdfState, state}}
	for _, w := range want {
		if n.Input(w.idx) == nil {
			continue
		}
		if err := roles.dtype(n, w.idx, w.typ, path); err != nil {
			return err
		}
	}
	outType := ops.Float32
	if in == ops.Int8 {
		outType = ops.Int8
	}
	if out.Type != outType {
		return fmt.Errorf("output 0 (tensor %d) is %s, the %s path needs %s", out.Index, out.Type, path, outType)
	}
	return nil
}

// prepareHybrid checks the hybrid path and reads the weight scales; wtype
// is int8, or uint8 holding int8 bit patterns (TFLite's legacy form).
func (k *SVDF) prepareHybrid(n *ops.Node, out *ops.Tensor, wtype ops.DataType) error {
	if err := k.checkTypes(n, out, "hybrid", ops.Float32, wtype, wtype, ops.Float32, ops.Float32); err != nil {
		return err
	}
	var err error
	if k.wfScale, err = svdfRoles.hybridWeightScale(n, svdfWeightsFeature, wtype); err != nil {
		return err
	}
	if k.wtScale, err = svdfRoles.hybridWeightScale(n, svdfWeightsTime, wtype); err != nil {
		return err
	}
	if k.wtFloat, err = ops.Alloc[float32](n, k.filters*k.memory, "SVDF float time weights"); err != nil {
		return err
	}
	k.wtReady = false
	if k.rowSums, err = ops.Alloc[int32](n, k.filters, "SVDF weight row sums"); err != nil {
		return err
	}
	k.rowSumsReady = false
	return nil
}

// Eval runs one step, shifting and updating the state. It allocates
// nothing.
func (k *SVDF) Eval(n *ops.Node) error {
	if !k.prepared {
		return errUnprepared
	}
	if err := k.sizes.check(n); err != nil {
		return err
	}
	switch k.path {
	case svdfFloat, svdfHybrid:
		return k.evalFloat(n)
	}
	return k.evalInteger(n)
}

// evalFloat is TFLite's EvalFloatSVDF and EvalHybridSVDF.
func (k *SVDF) evalFloat(n *ops.Node) error {
	B, F, M := k.batch, k.filters, k.memory
	scratch, ok := scratchView[float32](scratchOf(n, k.idScratch), B*F)
	if !ok {
		return errScratch
	}
	x := n.Inputs[svdfInput].Float32s()[:B*k.nInput]
	state := n.Inputs[svdfState].Float32s()[:k.stateElems]
	out := n.Outputs[0].Float32s()[:k.outputElems]

	if len(state) > 0 {
		copy(state, state[1:])
	}
	clear(scratch)
	var wt []float32
	if k.path == svdfFloat {
		wf := n.Inputs[svdfWeightsFeature].Float32s()
		for b := 0; b < B; b++ {
			arch.MatVecMulAcc(scratch[b*F:b*F+F], wf, F, k.nInput, x[b*k.nInput:])
		}
		wt = n.Inputs[svdfWeightsTime].Float32s()
	} else {
		if err := k.hybridFeatures(n, x, scratch); err != nil {
			return err
		}
		wt = k.wtFloat
	}
	for i, v := range scratch {
		state[i*M+M-1] = v
	}
	// Each filter's dot product with its weights_time row.
	for b := 0; b < B; b++ {
		sb := state[b*M*F:]
		for f := 0; f < F; f++ {
			scratch[b*F+f] = arch.Dot(wt[f*M:f*M+M], sb[f*M:])
		}
	}
	// Sum each unit's rank filters, add the bias, apply the activation.
	for o := range out {
		var sum float32
		for _, v := range scratch[o*k.rank : o*k.rank+k.rank] {
			sum += v
		}
		out[o] = sum
	}
	if k.hasBias {
		bias := n.Inputs[svdfBias].Float32s()[:k.units]
		for b := 0; b < B; b++ {
			row := out[b*k.units : b*k.units+k.units]
			for u, v := range bias {
				row[u] += v
			}
		}
	}
	applyActivationFloat(out, k.act)
	return nil
}

// hybridFeatures computes the feature projections of the hybrid path into
// scratch (zeroed by the caller): the input is quantised per batch row
// unless it is all zeros, and multiplied with the int8 weights_feature.
func (k *SVDF) hybridFeatures(n *ops.Node, x, scratch []float32) error {
	B, F := k.batch, k.filters
	s, err := k.hybrid.views(n, B, k.nInput, F)
	if err != nil {
		return err
	}
	// As TFLite, uint8 hybrid weights are read as int8 bytes.
	wf := ops.View[int8](n.Inputs[svdfWeightsFeature].Data)
	if !k.wtReady {
		wtq := ops.View[int8](n.Inputs[svdfWeightsTime].Data)
		for i := range k.wtFloat {
			k.wtFloat[i] = float32(wtq[i]) * k.wtScale
		}
		k.wtReady = true
	}
	var rowSums []int32
	if k.asym {
		if !k.rowSumsReady {
			arch.RowSumsInt8(k.rowSums, wf, F, k.nInput)
			k.rowSumsReady = true
		}
		rowSums = k.rowSums
	}
	if isZeroFloat(x) {
		return nil
	}
	batchQuantizeFloats(x, B, k.nInput, s.q, s.sf, s.zp, k.asym)
	for b := 0; b < B; b++ {
		sf := float32(s.sf[b] * k.wfScale)
		hybridMatVecAcc(scratch[b*F:b*F+F], wf, F, k.nInput, s.q[b*k.nInput:b*k.nInput+k.nInput], sf, s.zp[b], rowSums, s.acc)
	}
	return nil
}
