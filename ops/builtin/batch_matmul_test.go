package builtin

import (
	"fmt"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Tests of BATCH_MATMUL: TFLite's kernel test vectors
// (batch_matmul_test.cc), every type path against the operator's
// definition on random shapes (ranks 2-5, broadcasting, adj_x/adj_y,
// constant and run-time rhs), the hybrid path against TFLite's float32
// epilogue, the options decoder and the nodes TFLite refuses. The recorded
// TensorFlow Lite outputs are checked in batch_matmul_golden_test.go.

// bmmCase is one product: shapes as given to the operator.
type bmmCase struct {
	xs, ys     []int
	adjX, adjY bool
}

// bmmDims returns A, B, C and the extended (5-D) batch dimensions.
func (c bmmCase) dims() (a, b, cc int, xb, yb, ob []int) {
	rank := max(len(c.xs), len(c.ys))
	ext := func(s []int) []int {
		e := make([]int, rank)
		for i := range e {
			e[i] = 1
		}
		copy(e[rank-len(s):], s)
		return e
	}
	xe, ye := ext(c.xs), ext(c.ys)
	a, b = xe[rank-2], xe[rank-1]
	if c.adjX {
		a, b = b, a
	}
	cc = ye[rank-1]
	if c.adjY {
		cc = ye[rank-2]
	}
	xb, yb = xe[:rank-2], ye[:rank-2]
	ob = make([]int, rank-2)
	for i := range ob {
		ob[i] = max(xb[i], yb[i])
	}
	return a, b, cc, xb, yb, ob
}

// bmmRef computes out[o, i, j] = Σ_k X[i, k]·Y[k, j] with broadcasting,
// X and Y read through adj_x and adj_y; x and y as int64 or float64.
func bmmRef[T int64 | float64](c bmmCase, x, y []T) []T {
	a, b, cc, xb, yb, ob := c.dims()
	nOut := prod(ob)
	out := make([]T, nOut*a*cc)
	idx := make([]int, len(ob))
	for o := 0; o < nOut; o++ {
		// Decompose o over ob and map to x's and y's matrices.
		rem := o
		for d := len(ob) - 1; d >= 0; d-- {
			idx[d] = rem % ob[d]
			rem /= ob[d]
		}
		xi, yi := 0, 0
		for d := range ob {
			xv, yv := idx[d], idx[d]
			if xb[d] == 1 {
				xv = 0
			}
			if yb[d] == 1 {
				yv = 0
			}
			xi = xi*xb[d] + xv
			yi = yi*yb[d] + yv
		}
		for i := 0; i < a; i++ {
			for j := 0; j < cc; j++ {
				var s T
				for k := 0; k < b; k++ {
					xo := xi*a*b + i*b + k
					if c.adjX {
						xo = xi*a*b + k*a + i
					}
					yo := yi*b*cc + k*cc + j
					if c.adjY {
						yo = yi*b*cc + j*b + k
					}
					s += x[xo] * y[yo]
				}
				out[(o*a+i)*cc+j] = s
			}
		}
	}
	return out
}

// randomBMM draws shapes of rank 2-5 with broadcastable batch dimensions.
func randomBMM(r *lcg) bmmCase {
	a, b, c := r.intn(1, 9), r.intn(1, 40), r.intn(1, 21)
	if r.intn(0, 4) == 0 {
		a = r.intn(60, 150) // several row blocks of a threaded product (bmmRowBlock)
	}
	rx, ry := r.intn(2, 5), r.intn(2, 5)
	rank := max(rx, ry)
	batch := make([]int, rank-2)
	for i := range batch {
		batch[i] = r.intn(1, 3)
	}
	cs := bmmCase{adjX: r.intn(0, 1) == 1, adjY: r.intn(0, 1) == 1}
	mk := func(rk int, rows, cols int, bcast bool) []int {
		s := make([]int, rk)
		for i := 0; i < rk-2; i++ {
			s[i] = batch[len(batch)-(rk-2)+i]
			if bcast && r.intn(0, 2) == 0 {
				s[i] = 1
			}
		}
		s[rk-2], s[rk-1] = rows, cols
		return s
	}
	if cs.adjX {
		cs.xs = mk(rx, b, a, true)
	} else {
		cs.xs = mk(rx, a, b, true)
	}
	if cs.adjY {
		cs.ys = mk(ry, c, b, true)
	} else {
		cs.ys = mk(ry, b, c, true)
	}
	return cs
}

func (c bmmCase) String() string {
	return fmt.Sprintf("x%v y%v adj_x=%v adj_y=%v", c.xs, c.ys, c.adjX, c.adjY)
}

func bmmNode(c bmmCase, x, y *ops.Tensor, outType ops.DataType, constY, asym bool) *ops.Node {
	if constY {
		constT(y)
	}
	return node(&BatchMatMulOptions{AdjX: c.adjX, AdjY: c.adjY, AsymmetricQuantizeInputs: asym}, []*ops.Tensor{x, y}, outTensor(outType))
}

func bmmOutShape(c bmmCase) []int {
	a, _, cc, _, _, ob := c.dims()
	return append(append([]int(nil), ob...), a, cc)
}

func TestBatchMatMulTFLiteVectors(t *testing.T) {
	// batch_matmul_test.cc, Simple: [1,2,3] × [1,3,4].
	x := tensorOf(ops.Float32, []int{1, 2, 3}, []float32{1, 2, 3, 4, 5, 6})
	y := tensorOf(ops.Float32, []int{1, 3, 4}, []float32{7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	n := bmmNode(bmmCase{}, x, y, ops.Float32, false, false)
	run(t, NewBatchMatMul(), n)
	wantShape(t, n.Outputs[0].Shape, []int{1, 2, 4})
	nearFloats(t, "Simple", n.Outputs[0].Float32s(), []float64{74., 80., 86., 92., 173., 188., 203., 218.}, 0)
	// BatchSizeTwo_Broadcast: [2,2,3] × [3,4].
	x = tensorOf(ops.Float32, []int{2, 2, 3}, []float32{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6})
	y = tensorOf(ops.Float32, []int{3, 4}, []float32{7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	n = bmmNode(bmmCase{}, x, y, ops.Float32, true, false)
	run(t, NewBatchMatMul(), n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 2, 4})
	nearFloats(t, "Broadcast", n.Outputs[0].Float32s(), []float64{74., 80., 86., 92., 173., 188., 203., 218., 74., 80., 86., 92., 173., 188., 203., 218.}, 0)
}

func TestBatchMatMulFloatAgainstDefinition(t *testing.T) {
	for _, mv := range []bool{false, true} {
		bmmForceMatVec = mv
		r := lcg(71)
		for trial := 0; trial < 80; trial++ {
			c := randomBMM(&r)
			x := make([]float32, prod(c.xs))
			y := make([]float32, prod(c.ys))
			for i := range x {
				x[i] = r.float(-1, 1)
			}
			for i := range y {
				y[i] = r.float(-1, 1)
			}
			n := bmmNode(c, tensorOf(ops.Float32, c.xs, x), tensorOf(ops.Float32, c.ys, y), ops.Float32, trial%3 == 0, false)
			k := NewBatchMatMul()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, bmmOutShape(c))
			xf, yf := make([]float64, len(x)), make([]float64, len(y))
			for i, v := range x {
				xf[i] = float64(v)
			}
			for i, v := range y {
				yf[i] = float64(v)
			}
			nearFloats(t, c.String(), n.Outputs[0].Float32s(), bmmRef(c, xf, yf), 1e-4)
			noAllocs(t, k, n)
		}
	}
	bmmForceMatVec = false
}

func bmmInts(r *lcg, n, lo, hi int) []int64 { return tconvRandomInts(r, n, lo, hi) }

func TestBatchMatMulInt8AgainstDefinition(t *testing.T) {
	r := lcg(73)
	for trial := 0; trial < 80; trial++ {
		c := randomBMM(&r)
		x := bmmInts(&r, prod(c.xs), -128, 127)
		y := bmmInts(&r, prod(c.ys), -128, 127)
		xzp, yzp, ozp := int64(r.intn(-128, 127)), int64(r.intn(-128, 127)), int64(r.intn(-128, 127))
		xsc, ysc, osc := float32(0.02), float32(0.03), float32(0.1)*float32(r.intn(1, 30))
		toInt32Out := trial%4 == 3
		outT := ops.DataType(ops.Int8)
		if toInt32Out {
			outT = ops.Int32
		}
		xt := q(tensorOf(ops.Int8, c.xs, toInt8(to32(x))), xsc, xzp)
		yt := q(tensorOf(ops.Int8, c.ys, toInt8(to32(y))), ysc, yzp)
		n := bmmNode(c, xt, yt, outT, trial%3 == 0, false)
		q(n.Outputs[0], osc, ozp)
		k := NewBatchMatMul()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, bmmOutShape(c))
		if toInt32Out {
			equalInts(t, c.String(), n.Outputs[0].Int32s(), bmmRef(c, x, y))
			noAllocs(t, k, n)
			continue
		}
		xo, yo := make([]int64, len(x)), make([]int64, len(y))
		for i, v := range x {
			xo[i] = v - xzp
		}
		for i, v := range y {
			yo[i] = v - yzp
		}
		sums := bmmRef(c, xo, yo)
		m, sh := ops.QuantizeMultiplier(float64(xsc*ysc) / float64(osc))
		want := make([]int32, len(sums))
		for i, s := range sums {
			want[i] = min(max(ops.MultiplyByQuantizedMultiplier(int32(s), m, sh)+int32(ozp), -128), 127)
		}
		equalInts(t, c.String(), n.Outputs[0].Int8s(), want)
		noAllocs(t, k, n)
	}
}

func TestBatchMatMulInt16AgainstDefinition(t *testing.T) {
	r := lcg(79)
	for trial := 0; trial < 80; trial++ {
		c := randomBMM(&r)
		yInt8 := trial%2 == 1
		x := bmmInts(&r, prod(c.xs), -32768, 32767)
		var y []int64
		var yt *ops.Tensor
		xsc, ysc, osc := float32(0.0001), float32(0.0002), float32(0.01)*float32(r.intn(1, 30))
		if trial%10 == 0 {
			for i := range x { // the ends of the range
				x[i] = []int64{-32768, 32767}[i%2]
			}
		}
		if yInt8 {
			y = bmmInts(&r, prod(c.ys), -128, 127)
			yt = q(tensorOf(ops.Int8, c.ys, toInt8(to32(y))), ysc*100, 0)
			ysc *= 100
		} else {
			y = bmmInts(&r, prod(c.ys), -32768, 32767)
			yt = q(tensorOf(ops.Int16, c.ys, toInt16(to32(y))), ysc, 0)
		}
		xt := q(tensorOf(ops.Int16, c.xs, toInt16(to32(x))), xsc, 0)
		n := bmmNode(c, xt, yt, ops.Int16, trial%3 == 0, false)
		q(n.Outputs[0], osc, 0)
		k := NewBatchMatMul()
		run(t, k, n)
		sums := bmmRef(c, x, y)
		m, sh := ops.QuantizeMultiplier(float64(xsc*ysc) / float64(osc))
		want := make([]int32, len(sums))
		for i, s := range sums {
			want[i] = min(max(ops.MultiplyByQuantizedMultiplier64(s, m, sh), -32768), 32767)
		}
		equalInts(t, fmt.Sprintf("%v y int8 %v", c, yInt8), n.Outputs[0].Int16s(), want)
		noAllocs(t, k, n)
	}
}

// bmmHybridRef is TFLite's hybrid BATCH_MATMUL written from
// batch_matmul.cc and reference_ops::BatchMatMul: the shapes compressed as
// TFLite does, every row of x quantised, the row scales indexed by the sum
// of the batch indices, the float32 epilogue step by step.
func bmmHybridRef(c bmmCase, x []float32, y []int8, scales []float32, asym bool) []float32 {
	xs, ys := append([]int(nil), c.xs...), append([]int(nil), c.ys...)
	if !c.adjX && len(xs) > 2 && len(ys) > 2 && ys[len(ys)-3] == 1 {
		l, m := len(xs), len(ys)
		xs = append(xs[:l-3:l-3], xs[l-3]*xs[l-2], xs[l-1])
		ys = append(ys[:m-3:m-3], ys[m-2], ys[m-1])
	}
	cc := bmmCase{xs: xs, ys: ys, adjX: c.adjX, adjY: c.adjY}
	a, b, n, _, _, _ := cc.dims()
	lD, rD := extend3(xs), extend3(ys)
	nL := lD[0] * lD[1] * lD[2]
	// Rows of x after adj_x, quantised.
	xr := make([]float32, len(x))
	for l := 0; l < nL; l++ {
		for i := 0; i < a; i++ {
			for k := 0; k < b; k++ {
				if c.adjX {
					xr[(l*a+i)*b+k] = x[l*a*b+k*a+i]
				} else {
					xr[(l*a+i)*b+k] = x[l*a*b+i*b+k]
				}
			}
		}
	}
	qx := make([]int8, len(x))
	sf := make([]float32, nL*a)
	zp := make([]int32, nL*a)
	for r := range sf {
		if asym {
			sf[r], zp[r] = ops.AsymmetricQuantizeFloats(xr[r*b:(r+1)*b], qx[r*b:])
		} else {
			sf[r] = ops.SymmetricQuantizeFloats(xr[r*b:(r+1)*b], qx[r*b:])
		}
		if len(scales) == 1 {
			sf[r] *= scales[0]
		}
	}
	// y as [matrix][C][B].
	nR := rD[0] * rD[1] * rD[2]
	yt := make([]int8, len(y))
	for m := 0; m < nR; m++ {
		for j := 0; j < n; j++ {
			for k := 0; k < b; k++ {
				if c.adjY {
					yt[(m*n+j)*b+k] = y[m*n*b+j*b+k]
				} else {
					yt[(m*n+j)*b+k] = y[m*n*b+k*n+j]
				}
			}
		}
	}
	rowSums := make([]int32, nR*n)
	for i := range rowSums {
		for k := 0; k < b; k++ {
			rowSums[i] += int32(yt[i*b+k])
		}
	}
	var oD [3]int
	for i := range oD {
		oD[i] = max(lD[i], rD[i])
	}
	nz := func(d [3]int, i, v int) int {
		if d[i] == 1 {
			return 0
		}
		return v
	}
	out := make([]float32, oD[0]*oD[1]*oD[2]*a*n)
	for b0 := 0; b0 < oD[0]; b0++ {
		for b1 := 0; b1 < oD[1]; b1++ {
			for b2 := 0; b2 < oD[2]; b2++ {
				li := (nz(lD, 0, b0)*lD[1]+nz(lD, 1, b1))*lD[2] + nz(lD, 2, b2)
				ri := (nz(rD, 0, b0)*rD[1]+nz(rD, 1, b1))*rD[2] + nz(rD, 2, b2)
				oi := (b0*oD[1]+b1)*oD[2] + b2
				sIdx := (nz(lD, 0, b0) + nz(lD, 1, b1) + nz(lD, 2, b2)) * a
				wIdx := (nz(rD, 1, b1) + nz(rD, 2, b2)) * n
				for j := 0; j < a; j++ {
					for i := 0; i < n; i++ {
						var total int32
						for k := 0; k < b; k++ {
							total += int32(yt[(ri*n+i)*b+k]) * int32(qx[(li*a+j)*b+k])
						}
						total = f32ToInt32(float32(total) - float32(float32(rowSums[wIdx+i])*float32(zp[sIdx+j])))
						s := sf[sIdx+j]
						if len(scales) > 1 {
							s *= scales[i]
						}
						out[(oi*a+j)*n+i] = s * float32(total)
					}
				}
			}
		}
	}
	return out
}

func TestBatchMatMulHybridAgainstTFLiteArithmetic(t *testing.T) {
	r := lcg(83)
	for trial := 0; trial < 80; trial++ {
		c := randomBMM(&r)
		if c.ys[0] != 1 && len(c.ys) == 5 {
			c.ys[0] = 1 // TFLite refuses (see TestBatchMatMulErrors)
			if len(c.xs) == 5 {
				c.xs[0] = 1
			}
		}
		asym := trial%2 == 0
		x := make([]float32, prod(c.xs))
		for i := range x {
			x[i] = r.float(-2, 1.5)
		}
		y := toInt8(to32(bmmInts(&r, prod(c.ys), -127, 127)))
		_, _, cols, _, _, _ := c.dims()
		scales := []float32{0.01 * float32(r.intn(1, 9))}
		yt := tensorOf(ops.Int8, c.ys, y)
		if trial%3 == 1 {
			scales = make([]float32, cols)
			for i := range scales {
				scales[i] = 0.01 * float32(r.intn(1, 9))
			}
			qd := len(c.ys) - 1
			if c.adjY {
				qd = len(c.ys) - 2
			}
			yt.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, cols), QuantizedDimension: qd}
		} else {
			q(yt, scales[0], 0)
		}
		n := bmmNode(c, tensorOf(ops.Float32, c.xs, x), yt, ops.Float32, trial%4 != 3, asym)
		k := NewBatchMatMul()
		run(t, k, n)
		want := bmmHybridRef(c, x, y, scales, asym)
		got := n.Outputs[0].Float32s()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%v asym=%v: element %d = %v, want %v", c, asym, i, got[i], want[i])
			}
		}
		noAllocs(t, k, n)
	}
}

