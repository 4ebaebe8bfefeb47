package signal

import (
	"fmt"
	"math"
)

// This file is tflrun's rendering of kissfft v130 (Mark Borgerding's Kiss
// FFT, kiss_fft.c and tools/kiss_fftr.c, BSD licence), the FFT TFLite
// Micro's SignalRfft and SignalIrfft call through signal/src/rfft_*.cc and
// irfft_*.cc, in its three builds: FIXED_POINT 16 (int16 samples, Q15
// twiddles, 32-bit products), FIXED_POINT 32 (int32, Q31, 64-bit
// products) and float. Every fixed-point step is kissfft's: each
// butterfly stage first divides its inputs by the radix (C_FIXDIV: a
// multiply by SAMP_MAX/radix rounded as sround), products round half up
// by adding 1<<(FRACBITS-1) before the shift, sums wrap in the sample
// type. Only the radix-4 and radix-2 stages are implemented: tflrun takes
// power-of-two FFT lengths only (kissfft's radix-3, -5 and generic stages
// serve other even lengths, which no Signal model uses).

// cpx is kiss_fft_cpx: a complex sample, real then imaginary, the layout
// of TFLite Micro's Complex<T> in a tensor.
type cpx[T sample] struct{ r, i T }

type sample interface{ ~int16 | ~int32 | ~float32 }

// arith is one build of kissfft's complex-math macros.
type arith[T sample] interface {
	// mul is C_MUL: a·b.
	mul(a, b cpx[T]) cpx[T]
	// div is C_FIXDIV(c, radix) given k = SAMP_MAX/radix; float: c.
	div(c cpx[T], k T) cpx[T]
	// half is HALF_OF(a+b) and halfDiff HALF_OF(a-b), the sum or
	// difference taken in C's promoted type.
	half(a, b T) T
	halfDiff(a, b T) T
	// twiddle is kf_cexp(phase).
	twiddle(phase float64) cpx[T]
	// divisor is SAMP_MAX/radix (0 for float).
	divisor(radix int) T
}

// q15 is the FIXED_POINT=16 build.
type q15 struct{}

func sround15(x int32) int16 { return int16((x + 1<<14) >> 15) }

func (q15) mul(a, b cpx[int16]) cpx[int16] {
	return cpx[int16]{
		sround15(int32(a.r)*int32(b.r) - int32(a.i)*int32(b.i)),
		sround15(int32(a.r)*int32(b.i) + int32(a.i)*int32(b.r)),
	}
}
func (q15) div(c cpx[int16], k int16) cpx[int16] {
	return cpx[int16]{sround15(int32(c.r) * int32(k)), sround15(int32(c.i) * int32(k))}
}

// half: int16 operands promote to int, so the sum does not wrap before
// the shift; the result is stored as int16.
func (q15) half(a, b int16) int16     { return int16((int32(a) + int32(b)) >> 1) }
func (q15) halfDiff(a, b int16) int16 { return int16((int32(a) - int32(b)) >> 1) }
func (q15) twiddle(phase float64) cpx[int16] {
	return cpx[int16]{int16(math.Floor(.5 + 32767*math.Cos(phase))), int16(math.Floor(.5 + 32767*math.Sin(phase)))}
}
func (q15) divisor(radix int) int16 { return int16(32767 / radix) }

// q31 is the FIXED_POINT=32 build.
type q31 struct{}

func sround31(x int64) int32 { return int32((x + 1<<30) >> 31) }

func (q31) mul(a, b cpx[int32]) cpx[int32] {
	return cpx[int32]{
		sround31(int64(a.r)*int64(b.r) - int64(a.i)*int64(b.i)),
		sround31(int64(a.r)*int64(b.i) + int64(a.i)*int64(b.r)),
	}
}
func (q31) div(c cpx[int32], k int32) cpx[int32] {
	return cpx[int32]{sround31(int64(c.r) * int64(k)), sround31(int64(c.i) * int64(k))}
}

// half: int32 operands add in int (wrapping, as the C compiles) before
// the shift.
func (q31) half(a, b int32) int32     { return (a + b) >> 1 }
func (q31) halfDiff(a, b int32) int32 { return (a - b) >> 1 }
func (q31) twiddle(phase float64) cpx[int32] {
	return cpx[int32]{int32(math.Floor(.5 + 2147483647*math.Cos(phase))), int32(math.Floor(.5 + 2147483647*math.Sin(phase)))}
}
func (q31) divisor(radix int) int32 { return int32(2147483647 / radix) }

