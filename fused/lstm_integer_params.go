package fused

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// quantMultiplier is a real scale as a Q0.31 multiplier and a power-of-two
// shift (scale ≈ multiplier·2^(shift-31)), TFLite's (scale_a, scale_b).
type quantMultiplier struct {
	multiplier int32
	shift      int
}

// lstmIntegerParams are the int8x8_16 LSTM's derived parameters (TFLite's
// IntegerLstmParameter, filled by PopulateQuantizedLstmParams8x8_16 and
// PopulatePrecomputedZPTimesWeightsWithBias).
type lstmIntegerParams struct {
	// Per gate: the effective scales of the input and recurrent products
	// and of the peephole term (to the gate's pre-activation scale), the
	// layer-norm scale and variance guard.
	inputToGate     [numGates]quantMultiplier
	recurrentToGate [numGates]quantMultiplier
	cellToGate      [numGates]quantMultiplier
	layerNorm       [numGates]quantMultiplier
	varianceGuard   [numGates]int32
	// Per gate: bias (without layer norm) plus the zero-point correction
	// -zp·Σ_row w of the input and recurrent products, precomputed.
	inputEffectiveBias     [numGates][]int32
	recurrentEffectiveBias [numGates][]int32
	// Projection: effective scale and bias + hidden_zp·Σ_row w.
	projection              quantMultiplier
	projectionEffectiveBias []int32
	// hidden is the effective scale of o⊙tanh(c) (two Q0.15 values) to the
	// hidden intermediate's scale; hiddenZP its zero point.
	hidden   quantMultiplier
	hiddenZP int32
	// outputStateZP is the output state's zero point.
	outputStateZP int32
	// cellScale is log2 of the cell state's scale (-30..-9 for LSTM,
	// -30..1 for UNIDIRECTIONAL_SEQUENCE_LSTM).
	cellScale int
	// tanhSkipped: the cell state has 15+cellScale integer bits outside
	// TFLite's ApplyTanh range 0..6, for which TFLite's portable ApplyTanh
	// writes nothing; its output buffer is then the step's input-gate
	// scratch, so o⊙tanh(c) becomes o⊙i (see outputInteger).
	tanhSkipped bool
	// cellClip and projClip are the quantised clips, 0 for none.
	cellClip int16
	projClip int8
}

