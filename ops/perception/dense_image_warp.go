package perception

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// DenseImageWarpName is the custom code of LiteRT's DenseImageWarp.
const DenseImageWarpName = "DenseImageWarp"

// DenseImageWarp is the kernel of LiteRT's DenseImageWarp custom operator
// (tflite/kernels/perception/dense_image_warp.cc; TensorFlow Addons'
// dense_image_warp): every output pixel samples the image bilinearly at
// its own position minus the flow there.
//
// Inputs: 0 the image, float32 [batch, H, W, C] with H, W ≥ 2; 1 the
// flow, float32 [batch, H, W, 2] (dy, dx). Output 0: float32 [batch, H,
// W, C]. There are no options (custom_options are ignored).
//
// For output (y, x): qy = y − flow_y, qx = x − flow_x; the cell's corner
// fy = clamp(⌊qy⌋, 0, H−2) (likewise fx) and the weights
// ay = min(max(0, qy − fy), 1) (likewise ax), so a query outside the
// image takes the border cell's nearest edge. Then, in float32 as
// upstream (no fused multiply-adds),
//
//	top = ax·(tr − tl) + tl,  bottom = ax·(br − bl) + bl,
//	out = ay·(bottom − top) + top.
//
// Upstream converts ⌊q⌋ to int without a range check; where that is
// undefined (NaN, or beyond int32) this kernel takes the x86 conversion's
// result, INT_MIN, so the corner is 0, and a NaN weight is 0 (std::max(0,
// NaN) is 0): a NaN flow samples the top-left pixel of the border cell.
type DenseImageWarp struct {
	shape [4]int
}

// NewDenseImageWarp returns a kernel for one node.
func NewDenseImageWarp() ops.Kernel { return &DenseImageWarp{} }

func init() { register(DenseImageWarpName, NewDenseImageWarp) }

// Prepare checks the node and sets the output shape.
func (k *DenseImageWarp) Prepare(n *ops.Node) error {
	*k = DenseImageWarp{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	flow, err := n.RequireInput(1)
	if err != nil {
		return fmt.Errorf("%v (flow)", err)
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := check4D(in, ops.Float32, "input 0"); err != nil {
		return err
	}
	if err := check4D(flow, ops.Float32, "input 1 (flow)"); err != nil {
		return err
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	for d := 0; d < 3; d++ {
		if flow.Shape[d] != in.Shape[d] {
			return fmt.Errorf("input 1 (flow): shape %v, need input 0's batch, height and width %v", flow.Shape, in.Shape[:3])
		}
	}
	if flow.Shape[3] != 2 {
		return fmt.Errorf("input 1 (flow): last dimension %d, need 2", flow.Shape[3])
	}
	if in.Shape[1] < 2 || in.Shape[2] < 2 {
		return fmt.Errorf("input 0: image %d×%d, need height and width at least 2", in.Shape[1], in.Shape[2])
	}
	copy(k.shape[:], in.Shape)
	out.Shape = append([]int(nil), in.Shape...)
	return nil
}

// warpCorner is static_cast<int>(std::floor(q)) clamped to [0, hi] as
// upstream, with the x86 result INT_MIN where the conversion is
// undefined.
func warpCorner(q float32, hi int) int {
	f := math.Floor(float64(q))
	v := math.MinInt32
	if f >= math.MinInt32 && f <= math.MaxInt32 {
		v = int(f)
	}
	return min(max(0, v), hi)
}

// warpWeight is std::min(std::max(0.0f, d), 1.0f), NaN giving 0.
func warpWeight(d float32) float32 {
	if !(0 < d) {
		d = 0
	}
	if 1 < d {
		d = 1
	}
	return d
}

// Eval warps the image.
func (k *DenseImageWarp) Eval(n *ops.Node) error {
	in, flow, out := n.Input(0), n.Input(1), n.Output(0)
	if k.shape[0] == 0 || in == nil || flow == nil || out == nil {
		return errors.New(DenseImageWarpName + ": Eval before a successful Prepare")
	}
	if err := checkData(in, flow, out); err != nil {
		return fmt.Errorf("%s: %w", DenseImageWarpName, err)
	}
	b, h, w, c := k.shape[0], k.shape[1], k.shape[2], k.shape[3]
	x, fl, o := in.Float32s(), flow.Float32s(), out.Float32s()
	for bi := 0; bi < b; bi++ {
		img := x[bi*h*w*c : (bi+1)*h*w*c]
		for y := 0; y < h; y++ {
			for xx := 0; xx < w; xx++ {
				p := (bi*h+y)*w + xx
				qy := float32(y) - fl[2*p]
				qx := float32(xx) - fl[2*p+1]
				fy, fx := warpCorner(qy, h-2), warpCorner(qx, w-2)
				ay, ax := warpWeight(qy-float32(fy)), warpWeight(qx-float32(fx))
				tl := img[(fy*w+fx)*c:][:2*c]
				bl := img[((fy+1)*w+fx)*c:][:2*c]
				dst := o[p*c : (p+1)*c]
				for ch := range dst {
					top := float32(ax*(tl[c+ch]-tl[ch])) + tl[ch]
					bottom := float32(ax*(bl[c+ch]-bl[ch])) + bl[ch]
					dst[ch] = float32(ay*(bottom-top)) + top
				}
			}
		}
	}
	return nil
}
