package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// RfftName is the custom code of TFLite Micro's RFFT
// (signal/micro/kernels/rfft.cc, Register_RFFT, which serves all three
// types).
const RfftName = "SignalRfft"

// Rfft is the kernel of SignalRfft: the real FFT of each innermost row
// of its input, zero-padded to fft_length.
//
// Input 0 is int16, int32 or float32 [..., n] with 1 ≤ n ≤ fft_length;
// output 0 has the same type and shape [..., (fft_length/2+1)·2]: the
// fft_length/2+1 complex bins of each row as (real, imaginary) pairs.
// The transform is kissfft's kiss_fftr (see kissfft.go) in the build of
// the type: for int16 and int32 the result is scaled by 1/fft_length
// (each radix stage divides by its radix), for float32 it is not.
//
// Options (custom_options, a FlexBuffer map read by position as TFLite
// Micro's RfftInit does): T (the TFLite tensor type: 7 int16, 2 int32, 0
// float32; it must match the input), fft_length (a power of two from 4
// to 1<<20; TFLite Micro's kissfft accepts any even length, tflrun's
// radix-2/4 FFT only these).
type Rfft struct {
	typ    ops.DataType
	fftLen int
	run    func(in, out []byte, inLen, rows int)
}

// NewRfft returns a SignalRfft kernel for one node.
func NewRfft() ops.Kernel { return &Rfft{} }

func init() { register(RfftName, NewRfft) }

// fftOptions reads the T and fft_length options of SignalRfft and
// SignalIrfft.
func fftOptions(n *ops.Node) (ops.DataType, int, error) {
	v, err := readOptions(n, option{"T", optInt}, option{"fft_length", optInt})
	if err != nil {
		return 0, 0, err
	}
	var typ ops.DataType
	switch v[0] {
	case 7:
		typ = ops.Int16
	case 2:
		typ = ops.Int32
	case 0:
		typ = ops.Float32
	default:
		return 0, 0, fmt.Errorf("options: T = %d, need 7 (int16), 2 (int32) or 0 (float32)", v[0])
	}
	if err := checkFFTLength(v[1]); err != nil {
		return 0, 0, err
	}
	return typ, int(v[1]), nil
}

// Prepare decodes the options, validates the node, sets the output shape
// and builds the FFT's tables.
func (k *Rfft) Prepare(n *ops.Node) error {
	*k = Rfft{}
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
	inLen := in.Dim(-1)
	if inLen < 1 || inLen > fftLen {
		return fmt.Errorf("input 0: innermost dimension %d, need 1 to fft_length (%d)", inLen, fftLen)
	}
	out, err := output(n, 0, "output", typ)
	if err != nil {
		return err
	}
	shape := copyShape(in.Shape)
	shape[len(shape)-1] = (fftLen/2 + 1) * 2
	if _, err := ops.ShapeElements(shape, typ.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	// The tables: twiddles and scratch of fft_length/2 complex values,
	// super twiddles of fft_length/4, a padded row of fft_length/2.
	if err := n.Reserve(fftLen*7/4*2*typ.Size(), "SignalRfft tables"); err != nil {
		return err
	}
	switch typ {
	case ops.Int16:
		k.run = rfftRunner[int16, q15](fftLen)
	case ops.Int32:
		k.run = rfftRunner[int32, q31](fftLen)
	default:
		k.run = rfftRunner[float32, flt](fftLen)
	}
	return nil
}

// rfftRunner returns the row loop of RfftEval for one sample type: each
// row is copied into a work area, zero-padded and transformed.
func rfftRunner[T sample, A arith[T]](fftLen int) func(in, out []byte, inLen, rows int) {
	st := newKissFFTR[T, A](fftLen, false)
	work := make([]cpx[T], fftLen/2)
	bins := fftLen/2 + 1
	return func(inb, outb []byte, inLen, rows int) {
		src := ops.View[T](inb)
		dst := ops.View[cpx[T]](outb)
		for r := 0; r < rows; r++ {
			row := src[r*inLen : (r+1)*inLen]
			clear(work)
			for j, v := range row {
				if j&1 == 0 {
					work[j>>1].r = v
				} else {
					work[j>>1].i = v
				}
			}
			st.forward(work, dst[r*bins:(r+1)*bins])
		}
	}
}

// Eval transforms every row.
func (k *Rfft) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	if !hasData(in, out) {
		return errShort
	}
	inLen := in.Dim(-1)
	k.run(in.Data, out.Data, inLen, in.NumElements()/inLen)
	return nil
}