// flt is the float build. Each product is rounded to float32 on its own
// (the explicit conversions keep Go from fusing a multiply-add, which the
// reference x86 build does not do).
type flt struct{}

func (flt) mul(a, b cpx[float32]) cpx[float32] {
	return cpx[float32]{
		float32(a.r*b.r) - float32(a.i*b.i),
		float32(a.r*b.i) + float32(a.i*b.r),
	}
}
func (flt) div(c cpx[float32], _ float32) cpx[float32] { return c }
func (flt) half(a, b float32) float32                  { return float32(a+b) * 0.5 }
func (flt) halfDiff(a, b float32) float32              { return float32(a-b) * 0.5 }
func (flt) twiddle(phase float64) cpx[float32] {
	return cpx[float32]{float32(math.Cos(phase)), float32(math.Sin(phase))}
}
func (flt) divisor(int) float32 { return 0 }

// kissFFT is a kiss_fft_state: a complex FFT of nfft points.
type kissFFT[T sample, A arith[T]] struct {
	nfft     int
	inverse  bool
	factors  []int // p1, m1, p2, m2, … (kf_factor)
	twiddles []cpx[T]
	div2     T // SAMP_MAX/2, SAMP_MAX/4
	div4     T
}

// checkFFTLength validates an fft_length option: the real FFT needs an
// even length, tflrun a power of two (radix-2/4 stages), at least 4 (a
// complex FFT of at least 2 points) and at most 1<<20.
func checkFFTLength(l int64) error {
	if l < 4 || l > 1<<20 || l&(l-1) != 0 {
		return fmt.Errorf("options: fft_length = %d, need a power of two from 4 to %d", l, 1<<20)
	}
	return nil
}

func newKissFFT[T sample, A arith[T]](nfft int, inverse bool) *kissFFT[T, A] {
	var a A
	st := &kissFFT[T, A]{nfft: nfft, inverse: inverse, div2: a.divisor(2), div4: a.divisor(4)}
	st.twiddles = make([]cpx[T], nfft)
	for i := range st.twiddles {
		const pi = 3.141592653589793238462643383279502884197169399375105820974944
		phase := -2 * pi * float64(i) / float64(nfft)
		if inverse {
			phase *= -1
		}
		st.twiddles[i] = a.twiddle(phase)
	}
	// kf_factor for a power of two: radix 4 while it divides, then 2.
	n, p := nfft, 4
	for n > 1 {
		for n%p != 0 {
			p = 2
		}
		n /= p
		st.factors = append(st.factors, p, n)
	}
	return st
}

// transform is kiss_fft (out of place): fout = FFT(fin).
func (st *kissFFT[T, A]) transform(fin, fout []cpx[T]) {
	st.work(fout, fin, 1, st.factors)
}

// work is kf_work: the decimation-in-time recursion.
func (st *kissFFT[T, A]) work(fout, f []cpx[T], fstride int, factors []int) {
	p, m := factors[0], factors[1]
	if m == 1 {
		for j := 0; j < p; j++ {
			fout[j] = f[j*fstride]
		}
	} else {
		for j := 0; j < p; j++ {
			st.work(fout[j*m:], f[j*fstride:], fstride*p, factors[2:])
		}
	}
	switch p {
	case 2:
		st.bfly2(fout, fstride, m)
	default:
		st.bfly4(fout, fstride, m)
	}
}

// bfly2 is kf_bfly2.
func (st *kissFFT[T, A]) bfly2(fout []cpx[T], fstride, m int) {
	var a A
	for k := 0; k < m; k++ {
		f0 := a.div(fout[k], st.div2)
		f1 := a.div(fout[k+m], st.div2)
		t := a.mul(f1, st.twiddles[k*fstride])
		fout[k+m] = cpx[T]{f0.r - t.r, f0.i - t.i}
		fout[k] = cpx[T]{f0.r + t.r, f0.i + t.i}
	}
}