// TestBatchMatMulPerChannelRHS checks TFLite's reading of a per-channel
// quantised input 1 through its legacy per-tensor parameters (scale 0):
// every output is the output zero point.
func TestBatchMatMulPerChannelRHS(t *testing.T) {
	y := constT(tensorOf(ops.Int8, []int{4, 3}, []int8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
	y.Quant = &ops.Quantization{Scale: []float32{1, 2, 3}, ZeroPoint: make([]int64, 3), QuantizedDimension: 1}
	x := q(tensorOf(ops.Int8, []int{2, 4}, []int8{100, -100, 50, 127, 3, 4, 5, 6}), 0.5, 0)
	n := bmmNode(bmmCase{}, x, y, ops.Int8, true, false)
	q(n.Outputs[0], 0.01, -5)
	run(t, NewBatchMatMul(), n)
	equalInts(t, "int8", n.Outputs[0].Int8s(), []int{-5, -5, -5, -5, -5, -5})
	x16 := q(tensorOf(ops.Int16, []int{2, 4}, []int16{30000, -100, 50, 127, 3, 4, 5, 6}), 0.5, 0)
	n = bmmNode(bmmCase{}, x16, y, ops.Int16, true, false)
	q(n.Outputs[0], 0.01, 0)
	run(t, NewBatchMatMul(), n)
	equalInts(t, "int16", n.Outputs[0].Int16s(), []int{0, 0, 0, 0, 0, 0})
}

func TestBatchMatMulEmptyDepth(t *testing.T) {
	x := q(tensorOf(ops.Int8, []int{2, 0}, []int8{}), 0.5, 3)
	y := q(tensorOf(ops.Int8, []int{0, 3}, []int8{}), 0.5, 0)
	n := bmmNode(bmmCase{}, x, y, ops.Int8, true, false)
	q(n.Outputs[0], 0.25, -7)
	run(t, NewBatchMatMul(), n)
	equalInts(t, "empty depth", n.Outputs[0].Int8s(), []int{-7, -7, -7, -7, -7, -7})
}

func TestBatchMatMulOptionsDecoder(t *testing.T) {
	b := flatbuffers.NewBuilder(64)
	b.Finish((&schema.BatchMatMulOptionsT{AdjX: true, AsymmetricQuantizeInputs: true}).Pack(b))
	buf := b.FinishedBytes()
	got, err := decodeBatchMatMulOptions(ops.OptionsTable{Type: uint8(schema.BuiltinOptionsBatchMatMulOptions), Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := got.(*BatchMatMulOptions); !ok || *o != (BatchMatMulOptions{AdjX: true, AsymmetricQuantizeInputs: true}) {
		t.Fatalf("decoded %#v", got)
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for v := 1; v <= 5; v++ {
		if _, err := r.FindBuiltin(ops.OpBatchMatMul, v); (err == nil) != (v <= 4) {
			t.Errorf("version %d: %v (TFLite registers 1-4)", v, err)
		}
	}
}

func TestBatchMatMulErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	i8 := func(scale float32, zp int64, shape ...int) *ops.Tensor {
		return q(tensorOf(ops.Int8, shape, make([]int8, prod(shape))), scale, zp)
	}
	i16 := func(zp int64, shape ...int) *ops.Tensor {
		return q(tensorOf(ops.Int16, shape, make([]int16, prod(shape))), 0.01, zp)
	}
	mk := func(x, y *ops.Tensor, out *ops.Tensor, o *BatchMatMulOptions) *ops.Node {
		return node(o, []*ops.Tensor{x, y}, out)
	}
	perChan := func() *ops.Tensor {
		y := i8(1, 0, 4, 3)
		y.Quant = &ops.Quantization{Scale: []float32{1, 2, 3, 4}, ZeroPoint: make([]int64, 4), QuantizedDimension: 0}
		return constT(y)
	}
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"depth mismatch", mk(f32(2, 3), f32(4, 5), outTensor(ops.Float32), nil), []string{"depth 3", "4"}},
		{"adj depth mismatch", mk(f32(2, 3), f32(2, 5), outTensor(ops.Float32), &BatchMatMulOptions{AdjX: true, AdjY: true}), []string{"depth 2", "5"}},
		{"batch mismatch", mk(f32(2, 2, 3), f32(3, 3, 4), outTensor(ops.Float32), nil), []string{"do not broadcast"}},
		{"rank 1", mk(f32(3), f32(3, 4), outTensor(ops.Float32), nil), []string{"input 0", "rank 1"}},
		{"rank 6", mk(f32(1, 1, 1, 1, 2, 3), f32(3, 4), outTensor(ops.Float32), nil), []string{"rank 6"}},
		{"types", mk(f32(2, 3), i16(0, 3, 4), outTensor(ops.Float32), nil), []string{"int16", "float32"}},
		{"int8 × int16", mk(i8(1, 0, 2, 3), i16(0, 3, 4), outTensor(ops.Int8), nil), []string{"int16", "int8"}},
		{"output type", mk(f32(2, 3), f32(3, 4), outTensor(ops.Int8), nil), []string{"output 0", "int8"}},
		{"int8 float output", mk(i8(1, 0, 2, 3), i8(1, 0, 3, 4), outTensor(ops.Float32), nil), []string{"output 0", "float32"}},
		{"int8 unquantized output", mk(i8(1, 0, 2, 3), i8(1, 0, 3, 4), outTensor(ops.Int8), nil), []string{"output 0", "quantization"}},
		{"int16 zero point", mk(i16(3, 2, 3), i16(0, 3, 4), q(outTensor(ops.Int16), 1, 0), nil), []string{"zero points 0", "3"}},
		{"int16 shift", mk(i16(0, 2, 3), i16(0, 3, 4), q(outTensor(ops.Int16), 1e-9, 0), nil), []string{"too small"}},
		{"hybrid no quantization", mk(f32(2, 3), constT(tensorOf(ops.Int8, []int{3, 4}, make([]int8, 12))), outTensor(ops.Float32), nil), []string{"no quantization"}},
		{"hybrid per-channel dimension", mk(f32(2, 4), perChan(), outTensor(ops.Float32), nil), []string{"4 scales along dimension 0", "(3) along dimension 1"}},
		{"hybrid rank-5 rhs batch", mk(f32(1, 1, 2, 2, 3), constT(i8(1, 0, 2, 1, 2, 3, 4)), outTensor(ops.Float32), nil), []string{"uninitialised row sums"}},
		{"huge output", mk(&ops.Tensor{Type: ops.Float32, Shape: []int{1 << 15, 1 << 10, 1}}, &ops.Tensor{Type: ops.Float32, Shape: []int{1 << 15, 1, 1 << 10}}, outTensor(ops.Float32), nil), []string{"output 0"}},
		{"wrong options", node(&Conv2DOptions{}, []*ops.Tensor{f32(2, 3), f32(3, 4)}, outTensor(ops.Float32)), []string{"need *BatchMatMulOptions"}},
		{"one input", node(nil, []*ops.Tensor{f32(2, 3)}, outTensor(ops.Float32)), []string{"1 inputs"}},
		{"omitted input", node(nil, []*ops.Tensor{f32(2, 3), nil}, outTensor(ops.Float32)), []string{"input 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantPrepareError(t, NewBatchMatMul(), c.n, c.wants...)
		})
	}
	if err := NewBatchMatMul().Eval(mk(f32(2, 3), f32(3, 4), outTensor(ops.Float32), nil)); err == nil {
		t.Fatal("Eval without Prepare succeeded")
	}
}
