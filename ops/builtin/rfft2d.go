package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Rfft2d is the kernel of TFLite's RFFT2D operator (tf.signal.rfft2d): the
// two-dimensional real-to-complex DFT of the innermost two dimensions.
// Input 0 is float32 [..., height, width]; input 1 is the int32 vector
// fft_length [fft_height, fft_width], both powers of two (fft_width at
// least 2); output 0 is
// COMPLEX64 [..., fft_height, fft_width/2+1] with
//
//	out[k1, k2] = Σ_{j1<fft_height, j2<fft_width} x[j1, j2]·e^(−2πi(j1k1/fft_height + j2k2/fft_width))
//
// where the input is cropped or zero-padded to fft_height × fft_width (as
// TFLite's PrepareInputBuffer), unnormalised, for k2 ≤ fft_width/2 (the
// rest follows by symmetry). TFLite computes it in float64 with fft2d's
// rdft2d and reorders the result to this layout (rfft2d.cc
// Rfft2dReorder); this kernel computes the same transform in float64 (see
// fft_common.go) and rounds once to float32.
//
// fft_length must be a constant: TFLite sizes the output at Eval when it
// is not (a dynamic tensor), which tflrun does not support yet. Version 1,
// as TFLite's register.cc.
type Rfft2d struct {
	rows           *realFFT
	cols           *fft
	height, width  int // fft_length
	inH, inW       int // the input's innermost dimensions
	slices, outW   int
	scratchID      int
	matLen, rowLen int
	// Eval splits the slices over threads (slicesFn), each with its own
	// working memory (perThread float64s of the scratch); work, src and
	// dst are the scratch and the tensors during Eval.
	perThread int
	work      []float64
	src, dst  []float32
	slicesFn  func(worker, lo, hi int)
}

// NewRfft2d returns an RFFT2D kernel for one node.
func NewRfft2d() ops.Kernel { return &Rfft2d{} }

func init() { register(ops.OpRfft2d, NewRfft2d, [2]int{1, 1}) }

