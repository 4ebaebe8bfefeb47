package fused

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// prepareInteger checks the two integer SVDF paths and derives their
// requantisation multipliers.
//
// TFLite's path (int16 weights_time and state) follows svdf.cc: the
// effective scales input·weights_feature/state and
// state·weights_time/output are computed in double precision; the
// activation option must be RELU (TFLite checks it at Eval); the zero
// points of the state and of both weights are not used (taken as 0). TFLite Micro's path (int8 weights_time and state)
// follows svdf_common.cc: the scales are computed in float32 and then
// widened, the state's zero point is honoured, and the bias scale must
// match state·weights_time.
func (k *SVDF) prepareInteger(n *ops.Node, out *ops.Tensor) error {
	roles := svdfRoles
	stateType, path := ops.Int16, "integer (int16 state)"
	if k.path == svdfInt8 {
		stateType, path = ops.Int8, "integer (int8 state, TFLite Micro)"
	}
	if err := k.checkTypes(n, out, path, ops.Int8, ops.Int8, stateType, ops.Int32, stateType); err != nil {
		return err
	}
	inScale, inZP, err := roles.perTensor(n, svdfInput)
	if err != nil {
		return err
	}
	// Both kernels read only the weights' scales: their zero points are
	// taken as 0 whatever the model says (TFLite's own integer SVDF test
	// quantises weights_feature with zero point -1 and expects exactly
	// that arithmetic).
	wfScale, _, err := roles.perTensor(n, svdfWeightsFeature)
	if err != nil {
		return err
	}
	wtScale, _, err := roles.perTensor(n, svdfWeightsTime)
	if err != nil {
		return err
	}
	stateScale, stateZP, err := roles.perTensor(n, svdfState)
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuantOf(out, "output 0")
	if err != nil {
		return err
	}
	k.inZP, k.outZP, k.stateZP = inZP, outZP, stateZP
	if k.path == svdfInt16 {
		// TFLite's int16 path treats the state as symmetric: a zero point
		// in the model is not used (the state starts at zero bytes).
		k.stateZP = 0
	}

	var s1, s2 float64
	if k.path == svdfInt16 {
		if k.act != ops.ActRelu {
			return fmt.Errorf("fused activation is %s; TFLite's integer SVDF requires RELU", k.act)
		}
		s1 = float64(inScale) * float64(wfScale) / float64(stateScale)
		s2 = float64(stateScale) * float64(wtScale) / float64(outScale)
	} else {
		// TFLite Micro multiplies and divides the float32 scales in float32.
		s1 = float64(float32(inScale*wfScale) / stateScale)
		s2 = float64(float32(stateScale*wtScale) / outScale)
		if k.hasBias {
			biasScale, _, err := roles.perTensor(n, svdfBias)
			if err != nil {
				return err
			}
			if d := math.Abs(float64(biasScale) - float64(float32(stateScale*wtScale))); !(d < 1e-5) {
				return fmt.Errorf("%s has scale %g; TFLite Micro's int8 SVDF needs state scale × weights_time scale = %g (within 1e-5)",
					roles.label(n, svdfBias), biasScale, float32(stateScale*wtScale))
			}
		}
	}
	if !(s1 > 0) || math.IsInf(s1, 0) || !(s2 > 0) || math.IsInf(s2, 0) {
		return fmt.Errorf("effective scales %g and %g must be finite and > 0", s1, s2)
	}
	k.scale1A, k.scale1B = ops.QuantizeMultiplier(s1)
	k.scale2A, k.scale2B = ops.QuantizeMultiplier(s2)
	if k.scale1B > 30 || k.scale2B > 30 {
		return fmt.Errorf("effective scales %g and %g are too large to requantise in int32 (shift above 30)", s1, s2)
	}
	if k.wfSums, err = ops.Alloc[int32](n, k.filters, "SVDF weight sums"); err != nil {
		return err
	}
	if k.wtSums, err = ops.Alloc[int32](n, k.filters, "SVDF weight sums"); err != nil {
		return err
	}
	k.intSumsReady = false
	return nil
}

