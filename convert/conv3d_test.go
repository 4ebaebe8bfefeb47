package convert

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
)

// samePad is TensorFlow's padding before the data along one dimension:
// SAME pads max((out−1)·stride + window − in, 0), the smaller half first.
func samePad(in, out, k, stride int, same bool) int {
	if !same {
		return 0
	}
	return max((out-1)*stride+k-in, 0) / 2
}

// outSize is TensorFlow's output size along one dimension.
func outSize(in, k, stride int, same bool) int {
	if same {
		return (in + stride - 1) / stride
	}
	return (in-k)/stride + 1
}

// refConv3D is TensorFlow's Conv3D (NDHWC, filter DHWIO), in float64.
func refConv3D(x []float32, xs [5]int, w []float32, ws [5]int, st [3]int, same bool) ([]float64, [5]int) {
	var os [5]int
	os[0], os[4] = xs[0], ws[4]
	var pad [3]int
	for i := 0; i < 3; i++ {
		os[1+i] = outSize(xs[1+i], ws[i], st[i], same)
		pad[i] = samePad(xs[1+i], os[1+i], ws[i], st[i], same)
	}
	out := make([]float64, os[0]*os[1]*os[2]*os[3]*os[4])
	at := 0
	for b := 0; b < os[0]; b++ {
		for z := 0; z < os[1]; z++ {
			for y := 0; y < os[2]; y++ {
				for xx := 0; xx < os[3]; xx++ {
					for o := 0; o < os[4]; o++ {
						s := 0.0
						for fz := 0; fz < ws[0]; fz++ {
							for fy := 0; fy < ws[1]; fy++ {
								for fx := 0; fx < ws[2]; fx++ {
									iz, iy, ix := z*st[0]-pad[0]+fz, y*st[1]-pad[1]+fy, xx*st[2]-pad[2]+fx
									if iz < 0 || iy < 0 || ix < 0 || iz >= xs[1] || iy >= xs[2] || ix >= xs[3] {
										continue
									}
									for i := 0; i < xs[4]; i++ {
										xv := x[(((b*xs[1]+iz)*xs[2]+iy)*xs[3]+ix)*xs[4]+i]
										wv := w[(((fz*ws[1]+fy)*ws[2]+fx)*ws[3]+i)*ws[4]+o]
										s += float64(xv) * float64(wv)
									}
								}
							}
						}
						out[at] = s
						at++
					}
				}
			}
		}
	}
	return out, os
}

// refMaxPool3D is TensorFlow's MaxPool3D (NDHWC), padded cells left out.
func refMaxPool3D(x []float64, xs [5]int, k, st [3]int, same bool) ([]float64, [5]int) {
	os := xs
	var pad [3]int
	for i := 0; i < 3; i++ {
		os[1+i] = outSize(xs[1+i], k[i], st[i], same)
		pad[i] = samePad(xs[1+i], os[1+i], k[i], st[i], same)
	}
	var out []float64
	for b := 0; b < os[0]; b++ {
		for z := 0; z < os[1]; z++ {
			for y := 0; y < os[2]; y++ {
				for xx := 0; xx < os[3]; xx++ {
					for c := 0; c < os[4]; c++ {
						m := math.Inf(-1)
						for fz := 0; fz < k[0]; fz++ {
							for fy := 0; fy < k[1]; fy++ {
								for fx := 0; fx < k[2]; fx++ {
									iz, iy, ix := z*st[0]-pad[0]+fz, y*st[1]-pad[1]+fy, xx*st[2]-pad[2]+fx
									if iz < 0 || iy < 0 || ix < 0 || iz >= xs[1] || iy >= xs[2] || ix >= xs[3] {
										continue
									}
									m = math.Max(m, x[(((b*xs[1]+iz)*xs[2]+iy)*xs[3]+ix)*xs[4]+c])
								}
							}
						}
						out = append(out, m)
					}
				}
			}
		}
	}
	return out, os
}

// TestConv3DMaxPool3D: Keras's Conv3D and MaxPooling3D (ConvLSTM2D
// gesture models) convert to CONV_3D and a MaxPool3D as two MAX_POOL_2Ds,
// and match TensorFlow's definitions computed in float64, with SAME and
// VALID padding, strides in each dimension, windows not dividing the
// input.
func TestConv3DMaxPool3D(t *testing.T) {
	xs := [5]int{1, 5, 6, 7, 2}
	ws := [5]int{2, 3, 2, 2, 3}
	for _, c := range []struct {
		padding string
		cst, pk [3]int
		pst     [3]int
	}{
		{"SAME", [3]int{1, 2, 1}, [3]int{2, 3, 2}, [3]int{2, 2, 1}},
		{"VALID", [3]int{2, 1, 1}, [3]int{1, 2, 3}, [3]int{1, 1, 2}},
		{"SAME", [3]int{1, 1, 1}, [3]int{3, 3, 3}, [3]int{3, 3, 3}},
	} {
		same := c.padding == "SAME"
		g := newGraph()
		x := g.placeholder("x", xs[0], xs[1], xs[2], xs[3], xs[4])
		wv := seq(ws[0]*ws[1]*ws[2]*ws[3]*ws[4], 0.5, 1)
		w := g.constF("w", ir.Shape{ws[0], ws[1], ws[2], ws[3], ws[4]}, wv)
		conv := g.op("Conv3D", "conv", []string{x, w}, attrs{"strides": lAttr(1, int64(c.cst[0]), int64(c.cst[1]), int64(c.cst[2]), 1),
			"padding": sAttr(c.padding), "data_format": sAttr("NDHWC")})
		g.op("MaxPool3D", "pool", []string{conv}, attrs{"ksize": lAttr(1, int64(c.pk[0]), int64(c.pk[1]), int64(c.pk[2]), 1),
			"strides": lAttr(1, int64(c.pst[0]), int64(c.pst[1]), int64(c.pst[2]), 1), "padding": sAttr(c.padding), "data_format": sAttr("NDHWC")})
		res, err := g.convert(t, "conv", "pool")
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if ops := opList(res); ops != "CONV_3D RESHAPE MAX_POOL_2D RESHAPE MAX_POOL_2D RESHAPE" {
			t.Errorf("%+v: operators %q", c, ops)
		}
		in := seq(xs[0]*xs[1]*xs[2]*xs[3]*xs[4], 1, 0)
		wantConv, cs := refConv3D(in, xs, wv, ws, c.cst, same)
		wantPool, _ := refMaxPool3D(wantConv, cs, c.pk, c.pst, same)
		outs := runOutputs(t, res.Model, in)
		near(t, c.padding+" Conv3D", outs[0], wantConv, 1e-4)
		near(t, c.padding+" MaxPool3D", outs[1], wantPool, 1e-4)
	}
}

// runOutputs runs a model on one float input and returns every output.
func runOutputs(t *testing.T, model []byte, in []float32) [][]float32 {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Input(0).CopyFrom(in); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	var outs [][]float32
	for k := 0; k < it.OutputCount(); k++ {
		outs = append(outs, append([]float32(nil), it.Output(k).Float32s()...))
	}
	return outs
}
