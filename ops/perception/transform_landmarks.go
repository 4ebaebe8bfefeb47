package perception

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TransformLandmarks: MediaPipe's custom operator
// (mediapipe/util/tflite/operations/transform_landmarks.cc, its version 1
// options parsed as LiteRT's ParseTransformLandmarksV1Attributes) that maps
// landmarks through the first two rows of a 4×4 matrix: x' = m00·x + m01·y
// + m02·0 + m03, y' = m10·x + m11·y + m12·0 + m13, z (when there is one)
// copied. The face landmark model with attention uses it (version 2) to
// map the eye, lip and iris landmarks found in a crop back onto the face.
//
// Input 0: float32 landmarks. Input 1: float32 matrix (at least its first
// two rows, 8 values; [1, 4, 4] in models). Output 0: float32, input 0's
// shape.
//
// Version 1: input 0 has rank 4 [B, H, W, C]; options dimensions (2 or 3,
// default 3; C must be a multiple) and scale (non-zero, default 1, which
// multiplies the translation m03 and m13). Version 2: input 0 has rank 3
// [B, N, D] with D (the dimensions) 2 or 3; it has no options.
//
// Float32 dot products summed left to right, as upstream. Upstream writes
// only the first batch entry (B > 1 leaves the rest of the output unset);
// this kernel transforms every entry the same way.
const TransformLandmarksName = "TransformLandmarks"

func init() {
	register(TransformLandmarksName, func() ops.Kernel { return &transformLandmarks{} })
}

type transformLandmarks struct {
	dims  int
	scale float32
}

func (k *transformLandmarks) Prepare(n *ops.Node) error {
	*k = transformLandmarks{dims: 3, scale: 1}
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
	switch n.Version {
	case 1:
		if in.Rank() != 4 {
			return fmt.Errorf("input 0 (%s): version 1 needs rank 4", in)
		}
		if len(n.CustomOptions) > 0 {
			m, err := fbMap(n.CustomOptions)
			if err != nil {
				return err
			}
			if ok, err := fbHas(m, "dimensions"); err != nil {
				return err
			} else if ok {
				d, err := fbInt32(m, "dimensions")
				if err != nil {
					return err
				}
				k.dims = int(d)
			}
			if ok, err := fbHas(m, "scale"); err != nil {
				return err
			} else if ok {
				if k.scale, err = fbFloat32(m, "scale"); err != nil {
					return err
				}
			}
		}
		if k.dims != 2 && k.dims != 3 {
			return fmt.Errorf("custom_options: incorrect dimensions %d (2 or 3)", k.dims)
		}
		if k.scale == 0 {
			return fmt.Errorf("custom_options: incorrect scale %v", k.scale)
		}
		if in.Shape[3]%k.dims != 0 {
			return fmt.Errorf("input 0 (%s): the last dimension is not a multiple of dimensions %d", in, k.dims)
		}
	case 2:
		if in.Rank() != 3 {
			return fmt.Errorf("input 0 (%s): version 2 needs rank 3", in)
		}
		k.dims = in.Shape[2]
		if k.dims != 2 && k.dims != 3 {
			return fmt.Errorf("input 0 (%s): incorrect dimensions %d (the last dimension must be 2 or 3)", in, k.dims)
		}
	default:
		return fmt.Errorf("version %d is not supported (1 and 2 are)", n.Version)
	}
	out.Shape = append([]int(nil), in.Shape...)
	return nil
}

func (k *transformLandmarks) Eval(n *ops.Node) error {
	in, m, out := n.Inputs[0].Float32s(), n.Inputs[1].Float32s(), n.Outputs[0].Float32s()
	x0, x1, x2, x3 := m[0], m[1], m[2], mulF32(m[3], k.scale)
	y0, y1, y2, y3 := m[4], m[5], m[6], mulF32(m[7], k.scale)
	d := k.dims
	for o := 0; o+d <= len(in); o += d {
		x, y := in[o], in[o+1]
		// DotProduct of (x, y, 0, 1), summed left to right.
		out[o] = mulF32(x0, x) + mulF32(x1, y) + mulF32(x2, 0) + x3
		out[o+1] = mulF32(y0, x) + mulF32(y1, y) + mulF32(y2, 0) + y3
		if d == 3 {
			out[o+2] = in[o+2]
		}
	}
	return nil
}