// evalInteger runs the integer SVDF (TFLite's EvalIntegerSVDF with int16
// state, or TFLite Micro's int8-state variant). Integer sums wrap as the
// C++ int32 arithmetic does; the zero-point corrections are folded into
// row sums, which gives the same result modulo 2^32. Both requantisations
// run over whole slices through arch (RequantizeAccInt16 and
// RequantizeInt8: TFLite's MultiplyByQuantizedMultiplier, saturated).
func (k *SVDF) evalInteger(n *ops.Node) error {
	B, F, M, U := k.batch, k.filters, k.memory, k.units
	scratch, ok1 := scratchView[int32](scratchOf(n, k.idScratch), B*F)
	outTemp, ok2 := scratchView[int32](scratchOf(n, k.idOut), B*U)
	newState, ok3 := scratchOf(n, k.idNewState), true
	if !ok1 || !ok2 || !ok3 || len(newState) < k.newStateBytes() {
		return errScratch
	}
	x := n.Inputs[svdfInput].Int8s()[:B*k.nInput]
	wf := n.Inputs[svdfWeightsFeature].Int8s()
	if !k.intSumsReady {
		// wfSums becomes the projections' starting value, the
		// input zero point's term -zp_in·Σwf (wrapping, as the sum).
		arch.RowSumsInt8(k.wfSums, wf, F, k.nInput)
		for f, v := range k.wfSums {
			k.wfSums[f] = -k.inZP * v
		}
		if k.path == svdfInt8 {
			arch.RowSumsInt8(k.wtSums, n.Inputs[svdfWeightsTime].Int8s(), F, M)
		}
		k.intSumsReady = true
	}

	// Feature projections Σ wf·(x − zp_in) = -zp_in·Σwf + Σ wf·x.
	for b := 0; b < B; b++ {
		acc := scratch[b*F : b*F+F]
		copy(acc, k.wfSums)
		arch.MatVecMulAccInt8(acc, wf, F, k.nInput, x[b*k.nInput:])
	}

	// Shift every filter's memory left by one (one move of the whole state:
	// each filter's first value lands in the previous filter's last slot,
	// which the new projection then overwrites), requantise the
	// projections to the state and store them in the last slots, then
	// take each filter's dot product with its weights_time row.
	if k.path == svdfInt16 {
		state := n.Inputs[svdfState].Int16s()[:k.stateElems]
		wt := n.Inputs[svdfWeightsTime].Int16s()[:F*M]
		if len(state) > 0 {
			copy(state, state[1:])
		}
		q, _ := scratchView[int16](newState, B*F)
		clear(q)
		arch.RequantizeAccInt16(q, scratch, k.scale1A, k.scale1B)
		for i, v := range q {
			state[i*M+M-1] = v
		}
		for b := 0; b < B; b++ {
			arch.DotRowsInt16(scratch[b*F:b*F+F], wt, state[b*F*M:(b+1)*F*M], F, M)
		}
	} else {
		state := n.Inputs[svdfState].Int8s()[:k.stateElems]
		wt := n.Inputs[svdfWeightsTime].Int8s()[:F*M]
		if len(state) > 0 {
			copy(state, state[1:])
		}
		// TFLite Micro adds the state's zero point before the clamp.
		q, _ := scratchView[int8](newState, B*F)
		arch.RequantizeInt8(q, scratch, k.scale1A, k.scale1B, k.stateZP, -128, 127)
		for i, v := range q {
			state[i*M+M-1] = v
		}
		for b := 0; b < B; b++ {
			sb := state[b*M*F : b*M*F+M*F]
			for f := 0; f < F; f++ {
				scratch[b*F+f] = arch.DotInt8(wt[f*M:f*M+M], sb[f*M:f*M+M]) - k.stateZP*k.wtSums[f]
			}
		}
	}

	// Sum each unit's rank filters, add the bias, requantise to the output.
	sums := scratch
	if k.rank > 1 {
		for o := range outTemp {
			var sum int32
			for _, v := range scratch[o*k.rank : o*k.rank+k.rank] {
				sum += v
			}
			outTemp[o] = sum
		}
		sums = outTemp
	}
	if k.hasBias {
		bias := n.Inputs[svdfBias].Int32s()[:U]
		for b := 0; b < B; b++ {
			row := sums[b*U : b*U+len(bias)]
			for u, v := range bias {
				row[u] += v
			}
		}
	}
	out := n.Outputs[0].Int8s()[:k.outputElems]
	arch.RequantizeInt8(out, sums[:k.outputElems], k.scale2A, k.scale2B, k.outZP, -128, 127)
	return nil
}

// newStateBytes is the size of the scratch holding the requantised
// projections before they enter the state: B·F int16 or int8 values.
func (k *SVDF) newStateBytes() int {
	if k.path == svdfInt16 {
		return scratchBytes[int16](k.batch * k.filters)
	}
	return scratchBytes[int8](k.batch * k.filters)
}