// lstmIntegerParamsFor derives the integer parameters from the node's
// quantisation, following TFLite's PopulateQuantizedLstmParams8x8_16 step
// by step, with its float32 (and, where TFLite uses std::pow, float64)
// arithmetic so that the multipliers come out bit-identical. TFLite ignores
// errors here and runs with uninitialised parameters; this function
// returns them instead. t's shapes and types are already checked.
//
// sequence selects UNIDIRECTIONAL_SEQUENCE_LSTM's checks (which accept any
// power-of-two cell-state scale) over LSTM's (scale at most 2^-9).
func lstmIntegerParamsFor(n *ops.Node, t *lstmTensors, cfg *lstmConfig, sequence bool) (*lstmIntegerParams, error) {
	p := &lstmIntegerParams{}
	scaleOf := func(x *ops.Tensor, idx int) (float32, error) {
		return perTensorScale(x, lstmInputName(idx))
	}
	cellStateScale, err := scaleOf(t.cellState, lstmCellState)
	if err != nil {
		return nil, err
	}
	outputScale, err := perTensorScale(n.Outputs[0], "output 0")
	if err != nil {
		return nil, err
	}
	if cfg.cellClip > 0 {
		p.cellClip = int16(min(max(cfg.cellClip/cellStateScale, -32768), 32767))
	}
	if cfg.projClip > 0 {
		// TFLite divides by the output tensor's scale, not the output
		// state's.
		p.projClip = int8(min(max(cfg.projClip/outputScale, -128), 127))
	}

	// Intermediates 0..3 carry the gates' pre-activation scales with layer
	// norm; without it the gates are Q3.12. Intermediate 4 is the hidden
	// state (o⊙tanh(c) before projection).
	if len(n.Intermediates) != 5 {
		return nil, fmt.Errorf("the integer LSTM needs exactly 5 intermediate tensors, has %d", len(n.Intermediates))
	}
	var interScale [5]float32
	var interZP [5]int32
	for i := 0; i < 5; i++ {
		if i < numGates && !cfg.layerNorm {
			interScale[i] = 1.0 / 4096
			continue
		}
		it := n.Intermediates[i]
		if it == nil {
			return nil, fmt.Errorf("intermediate %d is omitted", i)
		}
		s, err := perTensorScale(it, fmt.Sprintf("intermediate %d", i))
		if err != nil {
			return nil, err
		}
		interScale[i], interZP[i] = s, it.ZeroPoint()
	}

	inputScale, err := scaleOf(t.input, lstmInputTensor)
	if err != nil {
		return nil, err
	}
	outputStateScale, err := scaleOf(t.outputState, lstmOutputState)
	if err != nil {
		return nil, err
	}
	cellScale, ok := checkedLog2(cellStateScale)
	if !ok {
		return nil, fmt.Errorf("%s has scale %g, the integer LSTM needs a power of two", lstmInputName(lstmCellState), cellStateScale)
	}
	if !sequence && cellScale > -9 {
		// LSTM's Prepare checks this; UNIDIRECTIONAL_SEQUENCE_LSTM's has
		// the check commented out.
		return nil, fmt.Errorf("%s has scale 2^%d; TFLite's LSTM needs at most 2^-9", lstmInputName(lstmCellState), cellScale)
	}
	if cellScale < -30 || cellScale > 1 {
		// UpdateLstmCellInteger rescales i⊙g by 2^-(30+cellScale) with
		// gemmlowp's RoundingDivideByPOT, whose exponent must lie in 0..31
		// (anything else is undefined behaviour in TFLite's C++).
		return nil, fmt.Errorf("%s has scale 2^%d: TFLite's cell update shifts by 30%+d bits, outside 0..31 (undefined in its C++); supported: 2^-30 to 2^1", lstmInputName(lstmCellState), cellScale, cellScale)
	}
	p.cellScale = cellScale
	if bits := 15 + cellScale; bits < 0 || bits > 6 {
		if cfg.cifg {
			// The buffer is the input-gate scratch, which CIFG never
			// writes: TFLite's output is whatever memory it holds.
			return nil, fmt.Errorf("%s has scale 2^%d: TFLite's ApplyTanh handles 0..6 integer bits and leaves its output, the unused input-gate scratch of a CIFG LSTM, unwritten (undefined result)", lstmInputName(lstmCellState), cellScale)
		}
		p.tanhSkipped = true
	}

	quantize := func(scale float32, what string) (quantMultiplier, error) {
		f := float64(scale)
		if !math.IsInf(f, 0) && !math.IsNaN(f) {
			if m, s := ops.QuantizeMultiplier(f); s <= 31 {
				return quantMultiplier{m, s}, nil
			}
		}
		return quantMultiplier{}, fmt.Errorf("effective scale of %s is %g, out of the representable range", what, scale)
	}
	for g := 0; g < numGates; g++ {
		if g == gateInput && cfg.cifg {
			continue
		}
		wIn, err := scaleOf(t.inputToGate[g], inputToGateIndex[g])
		if err != nil {
			return nil, err
		}
		wRec, err := scaleOf(t.recurrentToGate[g], recurrentToGateIndex[g])
		if err != nil {
			return nil, err
		}
		if p.inputToGate[g], err = quantize(wIn*inputScale/interScale[g], lstmInputNames[inputToGateIndex[g]]); err != nil {
			return nil, err
		}
		if p.recurrentToGate[g], err = quantize(wRec*outputStateScale/interScale[g], lstmInputNames[recurrentToGateIndex[g]]); err != nil {
			return nil, err
		}
		if cfg.peephole && g != gateCell {
			wc, err := scaleOf(t.cellToGate[g], cellToGateIndex[g])
			if err != nil {
				return nil, err
			}
			eff := float32(math.Pow(2, float64(cellScale)) * float64(wc) / float64(interScale[g]))
			if p.cellToGate[g], err = quantize(eff, lstmInputNames[cellToGateIndex[g]]); err != nil {
				return nil, err
			}
		}
		lnScale := float32(1)
		if cfg.layerNorm {
			if lnScale, err = scaleOf(t.layerNorm[g], layerNormIndex[g]); err != nil {
				return nil, err
			}
		}
		if p.layerNorm[g], err = quantize(lnScale, lstmInputNames[layerNormIndex[g]]); err != nil {
			return nil, err
		}
		// TFLite's guard keeps the inverse square root from overflowing.
		p.varianceGuard[g] = max(1, saturatingFloatToInt32(10000*lnScale))
	}
	hiddenScale := float32(math.Pow(2, -15) / float64(interScale[4]) * math.Pow(2, -15))
	if p.hidden, err = quantize(hiddenScale, "the hidden state"); err != nil {
		return nil, err
	}
	p.hiddenZP = interZP[4]
	p.outputStateZP = t.outputState.ZeroPoint()
	if cfg.projection {
		wp, err := scaleOf(t.projWeights, lstmProjectionWeights)
		if err != nil {
			return nil, err
		}
		if p.projection, err = quantize(wp*interScale[4]/outputStateScale, "projection_weights"); err != nil {
			return nil, err
		}
	}

	// Zero-point corrections folded into the biases. Without layer norm the
	// gate bias joins the input product's bias; with layer norm it is added
	// after normalisation instead.
	inputZP := -t.input.ZeroPoint()
	outputStateZP := -p.outputStateZP
	for g := 0; g < numGates; g++ {
		if g == gateInput && cfg.cifg {
			continue
		}
		var bias []int32
		if !cfg.layerNorm {
			bias = t.gateBias[g].Int32s()
		}
		p.inputEffectiveBias[g] = zeroPointTimesWeightsPlusBias(inputZP, t.inputToGate[g].Int8s(), cfg.nCell, cfg.nInput, bias)
		p.recurrentEffectiveBias[g] = zeroPointTimesWeightsPlusBias(outputStateZP, t.recurrentToGate[g].Int8s(), cfg.nCell, cfg.nOutput, nil)
	}
	if cfg.projection {
		var bias []int32
		if t.projBias != nil {
			bias = t.projBias.Int32s()
		}
		p.projectionEffectiveBias = zeroPointTimesWeightsPlusBias(p.hiddenZP, t.projWeights.Int8s(), cfg.nOutput, cfg.nCell, bias)
	}
	return p, nil
}

