package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Vectors from TFLite's activations_test.cc (Relu, Relu6, Relu1 float;
// QuantizedActivationsOpTest Relu6Uint8/Int8 with input and output range
// [-8, 8·127/128], scale 1/16).

func TestReluFloat(t *testing.T) {
	for _, tc := range []struct {
		k    ops.Kernel
		in   []float32
		want []float64
	}{
		{NewRelu(), softmaxIn, []float64{0, 0, 2, 4, 3, 0, 10, 1}},
		{NewRelu6(), softmaxIn, []float64{0, 0, 2, 4, 3, 0, 6, 1}},
		{NewReluN1To1(), []float32{0.0, -0.6, 0.2, -0.4, 0.3, -2.0, 1.1, -0.1}, []float64{0.0, -0.6, 0.2, -0.4, 0.3, -1.0, 1.0, -0.1}},
		{NewRelu0To1(), []float32{0.0, -0.6, 0.2, -0.4, 0.3, -2.0, 1.1, -0.1}, []float64{0.0, 0, 0.2, 0, 0.3, 0, 1.0, 0}},
	} {
		n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, tc.in)}, outTensor(ops.Float32))
		run(t, tc.k, n)
		nearFloats(t, "output", n.Outputs[0].Float32s(), tc.want, 1e-7)
		noAllocs(t, tc.k, n)
	}
}

func TestReluQuantized(t *testing.T) {
	in := []float32{0, -6, 2, 4, 3, -2, 10, 1}
	const s = 1.0 / 16
	// uint8, zero point 128.
	n := node(nil, []*ops.Tensor{q(tensorOf(ops.Uint8, []int{8}, toUint8(quantizeTo(in, s, 128, 0, 255))), s, 128)}, q(outTensor(ops.Uint8), s, 128))
	k := NewRelu6()
	run(t, k, n)
	equalInts(t, "relu6 uint8", n.Outputs[0].Uint8s(), []int{128, 128, 160, 192, 176, 128, 224, 144})
	noAllocs(t, k, n)
	// int8, zero point 0.
	n = node(nil, []*ops.Tensor{q(tensorOf(ops.Int8, []int{8}, toInt8(quantizeTo(in, s, 0, -128, 127))), s, 0)}, q(outTensor(ops.Int8), s, 0))
	run(t, NewRelu6(), n)
	equalInts(t, "relu6 int8", n.Outputs[0].Int8s(), []int{0, 0, 32, 64, 48, 0, 96, 16})
	n = node(nil, []*ops.Tensor{q(tensorOf(ops.Int8, []int{8}, toInt8(quantizeTo(in, s, 0, -128, 127))), s, 0)}, q(outTensor(ops.Int8), s, 0))
	run(t, NewRelu(), n)
	equalInts(t, "relu int8", n.Outputs[0].Int8s(), []int{0, 0, 32, 64, 48, 0, 127, 16})
	// Requantisation: output scale twice the input's halves the values
	// (rounding half away from zero, so 3 → 2).
	n = node(nil, []*ops.Tensor{q(tensorOf(ops.Int8, []int{4}, []int8{-5, 3, 10, 127}), 0.5, 0)}, q(outTensor(ops.Int8), 1, 0))
	run(t, NewReluN1To1(), n)
	equalInts(t, "relu1 requantised", n.Outputs[0].Int8s(), []int{-1, 1, 1, 1})
	n = node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{4}, []int16{-5, 3, 10, 32767}), 0.5, 0)}, q(outTensor(ops.Int16), 1, 0))
	run(t, NewRelu(), n)
	equalInts(t, "relu int16", n.Outputs[0].Int16s(), []int{0, 2, 5, 16384})
}

func TestReluErrors(t *testing.T) {
	wantPrepareError(t, NewReluN1To1(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{1}, []int16{1}), 1, 0)}, q(outTensor(ops.Int16), 1, 0)), "int16")
	wantPrepareError(t, NewRelu(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{1}, []int16{1}), 1, 3)}, q(outTensor(ops.Int16), 1, 0)), "zero points")
	wantPrepareError(t, NewRelu(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{1})}, outTensor(ops.Int8)), "output 0", "int8")
}

// TestReluQuantizedLong runs every clamping activation on int8, uint8
// and int16 tensors longer than several of unarySplit's blocks (so that
// the thread sweep of run splits them, at a length that is not a
// multiple of the block), with input and output scales that differ, and
// checks each element against requant, the scalar TFLite formula.
func TestReluQuantizedLong(t *testing.T) {
	r := lcg(7)
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8, ops.Int16} {
		for _, newK := range []func() ops.Kernel{NewRelu, NewRelu6, NewReluN1To1, NewRelu0To1} {
			if typ == ops.Int16 && !newK().(*Relu).op.int16 {
				continue
			}
			const count = 5*splitBlock + 13
			zp := int32(-3)
			if typ == ops.Uint8 {
				zp = 121
			}
			if typ == ops.Int16 {
				zp = 0
			}
			lo, hi, _ := ops.TypeRange(typ)
			in := &ops.Tensor{Type: typ, Shape: []int{count}, Data: make([]byte, count*typ.Size())}
			for i := range count {
				v := lo + int32(r.next()%uint32(hi-lo+1))
				switch typ {
				case ops.Int16:
					in.Data[2*i], in.Data[2*i+1] = byte(v), byte(v>>8)
				default:
					in.Data[i] = byte(v)
				}
			}
			outZP := zp / 2
			n := node(nil, []*ops.Tensor{q(in, 0.07, int64(zp))}, q(outTensor(typ), 0.03, int64(outZP)))
			k := newK().(*Relu)
			run(t, k, n)
			noAllocs(t, k, n)
			out := n.Outputs[0]
			for i := range count {
				var x, got int32
				switch typ {
				case ops.Int8:
					x, got = int32(int8(in.Data[i])), int32(int8(out.Data[i]))
				case ops.Uint8:
					x, got = int32(in.Data[i]), int32(out.Data[i])
				default:
					x, got = int32(int16(uint16(in.Data[2*i])|uint16(in.Data[2*i+1])<<8)), int32(int16(uint16(out.Data[2*i])|uint16(out.Data[2*i+1])<<8))
				}
				if want := k.requant(x); got != want {
					t.Fatalf("%s %+v: element %d: %d → %d, want %d", typ, *k.op, i, x, got, want)
				}
			}
		}
	}
}
