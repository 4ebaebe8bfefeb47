package perception

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// TransformTensorBilinear: MediaPipe's custom operator
// (mediapipe/util/tflite/operations/transform_tensor_bilinear.cc) that
// samples a feature map through a 4×4 matrix: output pixel (x, y) reads
// input 0 at (m00·x + m01·y + m03, m10·x + m11·y + m13), bilinearly, with
// 0 for a point outside [0, W−1]×[0, H−1] and for corners past the edge.
// Version 2 (custom code TransformTensorBilinear) first corrects the
// matrix for pixel centres (T → S·T·A with A a shift by +0.5 and S by
// −0.5); version 1 (registered upstream as TransformTensor, accepted here
// under both names) does not. The face landmark model with attention uses
// version 2 to crop the eye and lip regions.
//
// Input 0: float32 [1, H, W, C]. Input 1: float32 matrix (at least its
// first two rows, 8 values; [1, 4, 4] in models). Output 0: float32
// [1, OH, OW, C] with OH×OW from the options (version 1: output_size
// [h, w]; version 2: output_height and output_width), as LiteRT's parser
// derives it; upstream's CPU kernel takes the shape the model declares,
// which the converter writes from the same options.
//
// Arithmetic as upstream's: float32 dot products, floor in float32, and
// the interpolation weights' "1.0 − w" in double (C++'s double literal),
// each blend rounded to float32. A NaN coordinate passes upstream's bounds
// test and gives NaN. Upstream reads only the first batch entry and
// indexes input 0 with the output's channel; this kernel requires batch 1
// and equal channel counts.
const TransformTensorBilinearName = "TransformTensorBilinear"

// TransformTensorName is version 1's custom code upstream.
const TransformTensorName = "TransformTensor"

func init() {
	register(TransformTensorBilinearName, func() ops.Kernel { return &transformTensor{} })
	register(TransformTensorName, func() ops.Kernel { return &transformTensor{} })
}

type transformTensor struct {
	alignCorners bool
}

