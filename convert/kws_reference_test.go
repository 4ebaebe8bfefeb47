package convert

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
)

// kwsReference computes MLPerf Tiny's DS-CNN in float64 straight from the
// checkpoint, independently of the graph and of the converter: Conv2D
// 10×4 stride 2 SAME → BatchNorm → ReLU, then four times depthwise 3×3
// SAME → BatchNorm → ReLU → pointwise 1×1 → BatchNorm → ReLU, average
// pool over the whole 25×5 map, dense 64→12, softmax. Keras layer k's
// variables are "layer_with_weights-k/..." in the checkpoint, BatchNorm
// epsilon is Keras' default 0.001. x is [49][10] (one channel).
func kwsReference(t *testing.T, b *tfmodel.Bundle, x []float32) []float64 {
	t.Helper()
	read := func(k int, name string) []float64 {
		tt, err := b.Read(filepath.ToSlash(filepath.Join("layer_with_weights-"+itoa(k), name, ".ATTRIBUTES/VARIABLE_VALUE")))
		if err != nil {
			t.Fatal(err)
		}
		return tt.Float64s()
	}
	const H, W, C = 25, 5, 64
	bn := func(k int, v []float64) {
		g, be, mu, va := read(k, "gamma"), read(k, "beta"), read(k, "moving_mean"), read(k, "moving_variance")
		for i := range v {
			c := i % C
			y := (v[i]-mu[c])/math.Sqrt(va[c]+0.001)*g[c] + be[c]
			v[i] = math.Max(y, 0) // every BatchNorm here is followed by ReLU
		}
	}
	// Conv2D 10×4, stride 2, SAME: 49×10 → 25×5, padding top 4, left 1.
	k0, b0 := read(0, "kernel"), read(0, "bias") // [10][4][1][64]
	a := make([]float64, H*W*C)
	for oy := 0; oy < H; oy++ {
		for ox := 0; ox < W; ox++ {
			for c := 0; c < C; c++ {
				s := b0[c]
				for ky := 0; ky < 10; ky++ {
					for kx := 0; kx < 4; kx++ {
						iy, ix := oy*2+ky-4, ox*2+kx-1
						if iy < 0 || iy >= 49 || ix < 0 || ix >= 10 {
							continue
						}
						s += float64(x[iy*10+ix]) * k0[(ky*4+kx)*C+c]
					}
				}
				a[(oy*W+ox)*C+c] = s
			}
		}
	}
	bn(1, a)
	for blk := 0; blk < 4; blk++ {
		dk, db := read(2+4*blk, "depthwise_kernel"), read(2+4*blk, "bias") // [3][3][64][1]
		d := make([]float64, len(a))
		for oy := 0; oy < H; oy++ {
			for ox := 0; ox < W; ox++ {
				for c := 0; c < C; c++ {
					s := db[c]
					for ky := 0; ky < 3; ky++ {
						for kx := 0; kx < 3; kx++ {
							iy, ix := oy+ky-1, ox+kx-1
							if iy >= 0 && iy < H && ix >= 0 && ix < W {
								s += a[(iy*W+ix)*C+c] * dk[(ky*3+kx)*C+c]
							}
						}
					}
					d[(oy*W+ox)*C+c] = s
				}
			}
		}
		bn(3+4*blk, d)
		pk, pb := read(4+4*blk, "kernel"), read(4+4*blk, "bias") // [1][1][64][64]
		p := make([]float64, len(a))
		for i := 0; i < H*W; i++ {
			for o := 0; o < C; o++ {
				s := pb[o]
				for c := 0; c < C; c++ {
					s += d[i*C+c] * pk[c*C+o]
				}
				p[i*C+o] = s
			}
		}
		bn(5+4*blk, p)
		a = p
	}
	pool := make([]float64, C)
	for i := 0; i < H*W; i++ {
		for c := 0; c < C; c++ {
			pool[c] += a[i*C+c] / (H * W)
		}
	}
	dk, db := read(18, "kernel"), read(18, "bias") // [64][12]
	logits := make([]float64, 12)
	for o := range logits {
		logits[o] = db[o]
		for c := 0; c < C; c++ {
			logits[o] += pool[c] * dk[c*12+o]
		}
	}
	m := logits[0]
	for _, v := range logits {
		m = math.Max(m, v)
	}
	sum := 0.0
	for i, v := range logits {
		logits[i] = math.Exp(v - m)
		sum += logits[i]
	}
	for i := range logits {
		logits[i] /= sum
	}
	return logits
}

func itoa(k int) string {
	if k < 10 {
		return string(rune('0' + k))
	}
	return itoa(k/10) + string(rune('0'+k%10))
}
