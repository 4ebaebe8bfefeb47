package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of CONCATENATION: TFLite's kernel-test vectors
// (concatenation_test.cc) and naive multi-index references on random
// shapes.

func TestConcatenation(t *testing.T) {
	// ThreeDimensionalTwoInputsDifferentShapes.
	a := tensorOf(ops.Float32, []int{2, 1, 2}, []float32{1, 3, 4, 7})
	b := tensorOf(ops.Float32, []int{2, 3, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	n := node(&ConcatenationOptions{Axis: 1}, []*ops.Tensor{a, b}, outTensor(ops.Float32))
	k := NewConcatenation()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 4, 2})
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{1, 3, 1, 2, 3, 4, 5, 6, 4, 7, 7, 8, 9, 10, 11, 12}, 0)
	noAllocs(t, k, n)
	// Random shapes and axes (negative too) against a naive reference.
	r := lcg(2)
	for trial := 0; trial < 20; trial++ {
		rank := r.intn(1, 4)
		axis := r.intn(0, rank-1)
		base := make([]int, rank)
		for d := range base {
			base[d] = r.intn(1, 3)
		}
		var ins []*ops.Tensor
		var datas [][]float32
		for i := 0; i < r.intn(1, 4); i++ {
			s := copyShape(base)
			s[axis] = r.intn(0, 3)
			d := randFloats(&r, prod(s), -1, 1)
			datas = append(datas, d)
			ins = append(ins, tensorOf(ops.Float32, s, d))
		}
		neg := axis
		if trial%2 == 1 {
			neg = axis - rank
		}
		n := node(&ConcatenationOptions{Axis: neg}, ins, outTensor(ops.Float32))
		run(t, NewConcatenation(), n)
		out := n.Outputs[0]
		got := out.Float32s()
		forEach(out.Shape, func(idx []int) {
			p, i := idx[axis], 0
			for p >= ins[i].Shape[axis] {
				p -= ins[i].Shape[axis]
				i++
			}
			src := append([]int(nil), idx...)
			src[axis] = p
			if w := datas[i][index(ins[i].Shape, src)]; got[index(out.Shape, idx)] != w {
				t.Fatalf("trial %d: output %v = %v, want %v", trial, idx, got[index(out.Shape, idx)], w)
			}
		})
	}
}

func TestConcatenationUint8Rescale(t *testing.T) {
	// FourInputsQuantizedMixedRange from concatenation_test.cc.
	ranges := [][2]float64{{-10.7, 10.8}, {0, 12.8}, {-11, 11.8}, {0, 7.4}}
	vals := [][]float32{{1, 3, 4, 7}, {1.1, 3.1, 4.1, 7.1}, {1.2, 3.2, 4.2, 7.2}, {1.3, 3.3, 4.3, 7.3}}
	var ins []*ops.Tensor
	for i, rg := range ranges {
		ins = append(ins, quantTensor(ops.Uint8, []int{2, 1, 2}, vals[i], rg[0], rg[1]))
	}
	n := node(&ConcatenationOptions{Axis: 2}, ins, quantOut(ops.Uint8, -12.7, 12.8))
	k := NewConcatenation()
	run(t, k, n)
	equalInts(t, "output", n.Outputs[0].Uint8s(), []int{137, 157, 138, 158, 139, 159, 140, 160, 167, 197, 168, 198, 169, 199, 170, 200})
	noAllocs(t, k, n)
	// int8 requires identical quantisation.
	x := quantTensor(ops.Int8, []int{2}, []float32{1, 2}, -1, 1)
	y := quantTensor(ops.Int8, []int{2}, []float32{1, 2}, -2, 2)
	wantPrepareError(t, NewConcatenation(), node(&ConcatenationOptions{}, []*ops.Tensor{x, y}, quantOut(ops.Int8, -1, 1)), "does not rescale int8")
	wantPrepareError(t, NewConcatenation(), node(&ConcatenationOptions{Activation: ops.ActRelu}, []*ops.Tensor{x}, quantOut(ops.Int8, -1, 1)), "RELU")
	wantPrepareError(t, NewConcatenation(), node(&ConcatenationOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, f32Seq(4)), tensorOf(ops.Float32, []int{3, 3}, f32Seq(9))}, outTensor(ops.Float32)), "dimension 1 is 3")
}