func (k *transformTensor) Prepare(n *ops.Node) error {
	*k = transformTensor{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	mat, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	if in.Type != ops.Float32 || out.Type != ops.Float32 {
		return fmt.Errorf("input 0 (%s) and output 0 (%s) must be float32", in, out)
	}
	if mat.Type != ops.Float32 || mat.NumElements() < 8 {
		return fmt.Errorf("input 1 (%s): the matrix must be float32 with at least 8 values (its first two rows)", mat)
	}
	if in.Rank() != 4 || in.Shape[0] != 1 {
		return fmt.Errorf("input 0 (%s): needs shape [1, H, W, C]", in)
	}
	var oh, ow int32
	switch n.Version {
	case 1:
		// Upstream's parser refuses a mode other than "bilinear" and reads
		// output_size [h, w].
		m, err := fbMap(n.CustomOptions)
		if err != nil {
			return err
		}
		if ok, err := fbHas(m, "mode"); err != nil {
			return err
		} else if ok {
			v, err := m.Get("mode")
			if err != nil {
				return fmt.Errorf("custom_options: %v", err)
			}
			s, err := v.AsString()
			if err != nil || s != "bilinear" {
				return fmt.Errorf("custom_options: mode %q: only bilinear interpolation is supported", s)
			}
		}
		size, err := fbInt32s(m, "output_size")
		if err != nil {
			return err
		}
		if len(size) != 2 {
			return fmt.Errorf("custom_options: output_size has %d values, needs [h, w]", len(size))
		}
		oh, ow = size[0], size[1]
	case 2:
		k.alignCorners = true
		m, err := fbMap(n.CustomOptions)
		if err != nil {
			return err
		}
		if oh, err = fbInt32(m, "output_height"); err != nil {
			return err
		}
		if ow, err = fbInt32(m, "output_width"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("version %d is not supported (1 and 2 are)", n.Version)
	}
	if oh <= 0 || ow <= 0 {
		return fmt.Errorf("custom_options: incorrect output size %d×%d", oh, ow)
	}
	shape := []int{1, int(oh), int(ow), in.Shape[3]}
	if _, err := ops.ShapeElements(shape, 4); err != nil {
		return fmt.Errorf("output 0: shape %v: %v", shape, err)
	}
	out.Shape = shape
	return nil
}

// ttFloorIndex converts floor(v) to int as x86's cvttss2si does (the C++
// float-to-int conversion upstream relies on): NaN and values outside
// int32 give math.MinInt32, which reads as outside the input.
func ttFloorIndex(v float32) int {
	if !(v >= -2147483648 && v < 2147483648) {
		return math.MinInt32
	}
	return int(int32(v))
}

func (k *transformTensor) Eval(n *ops.Node) error {
	inT, out := n.Inputs[0], n.Outputs[0]
	in, m, dst := inT.Float32s(), n.Inputs[1].Float32s(), out.Float32s()
	ih, iw, ch := inT.Shape[1], inT.Shape[2], inT.Shape[3]
	oh, ow := out.Shape[1], out.Shape[2]
	xt := [4]float32{m[0], m[1], m[2], m[3]}
	yt := [4]float32{m[4], m[5], m[6], m[7]}
	if k.alignCorners {
		// x_transform[3] += x_transform[0]·0.5 + x_transform[1]·0.5 − 0.5,
		// in double.
		xt[3] = float32(float64(xt[3]) + (float64(xt[0])*0.5 + float64(xt[1])*0.5 - 0.5))
		yt[3] = float32(float64(yt[3]) + (float64(yt[0])*0.5 + float64(yt[1])*0.5 - 0.5))
	}
	maxX, maxY := float32(iw-1), float32(ih-1)
	// base is the offset of pixel (h, w)'s first channel, −1 outside the
	// input (upstream's ReadValue gives 0 there).
	base := func(h, w int) int {
		if h < 0 || w < 0 || h >= ih || w >= iw {
			return -1
		}
		return (h*iw + w) * ch
	}
	o := 0
	for y := 0; y < oh; y++ {
		fy := float32(y)
		for x := 0; x < ow; x++ {
			fx := float32(x)
			tx := mulF32(xt[0], fx) + mulF32(xt[1], fy) + mulF32(xt[2], 0) + xt[3]
			ty := mulF32(yt[0], fx) + mulF32(yt[1], fy) + mulF32(yt[2], 0) + yt[3]
			px := dst[o : o+ch]
			o += ch
			if tx < 0 || tx > maxX || ty < 0 || ty > maxY {
				clear(px)
				continue
			}
			flx := float32(math.Floor(float64(tx)))
			fly := float32(math.Floor(float64(ty)))
			x0, y0 := ttFloorIndex(flx), ttFloorIndex(fly)
			x1, y1 := ttFloorIndex(flx+1), ttFloorIndex(fly+1)
			b11, b21, b12, b22 := base(y0, x0), base(y0, x1), base(y1, x0), base(y1, x1)
			right := tx - flx
			lower := ty - fly
			wl := 1.0 - float64(right)
			wu := 1.0 - float64(lower)
			for c := range px {
				var q11, q21, q12, q22 float32
				if b11 >= 0 {
					q11 = in[b11+c]
				}
				if b21 >= 0 {
					q21 = in[b21+c]
				}
				if b12 >= 0 {
					q12 = in[b12+c]
				}
				if b22 >= 0 {
					q22 = in[b22+c]
				}
				// float64(…) around each double product keeps it unfused.
				upper := float32(float64(wl*float64(q11)) + float64(mulF32(right, q21)))
				low := float32(float64(wl*float64(q12)) + float64(mulF32(right, q22)))
				px[c] = float32(float64(mulF32(lower, low)) + float64(wu*float64(upper)))
			}
		}
	}
	return nil
}
