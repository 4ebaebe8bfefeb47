package builtin

import "github.com/tflrun/tflrun/arch"

// floatBinaryOp names the float32 arithmetic of broadcastFloat32.
type floatBinaryOp uint8

const (
	floatAdd floatBinaryOp = iota
	floatSub
	floatMul
)

// broadcastFloat32 is broadcastApply for float32 ADD, SUB and MUL: out =
// a op b over the broadcast output, then every value clamped to [lo, hi]
// (the fused activation's range) as clampF32 does (arch.VecClamp gives the same
// bits). Each element is one IEEE float32 operation, as in the per-element
// path, so the results are identical; what changes is that the innermost
// broadcast dimension runs as one vector loop (arch.VecAdd, arch.VecSub
// and arch.VecMul where both inputs step, arch.VecScalarF32 where one
// repeats) instead of a function call per element. A per-channel
// operand [C] against [N, H, W, C] (a batch normalisation after a ReLU,
// say) becomes N·H·W vector calls of length C.
func broadcastFloat32(bc *broadcast, a, b, out []float32, op floatBinaryOp, lo, hi float32) {
	if !bc.needed {
		n := bc.count
		floatRun(op, out[:n], a[:n], b[:n], 1, 1)
	} else if n := bc.dims[5]; n < shortRun && bc.dims[4] > 1 {
		// Short runs (RoPE's pairs against [.., 1, 2], a per-channel
		// operand of 3 channels): a call per run would cost more than
		// its elements, so the runs of the innermost two dimensions go
		// as one block per call.
		bc.eachBlock(func(o, ia, ib int) {
			floatBlock(op, out[o:o+bc.dims[4]*n], a[ia:], b[ib:], n, bc.strideA[5], bc.strideB[5], bc.strideA[4], bc.strideB[4])
		})
	} else {
		n, sa, sb := bc.dims[5], bc.strideA[5], bc.strideB[5]
		bc.eachRun(func(o, ia, ib int) {
			floatRun(op, out[o:o+n], a[ia:], b[ib:], sa, sb)
		})
	}
	arch.VecClamp(out[:bc.count], lo, hi)
}

// floatRun sets dst[i] = a[i·sa] op b[i·sb] for i < len(dst); each stride
// is 0 (the value repeats) or 1.
func floatRun(op floatBinaryOp, dst, a, b []float32, sa, sb int) {
	n := len(dst)
	if n == 0 {
		return
	}
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:n], b[:n]
		switch op {
		case floatAdd:
			arch.VecAdd(dst, a, b)
		case floatMul:
			arch.VecMul(dst, a, b)
		default:
			arch.VecSub(dst, a, b)
		}
	case sa == 1 && sb == 0:
		arch.VecScalarF32(dst, a[:n], b[0], [...]int{floatAdd: arch.ScalarAdd, floatSub: arch.ScalarSub, floatMul: arch.ScalarMul}[op])
	case sa == 0 && sb == 1:
		// x op b[i]: addition and multiplication commute bit for bit
		// (but for which NaN payload survives), subtraction is y − b[i].
		arch.VecScalarF32(dst, b[:n], a[0], [...]int{floatAdd: arch.ScalarAdd, floatSub: arch.ScalarRSub, floatMul: arch.ScalarMul}[op])
	default: // both repeat: a single value (only when the run has length 1)
		v := floatOp(op, a[0], b[0])
		for i := range dst {
			dst[i] = v
		}
	}
}

// shortRun is the run length below which broadcastFloat32 hands out
// blocks of runs rather than runs.
const shortRun = 8

// floatBlock sets the runs of n elements of dst in turn: run r is
// a[r·ra + j·sa] op b[r·rb + j·sb] for j < n (each stride 0 or 1 within
// a run), one IEEE float32 operation per element as floatRun.
func floatBlock(op floatBinaryOp, dst, a, b []float32, n, sa, sb, ra, rb int) {
	// One operand steps through the whole block, the other repeats its
	// run in every run: for each position j of the run, one loop over
	// the block's elements at j with the repeated value in a register.
	switch m := len(dst); {
	case sa == 1 && ra == n && rb == 0:
		a = a[:m]
		for j := 0; j < n; j++ {
			floatStrided(op, dst, a, b[j*sb], j, n, false)
		}
		return
	case sb == 1 && rb == n && ra == 0:
		b = b[:m]
		for j := 0; j < n; j++ {
			floatStrided(op, dst, b, a[j*sa], j, n, true)
		}
		return
	}
	for r := 0; r*n < len(dst); r++ {
		d := dst[r*n : r*n+n]
		x, y := a[r*ra:], b[r*rb:]
		switch op {
		case floatAdd:
			for j := range d {
				d[j] = x[j*sa] + y[j*sb]
			}
		case floatMul:
			for j := range d {
				d[j] = x[j*sa] * y[j*sb]
			}
		default:
			for j := range d {
				d[j] = x[j*sa] - y[j*sb]
			}
		}
	}
}

// floatStrided sets dst[r] = x[r] op v for r = j, j+n, … (v op x[r]
// with vFirst).
func floatStrided(op floatBinaryOp, dst, x []float32, v float32, j, n int, vFirst bool) {
	x = x[:len(dst)]
	switch {
	case op == floatAdd:
		for r := j; r < len(dst); r += n {
			dst[r] = x[r] + v
		}
	case op == floatMul:
		for r := j; r < len(dst); r += n {
			dst[r] = x[r] * v
		}
	case vFirst:
		for r := j; r < len(dst); r += n {
			dst[r] = v - x[r]
		}
	default:
		for r := j; r < len(dst); r += n {
			dst[r] = x[r] - v
		}
	}
}

// floatOp is one element of floatRun.
func floatOp(op floatBinaryOp, x, y float32) float32 {
	switch op {
	case floatAdd:
		return x + y
	case floatMul:
		return x * y
	}
	return x - y
}
