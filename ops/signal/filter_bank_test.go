package signal_test

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// filterBankNode builds a SignalFilterBank node from its input and five
// tables (constant tensors).
func filterBankNode(t testing.TB, channels int, in []uint32, tables [5][]int16) *ops.Node {
	ins := []*ops.Tensor{tensorOf(ops.Uint32, []int{len(in)}, in)}
	for _, tb := range tables {
		ins = append(ins, constOf(ops.Int16, []int{len(tb)}, tb))
	}
	return node(signal.FilterBankName, opts(t, "num_channels", channels), ins, ops.Uint64)
}

// TestFilterBankSmall: two channels over five bins. Channel c takes the
// weighted sum of its bins plus the unweighted remainder of channel c−1;
// a negative weight is sign-extended, so the 64-bit sum wraps.
func TestFilterBankSmall(t *testing.T) {
	in := []uint32{10, 20, 30, 40, 50}
	tables := [5][]int16{
		{1, 2, 3, 4, -1}, // weights
		{5, 6, 7, 8, 9},  // unweights
		{0, 1, 3},        // frequency starts
		{0, 1, 3},        // weight starts
		{1, 2, 2},        // widths
	}
	n := filterBankNode(t, 2, in, tables)
	mustRun(t, signal.NewFilterBank(), n)
	// channel 0: w 1·10 (dropped), unweights 5·10 = 50 carried.
	// channel 1: 50 + 2·20 + 3·30 = 180; carries 6·20 + 7·30 = 330.
	// channel 2: 330 + 4·40 − 50 (mod 2^64).
	expectEqual(t, "output", n.Outputs[0].Uint64s(), []uint64{180, 330 + 160 - 50})
}

// TestFilterBankTFLM replays TFLite Micro's filter_bank_test.cc.
func TestFilterBankTFLM(t *testing.T) {
	c := loadTFLMCase(t, "filter_bank_test.cc", "filter_bank_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			ins := []*ops.Tensor{tensorOf(ops.Uint32, shapeOf(t, ct.array(t, "input1_shape")), values[uint32](t, ct.array(t, "input1")))}
			for i := 2; i <= 6; i++ {
				v := values[int16](t, ct.array(t, fmt.Sprintf("input%d", i)))
				ins = append(ins, constOf(ops.Int16, []int{len(v)}, v))
			}
			n := node(signal.FilterBankName, c.options(t, ct), ins, ops.Uint64)
			mustRun(t, signal.NewFilterBank(), n)
			expectEqual(t, "output", n.Outputs[0].Uint64s(), values[uint64](t, ct.array(t, "golden")))
		})
	}
}

// TestFilterBankSquareRootSmall: rounded integer roots, shifted.
func TestFilterBankSquareRootSmall(t *testing.T) {
	in := []uint64{0, 1, 2, 3, 15, 16, 17, 1<<32 - 1, 1 << 32, 1<<64 - 1, 10528000193}
	n := node(signal.FilterBankSquareRootName, nil, []*ops.Tensor{
		tensorOf(ops.Uint64, []int{len(in)}, in), tensorOf(ops.Int32, []int{}, []int32{0})}, ops.Uint32)
	mustRun(t, signal.NewFilterBankSquareRoot(), n)
	// round(√x), capped at 0xFFFF below 2^32 and 0xFFFFFFFF above.
	expectEqual(t, "output", n.Outputs[0].Uint32s(), []uint32{0, 1, 1, 2, 4, 4, 4, 0xFFFF, 65536, 0xFFFFFFFF, 102606})
}

// TestFilterBankSquareRootTFLM replays filter_bank_square_root_test.cc.
func TestFilterBankSquareRootTFLM(t *testing.T) {
	c := loadTFLMCase(t, "filter_bank_square_root_test.cc", "")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			in := values[uint64](t, ct.array(t, "input1"))
			sb := values[int32](t, ct.array(t, "input2"))
			n := node(signal.FilterBankSquareRootName, nil, []*ops.Tensor{
				tensorOf(ops.Uint64, []int{len(in)}, in), tensorOf(ops.Int32, []int{}, sb)}, ops.Uint32)
			mustRun(t, signal.NewFilterBankSquareRoot(), n)
			expectEqual(t, "output", n.Outputs[0].Uint32s(), values[uint32](t, ct.array(t, "golden")))
		})
	}
}
