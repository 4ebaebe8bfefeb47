package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Blockwise int4 FULLY_CONNECTED against a literal transcription of
// TFLite's EvalBlockwise4Bit (its float-then-truncate accumulation of the
// block sums included), and loosely against the float64 product of the
// dequantised weights.

// refBlockwise is EvalBlockwise4Bit written out as TFLite has it.
func refBlockwise(x []float32, packed []byte, halves []uint16, bias []float32, batch, units, cols, bs int) []float32 {
	blocks := cols / bs
	k2 := (cols + 1) &^ 1
	out := make([]float32, batch*units)
	q := make([]int8, len(x))
	for mi := 0; mi < batch; mi++ {
		sf, zp := ops.AsymmetricQuantizeFloats(x[mi*cols:(mi+1)*cols], q[mi*cols:(mi+1)*cols])
		for ni := 0; ni < units; ni++ {
			var kfsum float32
			o := &out[mi*units+ni]
			for bi := 0; bi < blocks; bi++ {
				var ksum, cRef int32
				for ki := 0; ki < bs; ki++ {
					kIndex := bi*bs + ki
					b := packed[(ni*k2+kIndex)/2]
					var kv int8
					if kIndex%2 == 0 {
						kv = int8(b & 0xF)
					} else {
						kv = int8(b >> 4)
					}
					v := int32(kv^8) - 8 // SignExtendInt4
					ksum += v
					cRef = int32(float32(cRef) + float32(float32(q[mi*cols+kIndex])*float32(v)))
				}
				scale := halfToFloat32(halves[ni*blocks+bi])
				*o = *o + float32(float32(cRef)*scale)
				kfsum = kfsum + float32(scale*float32(ksum))
			}
			*o = *o - float32(float32(zp)*kfsum)
			*o = *o * sf
			if bias != nil {
				*o = *o + bias[ni]
			}
		}
	}
	return out
}

// blockwiseNode builds a float FULLY_CONNECTED with blockwise int4
// weights; it returns the node and the dequantised weights.
func blockwiseNode(r *lcg, batch, units, cols, bs int, bias bool) (*ops.Node, []float64) {
	vals := make([]int8, units*cols)
	for i := range vals {
		vals[i] = int8(r.intn(-8, 7))
	}
	blocks := cols / bs
	halves := make([]uint16, units*blocks)
	for i := range halves {
		// Values in [2^-6, 2^-4): exponents 9 and 10, any mantissa.
		halves[i] = uint16(9+r.intn(0, 1))<<10 | uint16(r.intn(0, 1023))
	}
	deq := make([]float64, len(vals))
	for i, v := range vals {
		deq[i] = float64(v) * float64(halfToFloat32(halves[i/cols*blocks+i%cols/bs]))
	}
	w := &ops.Tensor{Type: ops.Int4, Shape: []int{units, cols}, Kind: ops.ConstTensor, Data: packInt4(vals),
		Blockwise: &ops.BlockwiseQuantization{BlockSize: bs, HalfScales: halves}}
	x := make([]float32, batch*cols)
	for i := range x {
		x[i] = r.float(-2, 3)
	}
	ins := []*ops.Tensor{tensorOf(ops.Float32, []int{batch, cols}, x), w}
	if bias {
		b := make([]float32, units)
		for i := range b {
			b[i] = r.float(-1, 1)
		}
		ins = append(ins, constT(tensorOf(ops.Float32, []int{units}, b)))
	}
	return node(&FullyConnectedOptions{}, ins, outTensor(ops.Float32)), deq
}

func TestFullyConnectedBlockwise(t *testing.T) {
	for _, tc := range []struct{ batch, units, cols, bs int }{
		{1, 4, 32, 32}, {3, 9, 64, 16}, {2, 5, 96, 3}, {1, 16, 128, 128}, {4, 7, 34, 17},
	} {
		for _, bias := range []bool{false, true} {
			r := lcg(uint64(tc.units*tc.cols + tc.bs))
			n, deq := blockwiseNode(&r, tc.batch, tc.units, tc.cols, tc.bs, bias)
			k := &FullyConnected{}
			run(t, k, n)
			noAllocs(t, k, n)
			var b []float32
			if bias {
				b = n.Inputs[2].Float32s()
			}
			x := n.Inputs[0].Float32s()
			want := refBlockwise(x, n.Inputs[1].Data, n.Inputs[1].Blockwise.HalfScales, b, tc.batch, tc.units, tc.cols, tc.bs)
			got := n.Outputs[0].Float32s()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%+v bias %v: element %d = %v, want %v", tc, bias, i, got[i], want[i])
				}
				// The input quantisation costs about half a step per
				// value: a loose bound against the float64 product.
				bi, u := i/tc.units, i%tc.units
				var f float64
				for c := 0; c < tc.cols; c++ {
					f += deq[u*tc.cols+c] * float64(x[bi*tc.cols+c])
				}
				if b != nil {
					f += float64(b[u])
				}
				if math.Abs(f-float64(got[i])) > 0.02*math.Sqrt(float64(tc.cols))+1e-3 {
					t.Fatalf("%+v: element %d = %v, float64 product %v", tc, i, got[i], f)
				}
			}
		}
	}
}

func TestFullyConnectedBlockwiseErrors(t *testing.T) {
	mk := func(units, cols, bs int) *ops.Node {
		r := lcg(3)
		n, _ := blockwiseNode(&r, 1, units, cols, bs, false)
		return n
	}
	wantPrepareError(t, &FullyConnected{}, mk(3, 32, 32), "units ≥ 4")
	wantPrepareError(t, &FullyConnected{}, mk(4, 30, 15), "even input_size ≥ 32")
	n := mk(4, 32, 16)
	n.Inputs[1].Blockwise.BlockSize = 5
	wantPrepareError(t, &FullyConnected{}, n, "block size 5")
	n = mk(4, 32, 16)
	n.Inputs[1].Blockwise.HalfScales = n.Inputs[1].Blockwise.HalfScales[:7]
	wantPrepareError(t, &FullyConnected{}, n, "7 blockwise scales", "need 8")
	n = mk(4, 32, 16)
	n.Inputs[1].Data = n.Inputs[1].Data[:10]
	wantPrepareError(t, &FullyConnected{}, n, "packed int4")
	n = mk(4, 32, 16)
	n.Inputs[0] = q(tensorOf(ops.Int8, []int{1, 32}, make([]int8, 32)), 0.1, 0)
	n.Outputs[0] = outTensor(ops.Int8)
	wantPrepareError(t, &FullyConnected{}, n, "blockwise", "float32 input only")
}
