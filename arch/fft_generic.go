package arch

// fftRadix4F64Generic is the portable FFTRadix4F64 (the reference of the
// assembly twin; -tags purego, arm64, 32-bit ARM and CPUs without AVX2).
// The conversions keep Go from fusing the products into multiply-adds.
func fftRadix4F64Generic(re, im []float64, h int, tw []float64) {
	g := FFTTwiddleGroup(h)
	im = im[:len(re)]
	for s := 0; s+4*h <= len(re); s += 4 * h {
		r0, r1, r2, r3 := re[s:s+h:s+h], re[s+h:s+2*h:s+2*h], re[s+2*h:s+3*h:s+3*h], re[s+3*h:s+4*h:s+4*h]
		i0, i1, i2, i3 := im[s:s+h:s+h], im[s+h:s+2*h:s+2*h], im[s+2*h:s+3*h:s+3*h], im[s+3*h:s+4*h:s+4*h]
		if g == 4 {
			// Groups of four bins through array pointers: no bounds
			// checks in the butterflies.
			for k0 := 0; k0+4 <= h; k0 += 4 {
				fftRadix4Group((*[24]float64)(tw[6*k0:]),
					(*[4]float64)(r0[k0:]), (*[4]float64)(i0[k0:]), (*[4]float64)(r1[k0:]), (*[4]float64)(i1[k0:]),
					(*[4]float64)(r2[k0:]), (*[4]float64)(i2[k0:]), (*[4]float64)(r3[k0:]), (*[4]float64)(i3[k0:]))
			}
			continue
		}
		for k0 := 0; k0 < h; k0 += g {
			t := tw[6*k0 : 6*k0+6*g : 6*k0+6*g]
			for l := 0; l < g; l++ {
				k := k0 + l
				w1r, w1i, w2r, w2i, w3r, w3i := t[l], t[g+l], t[2*g+l], t[3*g+l], t[4*g+l], t[5*g+l]
				x1r, x1i := r1[k], i1[k]
				x2r, x2i := r2[k], i2[k]
				x3r, x3i := r3[k], i3[k]
				u1r := float64(w2r*x1r) - float64(w2i*x1i)
				u1i := float64(w2r*x1i) + float64(w2i*x1r)
				u2r := float64(w1r*x2r) - float64(w1i*x2i)
				u2i := float64(w1r*x2i) + float64(w1i*x2r)
				u3r := float64(w3r*x3r) - float64(w3i*x3i)
				u3i := float64(w3r*x3i) + float64(w3i*x3r)
				u0r, u0i := r0[k], i0[k]
				ar, ai := u0r+u1r, u0i+u1i
				br, bi := u0r-u1r, u0i-u1i
				cr, ci := u2r+u3r, u2i+u3i
				dr, di := u2r-u3r, u2i-u3i
				r0[k], i0[k] = ar+cr, ai+ci
				r2[k], i2[k] = ar-cr, ai-ci
				r1[k], i1[k] = br+di, bi-dr
				r3[k], i3[k] = br-di, bi+dr
			}
		}
	}
}

// fftRadix4Group is fftRadix4F64Generic's butterflies of four bins with
// their twiddles t.
func fftRadix4Group(t *[24]float64, r0, i0, r1, i1, r2, i2, r3, i3 *[4]float64) {
	for l := 0; l < 4; l++ {
		x1r, x1i := r1[l], i1[l]
		x2r, x2i := r2[l], i2[l]
		x3r, x3i := r3[l], i3[l]
		u1r := float64(t[8+l]*x1r) - float64(t[12+l]*x1i)
		u1i := float64(t[8+l]*x1i) + float64(t[12+l]*x1r)
		u2r := float64(t[l]*x2r) - float64(t[4+l]*x2i)
		u2i := float64(t[l]*x2i) + float64(t[4+l]*x2r)
		u3r := float64(t[16+l]*x3r) - float64(t[20+l]*x3i)
		u3i := float64(t[16+l]*x3i) + float64(t[20+l]*x3r)
		u0r, u0i := r0[l], i0[l]
		ar, ai := u0r+u1r, u0i+u1i
		br, bi := u0r-u1r, u0i-u1i
		cr, ci := u2r+u3r, u2i+u3i
		dr, di := u2r-u3r, u2i-u3i
		r0[l], i0[l] = ar+cr, ai+ci
		r2[l], i2[l] = ar-cr, ai-ci
		r1[l], i1[l] = br+di, bi-dr
		r3[l], i3[l] = br-di, bi+dr
	}
}
