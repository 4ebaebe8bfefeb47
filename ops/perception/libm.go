package perception

import "math"

// Float32 trigonometry as glibc computes it, for Landmarks2TransformMatrix
// (upstream's std::atan2, std::cos and std::sin on floats). Other C
// libraries (Android's bionic, macOS) round some arguments differently by
// an ulp; glibc is the reference this project's native runner links.

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

func glibcAtanf(x float32) float32 {
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

func glibcAtan2f(y, x float32) float32 {
	hx, hy := int32(math.Float32bits(x)), int32(math.Float32bits(y))
	ix, iy := hx&0x7fffffff, hy&0x7fffffff
	if ix > 0x7f800000 || iy > 0x7f800000 {
		return x + y // NaN
	}
	if hx == 0x3f800000 { // x = 1
		return glibcAtanf(y)
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
		z = glibcAtanf(float32(math.Abs(float64(float32(y / x)))))
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

// sinf and cosf in float32 as glibc computes them (sysdeps/ieee754/flt-32
// s_sinf.c and s_cosf.c, Arm's 2018 implementation): the argument is
// reduced by a multiple of π/2 in double (one multiply-subtract, valid
// below 120) and a double polynomial of the quadrant's sine or cosine is
// rounded to float32. Upstream's Landmarks2TransformMatrix version 2 calls
// std::cos and std::sin on floats. Checked against glibc 2.36 on x86-64:
// a C transcription of this code matched sinf and cosf on 60 million
// arguments below 120 in magnitude (every 37th bit pattern, both signs),
// with and without fused multiply-adds; the Go code matches the values of
// testdata/glibc_sincosf.txt. From 120 on, where glibc switches to a
// 192-bit reduction, the correctly rounded value is used instead (angles
// there come only from absurd target_rotation_radians).

// sincosPoly is one of glibc's two polynomial sets (the second negates
// the cosine).
type sincosPoly struct {
	c0, c1, c2, c3, c4, s1, s2, s3 float64
}

var sincosTable = [2]sincosPoly{
	{0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
	{-0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5, 0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
}

const (
	sincosHpiInv = 0x1.45F306DC9C883p+23 // 2/π · 2^24
	sincosHpi    = 0x1.921FB54442D18p0   // π/2
	sincosPio4   = 0x1.921FB54442D18p-1  // π/4
)

// sincosSign is the sign of the sine in quadrants 0 … 3.
var sincosSign = [4]float64{1, -1, -1, 1}

// glibcAbstop12 is the top 12 bits of x's representation without the sign.
func glibcAbstop12(x float32) uint32 { return math.Float32bits(x) >> 20 & 0x7ff }

// sincosfPoly is glibc's sinf_poly: the sine polynomial for an even
// quadrant, the cosine's for an odd one.
func sincosfPoly(x, x2 float64, p *sincosPoly, n int) float32 {
	if n&1 == 0 {
		x3 := float64(x * x2)
		s1 := p.s2 + float64(x2*p.s3)
		x7 := float64(x3 * x2)
		s := x + float64(x3*p.s1)
		return float32(s + float64(x7*s1))
	}
	x4 := float64(x2 * x2)
	c2 := p.c3 + float64(x2*p.c4)
	c1 := p.c0 + float64(x2*p.c1)
	x6 := float64(x4 * x2)
	c := c1 + float64(x4*p.c2)
	return float32(c + float64(x6*c2))
}

// sincosfReduce is glibc's reduce_fast (without rounding intrinsics, as
// on x86-64): x minus the nearest multiple n of π/2, and n.
func sincosfReduce(x float64) (float64, int) {
	r := float64(x * sincosHpiInv)
	n := (int32(r) + 0x800000) >> 24
	return x - float64(float64(n)*sincosHpi), int(n)
}

// glibcSincosf returns glibc's glibcSinf(y) (cos false) or glibcCosf(y) (cos true).
func glibcSincosf(y float32, cos bool) float32 {
	x := float64(y)
	switch {
	case glibcAbstop12(y) < glibcAbstop12(float32(sincosPio4)):
		if glibcAbstop12(y) < glibcAbstop12(0x1p-12) {
			if cos {
				return 1
			}
			return y
		}
		q := 0
		if cos {
			q = 1
		}
		return sincosfPoly(x, float64(x*x), &sincosTable[0], q)
	case glibcAbstop12(y) < glibcAbstop12(120):
		x, n := sincosfReduce(x)
		s := sincosSign[n&3]
		p := &sincosTable[0]
		if n&2 != 0 {
			p = &sincosTable[1]
		}
		if cos {
			n ^= 1
		}
		return sincosfPoly(float64(x*s), float64(x*x), p, n)
	}
	if cos {
		return float32(math.Cos(x))
	}
	return float32(math.Sin(x))
}
