package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of RESIZE_BILINEAR, float32 compared bit for bit: TFLite's
// generic kernel (half-pixel upsampling as MediaPipe's BlazePose decoder
// does, align_corners, a downscale, a non-integer factor) sums its four
// weighted corners in one fixed order, and an exact doubling takes its
// 2×2 kernel of halvings; a different order or association moves results
// by an ulp, which deep float16 decoders grow to 1e-3.

func resizeBilinearModel(typ schema.TensorType, q *optest.Quant, align, half bool, in []int32, h, w int32) []byte {
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsResizeBilinearOptions,
		Value: &schema.ResizeBilinearOptionsT{AlignCorners: align, HalfPixelCenters: half}}
	version := int32(1)
	if half {
		version = 3
	}
	x, y := act(typ, in...), res(typ, in[0], h, w, in[3])
	if q != nil {
		x, y = actQ(typ, q, in...), resQ(typ, q, in[0], h, w, in[3])
	}
	return opModel(schema.BuiltinOperatorRESIZE_BILINEAR, version, opts,
		[]gIn{x, cst(schema.TensorTypeINT32, optest.I32(h, w), 2)}, []gOut{y})
}

func TestRecordResizeBilinear(t *testing.T) {
	f32, exact := schema.TensorTypeFLOAT32, optest.Case{Exact: true}
	recordGolden(t, "resize_bilinear", []goldenModel{
		{variant: "f32_half_pixel_x2", model: resizeBilinearModel(f32, nil, false, true, []int32{1, 8, 8, 9}, 16, 16), tol: exact},
		{variant: "f32_half_pixel_odd", model: resizeBilinearModel(f32, nil, false, true, []int32{2, 5, 7, 3}, 11, 9), tol: exact},
		{variant: "f32_align_corners", model: resizeBilinearModel(f32, nil, true, false, []int32{1, 6, 4, 5}, 13, 10), tol: exact},
		{variant: "f32_plain_down", model: resizeBilinearModel(f32, nil, false, false, []int32{1, 9, 12, 4}, 4, 5), tol: exact},
		{variant: "f32_plain_x2", model: resizeBilinearModel(f32, nil, false, false, []int32{2, 5, 6, 7}, 10, 12), tol: exact},
		{variant: "f32_plain_x2_width_only", model: resizeBilinearModel(f32, nil, false, false, []int32{1, 4, 5, 3}, 4, 10), tol: exact},
	})
}

func TestGoldenResizeBilinear(t *testing.T) { checkGolden(t, "resize_bilinear") }
