package perception_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of MediaPipe's landmark operators: single-operator models
// (written here with optest.Builder) run by a TensorFlow Lite runner with
// MediaPipe's kernels registered (TFLITE_REF pointing at a
// tflite_ref_custom), recorded once into testdata/<op>/<variant>/
// (TestRecordLandmarkOps, gated on TFLRUN_RECORD=1) and checked on every
// run (TestGoldenLandmarkOps).

type tIn struct {
	shape []int32
	data  []float32 // nil: an activation the recorder fills
}

type goldenModel struct {
	op, variant string
	model       []byte
	gen         optest.InputGen
}

// customModel is one custom operator of the given version over float32
// tensors: activations are the model's inputs, outputs its outputs.
func customModel(name string, version int32, opts []byte, ins []tIn, outs [][]int32) []byte {
	b := optest.NewBuilder()
	f32 := schema.TensorTypeFLOAT32
	var idx, modelIns, outIdx []int32
	for i, in := range ins {
		n := fmt.Sprintf("in%d", i)
		if in.data != nil {
			idx = append(idx, b.Const(n, f32, in.shape, nil, optest.F32(in.data...)))
			continue
		}
		t := b.Tensor(n, f32, in.shape, nil)
		idx, modelIns = append(idx, t), append(modelIns, t)
	}
	for i, s := range outs {
		outIdx = append(outIdx, b.Tensor(fmt.Sprintf("out%d", i), f32, s, nil))
	}
	b.Custom(name, idx, outIdx, opts)
	b.Inputs(modelIns...)
	b.Outputs(outIdx...)
	for _, oc := range b.Model().OperatorCodes {
		if oc.CustomCode == name {
			oc.Version = version
		}
	}
	return b.Bytes()
}

