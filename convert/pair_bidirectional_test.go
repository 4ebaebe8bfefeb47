package convert

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// biLSTMLoopModel builds what TensorFlow ≥ 2.16 writes for a Keras 3
// Bidirectional(LSTM(3)) over [1, 5, 2] returning the last outputs: the
// sequence made time-major, a forward WHILE loop over it and one over its
// REVERSE_V2 in time (go_backwards), each loop gatedLoopModel's, the two
// last outputs concatenated, forward first.
func biLSTMLoopModel() []byte {
	const T, F, U = 5, 2, 3
	m := &schema.ModelT{Version: 3, Buffers: []*schema.BufferT{{}}}
	main := &sgBuilder{m, &schema.SubGraphT{Name: "main"}}
	m.Subgraphs = []*schema.SubGraphT{main.sg}
	in := main.tensor("input", schema.TensorTypeFLOAT32, []int32{1, T, F}, nil)
	main.sg.Inputs = []int32{in}
	seq := main.tensor("transpose", schema.TensorTypeFLOAT32, []int32{T, 1, F}, nil)
	main.op(schema.BuiltinOperatorTRANSPOSE, nil, []int32{in, main.i32("perm", []int32{3}, 1, 0, 2)}, seq)
	rev := main.tensor("reverse", schema.TensorTypeFLOAT32, []int32{T, 1, F}, nil)
	main.op(schema.BuiltinOperatorREVERSE_V2, nil, []int32{seq, main.i32("time_axis", []int32{1}, 0)}, rev)
	var last []int32
	for k, x := range []int32{seq, rev} {
		prefix := []string{"forward_", "backward_"}[k]
		list := addGatedLoop(main, x, false, prefix, uint32(100*k))
		h := main.tensor(prefix+"last", schema.TensorTypeFLOAT32, []int32{1, U}, nil)
		main.op(schema.BuiltinOperatorRESHAPE, nil, []int32{list, main.i32(prefix+"shape", []int32{2}, 1, U)}, h)
		last = append(last, h)
	}
	out := main.tensor("output", schema.TensorTypeFLOAT32, []int32{1, 2 * U}, nil)
	main.op(schema.BuiltinOperatorCONCATENATION, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions,
		Value: &schema.ConcatenationOptionsT{Axis: 1}}, last, out)
	main.sg.Outputs = []int32{out}
	return tflite.Pack(m)
}