// bfly4 is kf_bfly4.
func (st *kissFFT[T, A]) bfly4(fout []cpx[T], fstride, m int) {
	var a A
	tw := st.twiddles
	for k := 0; k < m; k++ {
		f0 := a.div(fout[k], st.div4)
		f1 := a.div(fout[k+m], st.div4)
		f2 := a.div(fout[k+2*m], st.div4)
		f3 := a.div(fout[k+3*m], st.div4)
		s0 := a.mul(f1, tw[k*fstride])
		s1 := a.mul(f2, tw[2*k*fstride])
		s2 := a.mul(f3, tw[3*k*fstride])
		s5 := cpx[T]{f0.r - s1.r, f0.i - s1.i}
		f0 = cpx[T]{f0.r + s1.r, f0.i + s1.i}
		s3 := cpx[T]{s0.r + s2.r, s0.i + s2.i}
		s4 := cpx[T]{s0.r - s2.r, s0.i - s2.i}
		fout[k+2*m] = cpx[T]{f0.r - s3.r, f0.i - s3.i}
		fout[k] = cpx[T]{f0.r + s3.r, f0.i + s3.i}
		if st.inverse {
			fout[k+m] = cpx[T]{s5.r - s4.i, s5.i + s4.r}
			fout[k+3*m] = cpx[T]{s5.r + s4.i, s5.i - s4.r}
		} else {
			fout[k+m] = cpx[T]{s5.r + s4.i, s5.i - s4.r}
			fout[k+3*m] = cpx[T]{s5.r - s4.i, s5.i + s4.r}
		}
	}
}

// kissFFTR is a kiss_fftr_state: a real FFT of 2·ncfft points through a
// complex FFT of ncfft points.
type kissFFTR[T sample, A arith[T]] struct {
	sub           *kissFFT[T, A]
	tmp           []cpx[T]
	superTwiddles []cpx[T]
}

// newKissFFTR is kiss_fftr_alloc for a real length nfft (a power of two,
// see checkFFTLength).
func newKissFFTR[T sample, A arith[T]](nfft int, inverse bool) *kissFFTR[T, A] {
	var a A
	ncfft := nfft / 2
	st := &kissFFTR[T, A]{sub: newKissFFT[T, A](ncfft, inverse), tmp: make([]cpx[T], ncfft)}
	st.superTwiddles = make([]cpx[T], ncfft/2)
	for i := range st.superTwiddles {
		phase := -3.14159265358979323846264338327 * (float64(i+1)/float64(ncfft) + .5)
		if inverse {
			phase *= -1
		}
		st.superTwiddles[i] = a.twiddle(phase)
	}
	return st
}

// forward is kiss_fftr: freq (ncfft+1 values) = RFFT(timedata), the
// 2·ncfft real samples read as ncfft complex pairs.
func (st *kissFFTR[T, A]) forward(timedata []cpx[T], freq []cpx[T]) {
	var a A
	ncfft := st.sub.nfft
	st.sub.transform(timedata, st.tmp)
	tdc := a.div(st.tmp[0], st.sub.div2)
	freq[0] = cpx[T]{tdc.r + tdc.i, 0}
	freq[ncfft] = cpx[T]{tdc.r - tdc.i, 0}
	for k := 1; k <= ncfft/2; k++ {
		fpk := a.div(st.tmp[k], st.sub.div2)
		nk := st.tmp[ncfft-k]
		fpnk := a.div(cpx[T]{nk.r, -nk.i}, st.sub.div2)
		f1k := cpx[T]{fpk.r + fpnk.r, fpk.i + fpnk.i}
		f2k := cpx[T]{fpk.r - fpnk.r, fpk.i - fpnk.i}
		tw := a.mul(f2k, st.superTwiddles[k-1])
		freq[k] = cpx[T]{a.half(f1k.r, tw.r), a.half(f1k.i, tw.i)}
		freq[ncfft-k] = cpx[T]{a.halfDiff(f1k.r, tw.r), a.halfDiff(tw.i, f1k.i)}
	}
}

// inverseTransform is kiss_fftri: timedata (ncfft complex pairs, 2·ncfft
// reals) = IRFFT(freq), unscaled.
func (st *kissFFTR[T, A]) inverseTransform(freq []cpx[T], timedata []cpx[T]) {
	var a A
	ncfft := st.sub.nfft
	st.tmp[0] = a.div(cpx[T]{freq[0].r + freq[ncfft].r, freq[0].r - freq[ncfft].r}, st.sub.div2)
	for k := 1; k <= ncfft/2; k++ {
		fk := a.div(freq[k], st.sub.div2)
		nk := freq[ncfft-k]
		fnkc := a.div(cpx[T]{nk.r, -nk.i}, st.sub.div2)
		fek := cpx[T]{fk.r + fnkc.r, fk.i + fnkc.i}
		tmp := cpx[T]{fk.r - fnkc.r, fk.i - fnkc.i}
		fok := a.mul(tmp, st.superTwiddles[k-1])
		st.tmp[k] = cpx[T]{fek.r + fok.r, fek.i + fok.i}
		st.tmp[ncfft-k] = cpx[T]{fek.r - fok.r, -(fek.i - fok.i)}
	}
	st.sub.transform(st.tmp, timedata)
}