// TestConcatenationBlocks: outputs of many concatBlock blocks whose
// borders fall inside inputs' segments and outer slices (and across
// empty inputs), against the naive reference; run also checks 2, 3 and
// 4 threads, every block a unit, against one thread.
func TestConcatenationBlocks(t *testing.T) {
	r := lcg(7)
	for trial := 0; trial < 12; trial++ {
		rank := r.intn(2, 4)
		axis := r.intn(0, rank-1)
		base := make([]int, rank)
		for d := range base {
			base[d] = r.intn(1, 23)
		}
		var ins []*ops.Tensor
		var datas [][]float32
		for i := 0; i < r.intn(2, 5); i++ {
			s := copyShape(base)
			s[axis] = r.intn(0, 29)
			d := randFloats(&r, prod(s), -1, 1)
			datas = append(datas, d)
			ins = append(ins, tensorOf(ops.Float32, s, d))
		}
		n := node(&ConcatenationOptions{Axis: axis}, ins, outTensor(ops.Float32))
		run(t, NewConcatenation(), n)
		out := n.Outputs[0]
		got := out.Float32s()
		forEach(out.Shape, func(idx []int) {
			p, i := idx[axis], 0
			for p >= ins[i].Shape[axis] {
				p -= ins[i].Shape[axis]
				i++
			}
			src := append([]int(nil), idx...)
			src[axis] = p
			if w := datas[i][index(ins[i].Shape, src)]; got[index(out.Shape, idx)] != w {
				t.Fatalf("trial %d: output %v = %v, want %v", trial, idx, got[index(out.Shape, idx)], w)
			}
		})
	}
	// The uint8 rescaling path over many blocks.
	var ins []*ops.Tensor
	for i, rg := range [][2]float64{{-10.7, 10.8}, {0, 12.8}, {-11, 11.8}} {
		ins = append(ins, quantTensor(ops.Uint8, []int{3, 1500 + 700*i}, randFloats(&r, 3*(1500+700*i), -10, 10), rg[0], rg[1]))
	}
	run(t, NewConcatenation(), node(&ConcatenationOptions{Axis: 1}, ins, quantOut(ops.Uint8, -12.7, 12.8)))
}

// TestConcatenationNarrowSegments: int8 inputs joined along the last axis
// with segments of 0 to 5 bytes and wider (copyByteRuns' byte loops and its
// copyRuns path), over outer slices spanning many concatBlock blocks, so
// that thread splits (run: 2-4 threads) start and end inside slices;
// against the element-by-element definition.
func TestConcatenationNarrowSegments(t *testing.T) {
	r := lcg(17)
	for trial := 0; trial < 10; trial++ {
		outer := r.intn(900, 3000)
		var ins []*ops.Tensor
		var chans []int
		for i := 0; i < r.intn(1, 6); i++ {
			c := []int{0, 1, 1, 2, 3, 4, 5, 16, 37}[r.intn(0, 8)]
			d := make([]int8, outer*c)
			for j := range d {
				d[j] = int8(r.intn(-128, 127))
			}
			chans = append(chans, c)
			ins = append(ins, q(tensorOf(ops.Int8, []int{outer, c}, d), 0.5, 3))
		}
		n := node(&ConcatenationOptions{Axis: 1}, ins, q(outTensor(ops.Int8), 0.5, 3))
		run(t, NewConcatenation(), n)
		got := n.Outputs[0].Int8s()
		total := 0
		for _, c := range chans {
			total += c
		}
		for p := 0; p < outer; p++ {
			at := 0
			for i, c := range chans {
				for j := 0; j < c; j++ {
					if w := ins[i].Int8s()[p*c+j]; got[p*total+at+j] != w {
						t.Fatalf("trial %d (channels %v): output [%d %d] = %d, want %d", trial, chans, p, at+j, got[p*total+at+j], w)
					}
				}
				at += c
			}
		}
	}
}
