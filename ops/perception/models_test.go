package perception_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// The operators inside models run by the interpreter: errors name the
// operator, the memory bound covers the decoder's outputs, and Coral's
// own PoseNet test (models_test.cc of google-coral/edgetpu) passes on its
// model and image.

func posenetOpts(maxDet int64, stride int64) []byte {
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("max_detections")
	b.Int(maxDet)
	b.Key("score_threshold")
	b.Float32(0.5)
	b.Key("stride")
	b.Int(stride)
	b.Key("nms_radius")
	b.Float32(10)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return buf
}

func posenetModel(opts []byte, h, w int32) []byte {
	b := optest.NewBuilder()
	u8, f32 := schema.TensorTypeUINT8, schema.TensorTypeFLOAT32
	q := optest.PerTensor(0.1, 128)
	heat := b.Tensor("heat", u8, []int32{1, h, w, 17}, q)
	short := b.Tensor("short", u8, []int32{1, h, w, 34}, q)
	mid := b.Tensor("mid", u8, []int32{1, h, w, 64}, q)
	var outs []int32
	for _, n := range []string{"kp", "kp_scores", "scores", "count"} {
		outs = append(outs, b.Tensor(n, f32, nil, nil))
	}
	b.Custom("PosenetDecoderOp", []int32{heat, short, mid}, outs, opts)
	b.Inputs(heat, short, mid)
	b.Outputs(outs...)
	return b.Bytes()
}

func allocate(model []byte, opts *interpreter.Options) error {
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		return err
	}
	defer m.Close()
	it, err := interpreter.New(m, opts)
	if err != nil {
		return err
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		return err
	}
	return it.Invoke()
}

func TestModelErrorsNameTheOperator(t *testing.T) {
	for _, c := range []struct {
		name  string
		model []byte
		frag  string
	}{
		{"stride 0", posenetModel(posenetOpts(5, 0), 5, 5), "PosenetDecoderOp v1 (operator 0"},
		{"no options", posenetModel(nil, 5, 5), "PosenetDecoderOp v1 (operator 0"},
		{"bad landmarks options", customModel("Landmarks2TransformMatrix", 2, []byte{7, 7},
			[]tIn{{shape: []int32{1, 468, 3}}}, [][]int32{{1, 4, 4}}), "Landmarks2TransformMatrix v2 (operator 0"},
		{"bilinear rank 3", customModel("TransformTensorBilinear", 2, flex("output_height", 4, "output_width", 4),
			[]tIn{{shape: []int32{4, 4, 3}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 4, 4, 3}}), "TransformTensorBilinear v2 (operator 0"},
		{"landmarks rank 4", customModel("TransformLandmarks", 2, nil,
			[]tIn{{shape: []int32{1, 1, 4, 2}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 1, 4, 2}}), "TransformLandmarks v2 (operator 0"},
	} {
		err := allocate(c.model, nil)
		if err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.frag)
		}
	}
}

func TestPosenetOutputsWithinTheBound(t *testing.T) {
	// max_detections 1<<20 asks for 1<<20·(34 + 17 + 1) floats (208 MiB):
	// a 64 MiB bound refuses it at AllocateTensors, by name.
	model := posenetModel(posenetOpts(1<<20, 16), 5, 5)
	err := allocate(model, &interpreter.Options{MaxArenaBytes: 64 << 20})
	if err == nil || !strings.Contains(err.Error(), "memory bound") {
		t.Errorf("error %v, want the memory bound's", err)
	}
	if err := allocate(posenetModel(posenetOpts(20, 16), 5, 5), &interpreter.Options{MaxArenaBytes: 64 << 20}); err != nil {
		t.Errorf("max_detections 20: %v", err)
	}
}

// coralEnv names a folder holding google-coral/edgetpu's
// test_data/posenet files: posenet_mobilenet_v1_075_353_481_quant_decoder.tflite
// and test_image.bmp.
const coralEnv = "TFLRUN_CORAL_POSENET"