func flex(kv ...any) []byte {
	var b flexbuffers.Builder
	m := b.StartMap()
	for i := 0; i < len(kv); i += 2 {
		b.Key(kv[i].(string))
		switch v := kv[i+1].(type) {
		case int:
			b.Int(int64(v))
		case float32:
			b.Float32(v)
		case string:
			b.String(v)
		case []int:
			s := b.StartVector()
			for _, x := range v {
				b.Int(int64(x))
			}
			b.EndVector(s, true, false)
		}
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return buf
}

// scaled draws floats uniformly in [lo, hi).
func scaled(lo, hi float64) optest.InputGen {
	return func(r *rand.Rand, _ int, _ ops.DataType) float64 { return lo + (hi-lo)*r.Float64() }
}

// rotatedCrop is a [1, 4, 4] matrix: a crop of scale s rotated by a
// radians with its origin at (x, y).
func rotatedCrop(s, a, x, y float64) []float32 {
	c, sn := float32(s*math.Cos(a)), float32(s*math.Sin(a))
	return []float32{c, -sn, 0, float32(x), sn, c, 0, float32(y), 0, 0, 1, 0, 0, 0, 0, 1}
}

// The face model's left-eye subset and rotation landmarks.
var eyeSubset = []int{33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173,
	130, 25, 110, 24, 23, 22, 26, 112, 243, 247, 30, 29, 27, 28, 56, 190, 226, 31, 228, 229,
	230, 231, 232, 233, 244, 113, 225, 224, 223, 222, 221, 189, 35, 124, 46, 53, 52, 65,
	143, 111, 117, 118, 119, 120, 121, 128, 245, 156, 70, 63, 105, 66, 107, 55, 193}

func goldenModels() []goldenModel {
	ltmV2 := flex("subset_idxs", eyeSubset, "left_rotation_idx", 33, "right_rotation_idx", 133,
		"target_rotation_radians", float32(0.3), "output_height", 16, "output_width", 12,
		"scale_x", float32(1.5), "scale_y", float32(1.25))
	ltmV1 := flex("input_hw", []int{48, 48}, "output_hw", []int{16, 16}, "dimensions", 3,
		"landmarks_range", 192, "bbox_size_multiplier", float32(1.5), "left_rotation_idx", 0,
		"right_rotation_idx", 5, "subset", []int{0, 5, 2, 9, 11, 13, 7})
	return []goldenModel{
		{"landmarks_to_transform_matrix", "v2_face_eye", customModel("Landmarks2TransformMatrix", 2, ltmV2,
			[]tIn{{shape: []int32{1, 468, 3}}}, [][]int32{{1, 4, 4}}), scaled(0, 192)},
		{"landmarks_to_transform_matrix", "v1", customModel("Landmarks2TransformMatrix", 1, ltmV1,
			[]tIn{{shape: []int32{1, 1, 1, 42}}}, [][]int32{{1, 4, 4}}), scaled(0, 192)},
		{"transform_landmarks", "v2_xy", customModel("TransformLandmarks", 2, nil,
			[]tIn{{shape: []int32{1, 80, 2}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 80, 2}}), scaled(-2, 2)},
		{"transform_landmarks", "v2_xyz", customModel("TransformLandmarks", 2, nil,
			[]tIn{{shape: []int32{1, 33, 3}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 33, 3}}), scaled(-2, 2)},
		{"transform_landmarks", "v1_scale", customModel("TransformLandmarks", 1, flex("dimensions", 3, "scale", float32(2.5)),
			[]tIn{{shape: []int32{1, 2, 1, 12}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 2, 1, 12}}), scaled(-2, 2)},
		{"transform_tensor_bilinear", "v2_crop", customModel("TransformTensorBilinear", 2, flex("output_height", 16, "output_width", 16),
			[]tIn{{shape: []int32{1, 48, 48, 8}}, {shape: []int32{1, 4, 4}, data: rotatedCrop(1.3, 0.4, 14, 5)}},
			[][]int32{{1, 16, 16, 8}}), nil},
		{"transform_tensor_bilinear", "v2_edge", customModel("TransformTensorBilinear", 2, flex("output_height", 9, "output_width", 7),
			[]tIn{{shape: []int32{1, 10, 12, 3}}, {shape: []int32{1, 4, 4}, data: rotatedCrop(1.7, -0.9, -2, 6)}},
			[][]int32{{1, 9, 7, 3}}), nil},
		{"transform_tensor_bilinear", "v1_crop", customModel("TransformTensorBilinear", 1, flex("mode", "bilinear", "output_size", []int{8, 10}),
			[]tIn{{shape: []int32{1, 20, 20, 4}}, {shape: []int32{1, 4, 4}, data: rotatedCrop(0.8, 1.1, 11, 2)}},
			[][]int32{{1, 8, 10, 4}}), nil},
	}
}

func TestRecordLandmarkOps(t *testing.T) {
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording skipped: run with %s=1 %s=/path/to/tflite_ref_custom (MediaPipe's kernels registered) to rewrite testdata/", optest.RecordEnv, optest.RefEnv)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	cleared := map[string]bool{}
	for i, m := range goldenModels() {
		root := filepath.Join("testdata", m.op)
		if !cleared[root] {
			if err := os.RemoveAll(root); err != nil {
				t.Fatal(err)
			}
			cleared[root] = true
		}
		if err := optest.RecordCases(ref, filepath.Join(root, m.variant), m.model, 3, uint64(1000*i+1), m.gen, optest.Case{}); err != nil {
			t.Errorf("%s/%s: %v", m.op, m.variant, err)
		}
	}
}

func TestGoldenLandmarkOps(t *testing.T) {
	for _, op := range []string{"landmarks_to_transform_matrix", "transform_landmarks", "transform_tensor_bilinear"} {
		root := filepath.Join("testdata", op)
		if _, err := os.Stat(root); err != nil {
			t.Skipf("%s: no recorded cases (%v); record them with TestRecordLandmarkOps", op, err)
		}
		optest.Check(t, root, nil)
	}
}