// Prepare validates the node, makes the transform tables and sets the
// output shape.
func (k *Rfft2d) Prepare(n *ops.Node) error {
	*k = Rfft2d{}
	k.slicesFn = k.transformSlices
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	lenT, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return err
	}
	if in.Rank() < 2 {
		return fmt.Errorf("input 0: shape %v has rank %d, RFFT2D needs at least 2", in.Shape, in.Rank())
	}
	if err := requireType(lenT, "input 1 (fft_length)", ops.Int32); err != nil {
		return err
	}
	if lenT.Rank() != 1 || lenT.Shape[0] != 2 {
		return fmt.Errorf("input 1 (fft_length): shape %v, need [2]", lenT.Shape)
	}
	if !lenT.IsConstant() {
		return ops.NotConstant("input 1 (fft_length)")
	}
	if err := requireType(out, "output 0", ops.Complex64); err != nil {
		return err
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	fl := lenT.Int32s()
	k.height, k.width = int(fl[0]), int(fl[1])
	for _, l := range []struct {
		name string
		n    int
	}{{"fft_height", k.height}, {"fft_width", k.width}} {
		if !isPowerOfTwo(l.n) || l.n > maxFFTLength {
			return fmt.Errorf("input 1 (fft_length): %s %d is not a power of two in [1, %d]", l.name, l.n, maxFFTLength)
		}
	}
	// fft2d's rdft2d needs a row length of at least 2 (its documented
	// domain); TFLite does not check it and, given 1, returns values that
	// are not the transform. tflrun refuses it rather than copy them.
	if k.width < 2 {
		return fmt.Errorf("input 1 (fft_length): fft_width %d, need at least 2 (TFLite's fft2d computes no valid transform of width 1)", k.width)
	}
	r := in.Rank()
	k.inH, k.inW = in.Shape[r-2], in.Shape[r-1]
	k.outW = k.width/2 + 1
	shape := copyShape(in.Shape)
	shape[r-2], shape[r-1] = k.height, k.outW
	if _, err := ops.ShapeElements(shape, ops.Complex64.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	k.slices = 1
	for _, d := range in.Shape[:r-2] {
		k.slices *= d
	}
	// Working memory, float64: the row transforms' results (height ×
	// outW complex values), then one row and one column (real and
	// imaginary parts).
	if k.matLen, err = ops.ShapeElements([]int{2, k.height, k.outW}, 8); err != nil {
		return fmt.Errorf("input 1 (fft_length): working memory: %v", err)
	}
	k.rowLen = max(k.width, k.height)
	if k.rows, err = newRealFFT(k.width); err != nil {
		return fmt.Errorf("input 1 (fft_length): fft_width: %v", err)
	}
	if k.cols, err = newFFT(k.height); err != nil {
		return fmt.Errorf("input 1 (fft_length): fft_height: %v", err)
	}
	k.perThread = k.matLen + 2*k.rowLen
	total, err := ops.ShapeElements([]int{k.perThread, min(n.Threads(), max(k.slices, 1))}, 8)
	if err != nil {
		return fmt.Errorf("input 1 (fft_length): working memory: %v", err)
	}
	k.scratchID = n.RequestScratch(8 * total)
	out.Shape = shape
	return nil
}

// Eval transforms every slice: the real rows first, then the columns of
// the non-redundant half.
func (k *Rfft2d) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("RFFT2D: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	threads := min(n.Threads(), max(k.slices, 1))
	sb, err := scratchBytes(n, k.scratchID, 8*k.perThread*threads)
	if err != nil {
		return err
	}
	k.work = ops.View[float64](sb)
	k.src, k.dst = in.Float32s(), ops.View[float32](out.Data) // complex64 output as (re, im) pairs
	n.Parallel(k.slices, k.slices*k.height*k.width*8, k.slicesFn)
	k.work, k.src, k.dst = nil, nil, nil
	return nil
}

// transformSlices transforms the slices [lo, hi) on worker's working
// memory.
func (k *Rfft2d) transformSlices(worker, lo, hi int) {
	work := k.work[worker*k.perThread : (worker+1)*k.perThread]
	mat := work[:k.matLen]
	re, im := work[k.matLen:k.matLen+k.rowLen], work[k.matLen+k.rowLen:k.matLen+2*k.rowLen]
	src, dst := k.src, k.dst
	h, w, outW := k.height, k.width, k.outW
	copyH, copyW := min(k.inH, h), min(k.inW, w)
	zr, zi := im[:w/2], im[w/2:w]
	for s := lo; s < hi; s++ {
		x := src[s*k.inH*k.inW:]
		y := dst[2*s*h*outW:]
		for r := 0; r < h; r++ {
			row := mat[2*r*outW : 2*(r+1)*outW]
			if r >= copyH {
				clear(row)
				if h == 1 {
					clear(y[:2*outW])
				}
				continue
			}
			xr := x[r*k.inW : r*k.inW+copyW]
			if copyW == w {
				// The row (cropped to w) converts to float64 as the
				// transform reads it.
				loadRealFFT(k.rows, xr, zr, zi)
			} else {
				// A short row is zero-padded in re first.
				for j, v := range xr {
					re[j] = float64(v)
				}
				clear(re[copyW:w])
				loadRealFFT(k.rows, re[:w], zr, zi)
			}
			k.rows.half.passesAfterFirst(zr, zi)
			if h == 1 {
				// A column of one value is its own transform (the audio
				// front ends' case): the row's bins are the output.
				splitRealFFT(k.rows, zr, zi, y[:2*outW])
				continue
			}
			splitRealFFT(k.rows, zr, zi, row)
		}
		if h == 1 {
			continue
		}
		for c := 0; c < outW; c++ {
			for r := 0; r < h; r++ {
				re[r], im[r] = mat[2*(r*outW+c)], mat[2*(r*outW+c)+1]
			}
			k.cols.transform(re, im)
			for r := 0; r < h; r++ {
				y[2*(r*outW+c)] = float32(re[r])
				y[2*(r*outW+c)+1] = float32(im[r])
			}
		}
	}
}
