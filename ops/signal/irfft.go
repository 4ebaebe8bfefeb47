package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// IrfftName is the custom code of TFLite Micro's inverse RFFT
// (signal/micro/kernels/irfft.cc, Register_IRFFT).
const IrfftName = "SignalIrfft"

// Irfft is the kernel of SignalIrfft: the inverse real FFT of each
// innermost row of complex bins.
//
// Input 0 is int16, int32 or float32 [..., 2·b] with b ≥ fft_length/2+1
// complex bins (real, imaginary) per row, of which the first
// fft_length/2+1 are read; output 0 has the same type and shape [...,
// fft_length]. The transform is kissfft's kiss_fftri: for int16 and
// int32 its first pass and each radix stage divide by 2 or the radix, as
// in the forward transform (kissfft's fixed-point scaling, no further
// correction); for float32, which kissfft leaves unscaled, the result is
// divided by fft_length as irfft_float.cc does.
//
// Options as SignalRfft's: T and fft_length.
type Irfft struct {
	typ    ops.DataType
	fftLen int
	run    func(in, out []byte, inRow, rows int)
}

// NewIrfft returns a SignalIrfft kernel for one node.
func NewIrfft() ops.Kernel { return &Irfft{} }

func init() { register(IrfftName, NewIrfft) }

// Prepare decodes the options, validates the node, sets the output shape
// and builds the FFT's tables.
func (k *Irfft) Prepare(n *ops.Node) error {
	*k = Irfft{}
	typ, fftLen, err := fftOptions(n)
	if err != nil {
		return err
	}
	k.typ, k.fftLen = typ, fftLen
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, _, err := input(n, 0, "input", typ, -1)
	if err != nil {
		return err
	}
	if in.Rank() < 1 {
		return fmt.Errorf("input 0: shape %v, need rank at least 1", in.Shape)
	}
	inRow := in.Dim(-1)
	if need := (fftLen/2 + 1) * 2; inRow < need || inRow%2 != 0 {
		return fmt.Errorf("input 0: innermost dimension %d, need an even count of at least (fft_length/2+1)·2 = %d", inRow, need)
	}
	out, err := output(n, 0, "output", typ)
	if err != nil {
		return err
	}
	shape := copyShape(in.Shape)
	shape[len(shape)-1] = fftLen
	out.Shape = shape
	if err := n.Reserve(fftLen*5/4*2*typ.Size(), "SignalIrfft tables"); err != nil {
		return err
	}
	switch typ {
	case ops.Int16:
		k.run = irfftRunner[int16, q15](fftLen, false)
	case ops.Int32:
		k.run = irfftRunner[int32, q31](fftLen, false)
	default:
		k.run = irfftRunner[float32, flt](fftLen, true)
	}
	return nil
}

// irfftRunner returns IrfftEval's row loop for one sample type; scale
// divides the float output by fft_length (IrfftFloatApply).
func irfftRunner[T sample, A arith[T]](fftLen int, scale bool) func(in, out []byte, inRow, rows int) {
	st := newKissFFTR[T, A](fftLen, true)
	half := fftLen / 2
	return func(inb, outb []byte, inRow, rows int) {
		src := ops.View[cpx[T]](inb)
		dst := ops.View[cpx[T]](outb)
		bins := inRow / 2
		for r := 0; r < rows; r++ {
			o := dst[r*half : (r+1)*half]
			st.inverseTransform(src[r*bins:(r+1)*bins], o)
			if scale {
				for j := range o {
					o[j].r /= T(fftLen)
					o[j].i /= T(fftLen)
				}
			}
		}
	}
}

// Eval transforms every row.
func (k *Irfft) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	if !hasData(in, out) {
		return errShort
	}
	inRow := in.Dim(-1)
	k.run(in.Data, out.Data, inRow, in.NumElements()/inRow)
	return nil
}
