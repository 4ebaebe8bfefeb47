package perception

import "math"

// atanf and atan2f in float32 as glibc computes them: fdlibm's algorithm
// (s_atanf.c and e_atan2f.c, Sun's 1993 code converted to float by
// Cygnus) with glibc's constants and bounds (π rounded to nearest, the
// large-argument case from 2^25). Checked against glibc 2.36 on x86-64:
// a C transcription of this code matched atanf on 70 million floats
// (every 61st bit pattern) and atan2f on 20 million pairs; the Go code
// matches the 5324 values of testdata/glibc_atanf.txt. Upstream's
// Landmarks2TransformMatrix calls std::atan and std::atan2 on floats;
// float64 math.Atan2 rounded to float32 is correctly rounded, which
// fdlibm is not (it differs in about one case in six by an ulp), so the
// matrices follow fdlibm's arithmetic instead. The float32(…) conversions
// round each product (Go may not fuse a multiply and an add across one).

// atanHi and atanLo split atan(0.5), atan(1), atan(1.5) and atan(∞).
var (
	atanHi = [4]float32{4.6364760399e-01, 7.8539812565e-01, 9.8279368877e-01, 1.5707962513e+00}
	atanLo = [4]float32{5.0121582440e-09, 3.7748947079e-08, 3.4473217170e-08, 7.5497894159e-08}
	// atanT are the 11 coefficients of the odd polynomial on the reduced
	// argument.
	atanT = [11]float32{
		3.3333334327e-01, -2.0000000298e-01, 1.4285714924e-01, -1.1111110449e-01,
		9.0908870101e-02, -7.6918758452e-02, 6.6610731184e-02, -5.8335702866e-02,
		4.9768779427e-02, -3.6531571299e-02, 1.6285819933e-02,
	}
)

func atanf(x float32) float32 {
	hx := int32(math.Float32bits(x))
	ix := hx & 0x7fffffff
	if ix >= 0x4c000000 { // |x| ≥ 2^25 (glibc's bound; fdlibm's is 2^34)
		if ix > 0x7f800000 {
			return x + x // NaN
		}
		if hx > 0 {
			return atanHi[3] + atanLo[3]
		}
		return -atanHi[3] - atanLo[3]
	}
	id := -1
	if ix < 0x3ee00000 { // |x| < 0.4375
		if ix < 0x31000000 { // |x| < 2^-29
			return x
		}
	} else {
		x = float32(math.Abs(float64(x)))
		switch {
		case ix < 0x3f300000: // 7/16 ≤ |x| < 11/16
			id, x = 0, float32(float32(2*x)-1)/float32(2+x)
		case ix < 0x3f980000: // 11/16 ≤ |x| < 19/16
			id, x = 1, float32(x-1)/float32(x+1)
		case ix < 0x401c0000: // |x| < 2.4375
			id, x = 2, float32(x-1.5)/float32(1+float32(1.5*x))
		default: // 2.4375 ≤ |x| < 2^34
			id, x = 3, -1/x
		}
	}
	z := float32(x * x)
	w := float32(z * z)
	t := &atanT
	s1 := float32(z * float32(t[0]+float32(w*float32(t[2]+float32(w*float32(t[4]+float32(w*float32(t[6]+float32(w*float32(t[8]+float32(w*t[10])))))))))))
	s2 := float32(w * float32(t[1]+float32(w*float32(t[3]+float32(w*float32(t[5]+float32(w*float32(t[7]+float32(w*t[9])))))))))
	if id < 0 {
		return x - float32(x*float32(s1+s2))
	}
	z = atanHi[id] - (float32(float32(x*float32(s1+s2))-atanLo[id]) - x)
	if hx < 0 {
		return -z
	}
	return z
}

// atan2's constants as glibc has them: π rounded to nearest (0x40490fdb)
// and its remainder negative, where fdlibm has π rounded down
// (0x40490fda) and a positive remainder; the special cases return π.
var (
	atan2PiO2 = math.Float32frombits(0x3fc90fdb)
	atan2Pi   = math.Float32frombits(0x40490fdb)
	atan2PiLo = math.Float32frombits(0xb3bbbd2e)
)

func atan2f(y, x float32) float32 {
	hx, hy := int32(math.Float32bits(x)), int32(math.Float32bits(y))
	ix, iy := hx&0x7fffffff, hy&0x7fffffff
	if ix > 0x7f800000 || iy > 0x7f800000 {
		return x + y // NaN
	}
	if hx == 0x3f800000 { // x = 1
		return atanf(y)
	}
	m := (hy>>31)&1 | (hx>>30)&2 // 2·sign(x) + sign(y)
	if iy == 0 {
		switch m {
		case 0, 1:
			return y
		case 2:
			return atan2Pi
		default:
			return -atan2Pi
		}
	}
	if ix == 0 {
		if hy < 0 {
			return -atan2PiO2
		}
		return atan2PiO2
	}
	if ix == 0x7f800000 {
		if iy == 0x7f800000 {
			switch m {
			case 0:
				return atan2PiO2 / 2
			case 1:
				return -atan2PiO2 / 2
			case 2:
				return float32(3 * float32(atan2PiO2/2))
			default:
				return float32(-3 * float32(atan2PiO2/2))
			}
		}
		switch m {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return atan2Pi
		default:
			return -atan2Pi
		}
	}
	if iy == 0x7f800000 {
		if hy < 0 {
			return -atan2PiO2
		}
		return atan2PiO2
	}
	var z float32
	k := (iy - ix) >> 23
	switch {
	case k > 60:
		z = atan2PiO2 + 0.5*atan2PiLo
	case hx < 0 && k < -60:
		z = 0
	default:
		z = atanf(float32(math.Abs(float64(float32(y / x)))))
	}
	switch m {
	case 0:
		return z
	case 1:
		return -z
	case 2:
		return atan2Pi - (z - atan2PiLo)
	default:
		return (z - atan2PiLo) - atan2Pi
	}
}