// TestRefuseBuiltBiLSTMLoops re-fuses a bidirectional pair of LSTM loops
// built with the schema writer: the two loops become one
// BIDIRECTIONAL_SEQUENCE_LSTM (the backward last step read at step 0 of
// its output, no REVERSE_V2 left), the loops' subgraphs are gone, and the
// model agrees with the loops within 1e-5.
func TestRefuseBuiltBiLSTMLoops(t *testing.T) {
	model := biLSTMLoopModel()
	res, err := ConvertTFLite(model, Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts := opCounts(t, res.Model)
	text := res.Report.Text()
	if res.Report.Fused() != 2 || counts["BIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || counts["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 0 ||
		counts["WHILE"] != 0 || counts["REVERSE_V2"] != 0 || len(res.Subgraphs) != 1 {
		t.Fatalf("report:\n%s\nops %v, %d subgraphs", text, counts, len(res.Subgraphs))
	}
	if !strings.Contains(text, "became one BIDIRECTIONAL_SEQUENCE_LSTM (time-major, 5 steps, merge_outputs=false") {
		t.Errorf("report does not say the pair was made:\n%s", text)
	}
	diff, err := compareModels(model, res.Model, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("max |loops - bidirectional| %g; ops %v", diff, counts)
	if diff > 1e-5 {
		t.Errorf("max |loops - bidirectional| %g", diff)
	}
	// With --no-fuse nothing is paired.
	res, err = ConvertTFLite(model, Options{NoFuse: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := opCounts(t, res.Model); c["WHILE"] != 2 || c["BIDIRECTIONAL_SEQUENCE_LSTM"] != 0 {
		t.Errorf("--no-fuse: ops %v", c)
	}
}

// uniPair describes the model uniPairModel builds.
type uniPair struct {
	batchMajor bool
	bwUnits    int     // the backward direction's units (3 when 0)
	bwClip     float32 // the backward direction's cell clip
	bwLayerNrm bool    // the backward direction has layer norm
	sequences  bool    // the backward output reversed back (return_sequences), else its last step
	order      bool    // concatenate backward first
}

// uniPairModel builds, with the schema writer, a forward and a backward
// UNIDIRECTIONAL_SEQUENCE_LSTM over [5, 1, 2] (time-major; [1, 5, 2]
// batch-major), the backward one over REVERSE_V2 of the input; with
// sequences its output is reversed back and the two concatenated on the
// last axis, else their last steps (STRIDED_SLICE) are.
func uniPairModel(p uniPair) []byte {
	const T, F, U = 5, 2, 3
	m := &schema.ModelT{Version: 3, Buffers: []*schema.BufferT{{}}}
	b := &sgBuilder{m, &schema.SubGraphT{Name: "main"}}
	m.Subgraphs = []*schema.SubGraphT{b.sg}
	shape := func(t, u int) []int32 {
		if p.batchMajor {
			return []int32{1, int32(t), int32(u)}
		}
		return []int32{int32(t), 1, int32(u)}
	}
	axis := int32(0)
	if p.batchMajor {
		axis = 1
	}
	in := b.tensor("input", schema.TensorTypeFLOAT32, shape(T, F), nil)
	b.sg.Inputs = []int32{in}
	rev := b.tensor("reverse", schema.TensorTypeFLOAT32, shape(T, F), nil)
	b.op(schema.BuiltinOperatorREVERSE_V2, nil, []int32{in, b.i32("axis", []int32{1}, axis)}, rev)
	lstm := func(name string, x int32, units int, clip float32, layerNorm bool, seed uint32) int32 {
		ins := make([]int32, 24)
		for i := range ins {
			ins[i] = -1
		}
		ins[0] = x
		for g := 0; g < 4; g++ {
			ins[1+g] = b.f32(name+"/w", []int32{int32(units), F}, seeded(units*F, seed+uint32(g)))
			ins[5+g] = b.f32(name+"/r", []int32{int32(units), int32(units)}, seeded(units*units, seed+10+uint32(g)))
			ins[12+g] = b.f32(name+"/b", []int32{int32(units)}, seeded(units, seed+20+uint32(g)))
			if layerNorm {
				ins[20+g] = b.f32(name+"/ln", []int32{int32(units)}, seeded(units, seed+30+uint32(g)))
			}
		}
		for k := 0; k < 2; k++ {
			ins[18+k] = b.tensor(name+"/state", schema.TensorTypeFLOAT32, []int32{1, int32(units)}, nil)
			b.sg.Tensors[ins[18+k]].IsVariable = true
		}
		out := b.tensor(name, schema.TensorTypeFLOAT32, shape(T, units), nil)
		b.op(schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions,
			Value: &schema.UnidirectionalSequenceLSTMOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeTANH, CellClip: clip,
				TimeMajor: !p.batchMajor}}, ins, out)
		return out
	}
	bwUnits := U
	if p.bwUnits != 0 {
		bwUnits = p.bwUnits
	}
	fw := lstm("forward", in, U, 0, false, 1)
	bw := lstm("backward", rev, bwUnits, p.bwClip, p.bwLayerNrm, 50)
	outs := []int32{fw, bw}
	width := int32(U + bwUnits)
	var out int32
	if p.sequences {
		back := b.tensor("backward_reversed", schema.TensorTypeFLOAT32, shape(T, bwUnits), nil)
		b.op(schema.BuiltinOperatorREVERSE_V2, nil, []int32{bw, b.i32("axis_back", []int32{1}, axis)}, back)
		outs[1] = back
		out = b.tensor("output", schema.TensorTypeFLOAT32, shape(T, int(width)), nil)
	} else {
		for k, units := range []int{U, bwUnits} {
			begin := []int32{0, 0, 0}
			begin[axis] = -1
			end := []int32{0, 0, 0}
			s := b.tensor(fmt.Sprintf("last%d", k), schema.TensorTypeFLOAT32, []int32{1, int32(units)}, nil)
			mask := int32(7) &^ (1 << axis)
			b.op(schema.BuiltinOperatorSTRIDED_SLICE, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsStridedSliceOptions,
				Value: &schema.StridedSliceOptionsT{BeginMask: mask, EndMask: mask, ShrinkAxisMask: 1 << axis}},
				[]int32{outs[k], b.i32(fmt.Sprintf("begin%d", k), []int32{3}, begin...), b.i32(fmt.Sprintf("end%d", k), []int32{3}, end...),
					b.i32(fmt.Sprintf("strides%d", k), []int32{3}, 1, 1, 1)}, s)
			outs[k] = s
		}
		out = b.tensor("output", schema.TensorTypeFLOAT32, []int32{1, width}, nil)
	}
	if p.order {
		outs[0], outs[1] = outs[1], outs[0]
	}
	b.op(schema.BuiltinOperatorCONCATENATION, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions,
		Value: &schema.ConcatenationOptionsT{Axis: -1}}, outs, out)
	b.sg.Outputs = []int32{out}
	return tflite.Pack(m)
}

// pairOnly reads model, runs the pairing pass alone on its subgraph and
// writes it back.
func pairOnly(t *testing.T, model []byte) ([]byte, *fusion.Report) {
	t.Helper()
	m, err := tflite.Read(model, ir.NewBudget(ir.DefaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	report := &fusion.Report{}
	if _, err := pairBidirectionalLSTM(m.Subgraphs[0], report); err != nil {
		t.Fatal(err)
	}
	mt, err := tflite.BuildModel(m, "")
	if err != nil {
		t.Fatal(err)
	}
	return tflite.Pack(mt), report
}

// TestPairBidirectionalLSTM pairs UNIDIRECTIONAL_SEQUENCE_LSTM operators
// written with the schema writer: each pair the operator can express
// becomes one BIDIRECTIONAL_SEQUENCE_LSTM agreeing with the pair within
// 1e-5, merged (no CONCATENATION, no REVERSE_V2) when time-major and
// concatenated forward first; every other pair stays, the report's notes
// saying why.
func TestPairBidirectionalLSTM(t *testing.T) {
	for _, c := range []struct {
		name string
		p    uniPair
		// want: the operators expected after the pass; note: a
		// substring of the report's notes.
		want map[string]int
		note string
	}{
		{"merged", uniPair{sequences: true}, map[string]int{"BIDIRECTIONAL_SEQUENCE_LSTM": 1},
			"time-major, 5 steps, merge_outputs=true; 1 consumer(s)"},
		{"last_steps", uniPair{}, map[string]int{"BIDIRECTIONAL_SEQUENCE_LSTM": 1, "STRIDED_SLICE": 2, "CONCATENATION": 1},
			"merge_outputs=false; 1 consumer(s)"},
		{"batch_major", uniPair{batchMajor: true, sequences: true}, map[string]int{"BIDIRECTIONAL_SEQUENCE_LSTM": 1, "CONCATENATION": 1},
			"outputs not merged: batch-major"},
		{"batch_major_last", uniPair{batchMajor: true}, map[string]int{"BIDIRECTIONAL_SEQUENCE_LSTM": 1, "STRIDED_SLICE": 2, "CONCATENATION": 1},
			"batch-major, 5 steps, merge_outputs=false"},
		{"backward_first", uniPair{sequences: true, order: true}, map[string]int{"BIDIRECTIONAL_SEQUENCE_LSTM": 1, "CONCATENATION": 1},
			"merge_outputs=false"},
		{"sizes", uniPair{bwUnits: 4, sequences: true}, map[string]int{"UNIDIRECTIONAL_SEQUENCE_LSTM": 2, "REVERSE_V2": 2, "CONCATENATION": 1},
			"different sizes (n_cell 3 and 4"},
		{"clip", uniPair{bwClip: 3}, map[string]int{"UNIDIRECTIONAL_SEQUENCE_LSTM": 2, "REVERSE_V2": 1, "STRIDED_SLICE": 2, "CONCATENATION": 1},
			"clip differently"},
		{"layer_norm", uniPair{bwLayerNrm: true}, map[string]int{"UNIDIRECTIONAL_SEQUENCE_LSTM": 2, "REVERSE_V2": 1, "STRIDED_SLICE": 2, "CONCATENATION": 1},
			"layer normalisation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := uniPairModel(c.p)
			paired, report := pairOnly(t, model)
			got := opCounts(t, paired)
			notes := strings.Join(report.Notes, "\n")
			if fmt.Sprint(got) != fmt.Sprint(c.want) || !strings.Contains(notes, c.note) {
				t.Fatalf("ops %v, want %v; notes:\n%s\nwant a note with %q", got, c.want, notes, c.note)
			}
			diff, err := compareModels(model, paired, 5)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("max |pair - paired| %g; ops %v", diff, got)
			if diff > 1e-5 {
				t.Errorf("max |pair - paired| %g", diff)
			}
			// Run again on what it wrote: nothing is left to pair, and
			// the pass ends.
			again, _ := pairOnly(t, paired)
			if c2 := opCounts(t, again); fmt.Sprint(c2) != fmt.Sprint(got) {
				t.Errorf("second pass changed ops %v to %v", got, c2)
			}
		})
	}
}