// zeroPointTimesWeightsPlusBias returns bias[r] + zp·Σ_c w[r*cols+c] for
// each row (TFLite's PrecomputeZeroPointTimesWeightWithBias); bias may be
// nil for zero. The int32 arithmetic wraps as TFLite's does.
func zeroPointTimesWeightsPlusBias(zp int32, w []int8, rows, cols int, bias []int32) []int32 {
	out := make([]int32, rows)
	if bias != nil {
		copy(out, bias[:rows])
	}
	if zp != 0 {
		sums := make([]int32, rows)
		arch.RowSumsInt8(sums, w, rows, cols)
		for r, s := range sums {
			out[r] += s * zp
		}
	}
	return out
}

// checkedLog2 returns round(log2(x)) and whether x is within 1e-3 (in
// log2) of that power of two, computed as TFLite's CheckedLog2 does in
// float32.
func checkedLog2(x float32) (int, bool) {
	xLog2 := float32(math.Log(float64(x))) * (1 / float32(math.Log(2)))
	rounded := float32(math.Round(float64(xLog2)))
	frac := xLog2 - rounded
	return int(rounded), math.Abs(float64(frac)) < 1e-3
}

// saturatingFloatToInt32 converts with truncation toward zero, clamping to
// the int32 range (and NaN to 0) where C++'s cast would be undefined.
func saturatingFloatToInt32(x float32) int32 {
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int32(x)
}