// coralInput is what Coral's test feeds the model: the BMP's RGB pixels
// resized by TensorFlow Lite's RESIZE_BILINEAR (no align_corners, no half
// pixels) and truncated to uint8, of which its test_utils.cc copies only
// the first wanted_height² pixels (a bug of the test kept here: the rest
// stay 0).
func coralInput(bmp []byte, oh, ow int) []byte {
	off := int(binary.LittleEndian.Uint32(bmp[10:]))
	w := int(int32(binary.LittleEndian.Uint32(bmp[18:])))
	h := int(int32(binary.LittleEndian.Uint32(bmp[22:])))
	row := (24*w + 31) / 32 * 4
	px := func(y, x, c int) float32 { // bottom-up BGR
		return float32(bmp[off+(h-1-y)*row+x*3+2-c])
	}
	out := make([]byte, oh*ow*3)
	hs, ws := float32(h)/float32(oh), float32(w)/float32(ow)
	for y := 0; y < oh; y++ {
		iy := float32(y) * hs
		y0 := int(iy)
		y1 := min(y0+1, h-1)
		dy := iy - float32(y0)
		for x := 0; x < ow; x++ {
			ix := float32(x) * ws
			x0 := int(ix)
			x1 := min(x0+1, w-1)
			dx := ix - float32(x0)
			for c := 0; c < 3; c++ {
				o := (y*ow+x)*3 + c
				if o >= oh*oh*3 {
					continue
				}
				top := px(y0, x0, c) + (px(y0, x1, c)-px(y0, x0, c))*dx
				bot := px(y1, x0, c) + (px(y1, x1, c)-px(y1, x0, c))*dx
				out[o] = byte(top + (bot-top)*dy)
			}
		}
	}
	return out
}

func TestCoralPosenetTestImage(t *testing.T) {
	dir := os.Getenv(coralEnv)
	if dir == "" {
		t.Skipf("%s is not set: point it at google-coral/edgetpu's test_data/posenet", coralEnv)
	}
	bmp, err := os.ReadFile(filepath.Join(dir, "test_image.bmp"))
	if err != nil {
		t.Skip(err)
	}
	m, err := interpreter.Load(filepath.Join(dir, "posenet_mobilenet_v1_075_353_481_quant_decoder.tflite"))
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it.Input(0).Data, coralInput(bmp, 353, 481))
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	kps, kpScores := it.Output(0).Float32s(), it.Output(1).Float32s()
	poseScores, count := it.Output(2).Float32s(), it.Output(3).Float32s()
	// Coral's expectations (y, x, score), checked as its test does: two
	// poses scoring above 0.7; keypoints scoring above 0.5 within 0.05 and
	// 3 pixels.
	want := [2][17][3]float32{
		{{97, 203, 0.984}, {93, 204, 0.751}, {93, 198, 0.980}, {96, 205, 0.033}, {95, 185, 0.986},
			{122, 210, 0.995}, {127, 169, 0.996}, {161, 220, 0.978}, {165, 165, 0.994}, {194, 222, 0.976},
			{201, 158, 0.990}, {198, 207, 0.994}, {199, 183, 0.991}, {247, 206, 0.914}, {248, 190, 0.944},
			{287, 199, 0.077}, {308, 187, 0.044}},
		{{105, 257, 0.986}, {101, 262, 0.991}, {100, 256, 0.560}, {104, 277, 0.990}, {104, 256, 0.022},
			{127, 289, 0.997}, {127, 255, 0.993}, {153, 300, 0.988}, {161, 245, 0.955}, {182, 309, 0.977},
			{193, 233, 0.515}, {192, 285, 0.989}, {193, 258, 0.984}, {237, 282, 0.919}, {239, 270, 0.611},
			{314, 286, 0.008}, {303, 288, 0.023}},
	}
	if count[0] != 2 {
		t.Fatalf("%v poses, want 2", count[0])
	}
	for p := 0; p < 2; p++ {
		if poseScores[p] <= 0.7 {
			t.Errorf("pose %d score %v, want > 0.7", p, poseScores[p])
		}
		for k := 0; k < 17; k++ {
			w := want[p][k]
			if w[2] <= 0.5 {
				continue
			}
			i := p*17 + k
			if math.Abs(float64(kpScores[i]-w[2])) > 0.05 || math.Abs(float64(kps[2*i]-w[0])) > 3 || math.Abs(float64(kps[2*i+1]-w[1])) > 3 {
				t.Errorf("pose %d keypoint %d: (%v, %v) %v, want (%v, %v) %v", p, k, kps[2*i], kps[2*i+1], kpScores[i], w[0], w[1], w[2])
			}
		}
	}
}
