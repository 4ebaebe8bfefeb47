package builtin

import (
	"bytes"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TFLite runs int4 FULLY_CONNECTED weights by unpacking them to int8 and
// running the int8 arithmetic, so a node with packed int4 weights must
// give the bits of the same node with those values as int8 weights, on
// every input type that takes them.

// packInt4 packs values in [-8, 7] two to a byte, low nibble first.
func packInt4(v []int8) []byte {
	b := make([]byte, (len(v)+1)/2)
	for i, x := range v {
		n := byte(x) & 0xF
		if i%2 == 1 {
			n <<= 4
		}
		b[i/2] |= n
	}
	return b
}

func TestUnpackInt4(t *testing.T) {
	v := []int8{-8, 7, 0, -1, 1, -7, 3} // odd count
	got := make([]int8, len(v))
	unpackInt4(got, packInt4(v))
	equalInts(t, "unpacked", got, v)
	// The high nibble of the last byte of an odd count is ignored.
	b := packInt4(v)
	b[len(b)-1] |= 0xF0
	unpackInt4(got, b)
	equalInts(t, "unpacked (junk nibble)", got, v)
}

func TestFullyConnectedInt4MatchesInt8(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          ops.DataType
		units, cols int
		perChannel  bool
		bias        ops.DataType
		opts        FullyConnectedOptions
	}{
		{"int8 per-tensor", ops.Int8, 7, 33, false, ops.Int32, FullyConnectedOptions{Activation: ops.ActRelu}},
		{"int8 per-channel odd", ops.Int8, 5, 9, true, ops.Int32, FullyConnectedOptions{}},
		{"int16 bias32", ops.Int16, 6, 20, true, ops.Int32, FullyConnectedOptions{}},
		{"int16 bias64", ops.Int16, 3, 17, false, ops.Int64, FullyConnectedOptions{Activation: ops.ActRelu6}},
		// Hybrid shapes TFLite's 4-bit kernel does not take (odd
		// input_size, fewer than 4 units, input_size below 32).
		{"hybrid odd cols", ops.Float32, 9, 31, true, ops.Float32, FullyConnectedOptions{}},
		{"hybrid 3 units", ops.Float32, 3, 64, false, ops.Float32, FullyConnectedOptions{AsymmetricQuantizeInputs: true}},
		{"hybrid short rows", ops.Float32, 16, 30, true, 0, FullyConnectedOptions{Activation: ops.ActTanh}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := lcg(uint64(len(tc.name)))
			const batch = 3
			wv := make([]int8, tc.units*tc.cols)
			for i := range wv {
				wv[i] = int8(r.intn(-8, 7))
			}
			scales := []float32{0.05}
			if tc.perChannel {
				scales = make([]float32, tc.units)
				for i := range scales {
					scales[i] = r.float(0.02, 0.09)
				}
			}
			var x *ops.Tensor
			switch tc.in {
			case ops.Float32:
				xs := make([]float32, batch*tc.cols)
				for i := range xs {
					xs[i] = r.float(-2, 3)
				}
				x = tensorOf(ops.Float32, []int{batch, tc.cols}, xs)
			case ops.Int8:
				xs := make([]int8, batch*tc.cols)
				for i := range xs {
					xs[i] = int8(r.intn(-128, 127))
				}
				x = q(tensorOf(ops.Int8, []int{batch, tc.cols}, xs), 0.03, 4)
			default:
				xs := make([]int16, batch*tc.cols)
				for i := range xs {
					xs[i] = int16(r.intn(-32768, 32767))
				}
				x = q(tensorOf(ops.Int16, []int{batch, tc.cols}, xs), 1.0/2048, 0)
			}
			var bias *ops.Tensor
			switch tc.bias {
			case ops.Float32:
				bias = constT(tensorOf(ops.Float32, []int{tc.units}, make([]float32, tc.units)))
				for i := range bias.Float32s() {
					bias.Float32s()[i] = r.float(-1, 1)
				}
			case ops.Int32:
				b := make([]int32, tc.units)
				for i := range b {
					b[i] = int32(r.intn(-5000, 5000))
				}
				bias = q(constT(tensorOf(ops.Int32, []int{tc.units}, b)), x.Scale()*scales[0], 0)
			case ops.Int64:
				b := make([]int64, tc.units)
				for i := range b {
					b[i] = int64(r.intn(-50000, 50000))
				}
				bias = q(constT(tensorOf(ops.Int64, []int{tc.units}, b)), x.Scale()*scales[0], 0)
			}
			outType := tc.in
			mk := func(w *ops.Tensor) *ops.Node {
				w.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, len(scales))}
				ins := []*ops.Tensor{x, w}
				if bias != nil {
					ins = append(ins, bias)
				}
				opts := tc.opts
				n := node(&opts, ins, outTensor(outType))
				if outType != ops.Float32 {
					n.Outputs[0].Quant = &ops.Quantization{Scale: []float32{0.07}, ZeroPoint: []int64{0}}
					if outType == ops.Int8 {
						n.Outputs[0].Quant.ZeroPoint[0] = -3
					}
				}
				return n
			}
			w4 := &ops.Tensor{Type: ops.Int4, Shape: []int{tc.units, tc.cols}, Kind: ops.ConstTensor, Data: packInt4(wv)}
			n4 := mk(w4)
			n8 := mk(constT(tensorOf(ops.Int8, []int{tc.units, tc.cols}, wv)))
			k4, k8 := &FullyConnected{}, &FullyConnected{}
			run(t, k4, n4)
			run(t, k8, n8)
			if k4.path != k8.path {
				t.Fatalf("int4 path %d, int8 path %d", k4.path, k8.path)
			}
			if !bytes.Equal(n4.Outputs[0].Data, n8.Outputs[0].Data) {
				t.Fatal("int4 output differs from the int8 one")
			}
			noAllocs(t, k4, n4)
			// Int2 (version 14): the same weights reduced to [-2, 1],
			// packed four to a byte, against int8.
			w2v := make([]int8, len(wv))
			w2b := make([]byte, (len(wv)+3)/4)
			for i, v := range wv {
				w2v[i] = v << 6 >> 6
				w2b[i/4] |= byte(v&3) << (2 * (i % 4))
			}
			n2 := mk(&ops.Tensor{Type: ops.Int2, Shape: []int{tc.units, tc.cols}, Kind: ops.ConstTensor, Data: w2b})
			n28 := mk(constT(tensorOf(ops.Int8, []int{tc.units, tc.cols}, w2v)))
			k2, k28 := &FullyConnected{}, &FullyConnected{}
			run(t, k2, n2)
			run(t, k28, n28)
			if !bytes.Equal(n2.Outputs[0].Data, n28.Outputs[0].Data) {
				t.Fatal("int2 output differs from the int8 one")
			}
		})
	}
}

func TestFullyConnectedInt4Errors(t *testing.T) {
	mk := func(units, cols int, zp int64, kind ops.TensorKind) *ops.Node {
		w := &ops.Tensor{Type: ops.Int4, Shape: []int{units, cols}, Kind: kind, Data: make([]byte, (units*cols+1)/2)}
		w.Quant = &ops.Quantization{Scale: []float32{0.1}, ZeroPoint: []int64{zp}}
		x := tensorOf(ops.Float32, []int{2, cols}, make([]float32, 2*cols))
		return node(&FullyConnectedOptions{}, []*ops.Tensor{x, w}, outTensor(ops.Float32))
	}
	wantPrepareError(t, &FullyConnected{}, mk(4, 32, 0, ops.ConstTensor), "4-bit hybrid kernel")
	wantPrepareError(t, &FullyConnected{}, mk(2, 5, 1, ops.ConstTensor), "zero point 1", "symmetric")
	wantPrepareError(t, &FullyConnected{}, mk(2, 5, 0, ops.ArenaTensor), "must be a constant")
	n := mk(2, 5, 0, ops.ConstTensor)
	n.Inputs[1].Data = n.Inputs[1].Data[:2]
	wantPrepareError(t, &FullyConnected{}, n, "packed bytes")
}
