package perception_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of MediaPipe's landmark operators: single-operator models
// (written here with optest.Builder), their outputs recorded once into
// testdata/<op>/<variant>/ from MediaPipe's own kernels (gated on
// TFLRUN_RECORD=1: TestRecordLandmarkOps with a TensorFlow Lite runner
// that registers them, TFLITE_REF pointing at a tflite_ref_custom, or
// TestRecordLandmarkOpsHarness with their compute functions compiled
// alone; testdata/README.md says which recorded the cases) and checked on
// every run (TestGoldenLandmarkOps), bit for bit.

type tIn struct {
	shape []int32
	data  []float32 // nil: an activation the recorder fills
}

type goldenModel struct {
	op, variant string
	model       []byte
	gen         optest.InputGen
	// harness is the variant's request to the kernel harness (see
	// TestRecordLandmarkOpsHarness): a mode line with the options, then
	// the input values.
	harness func(ins []*npy.Array) string
	out     []int
	exact   bool // bit-identical outputs (no transcendental functions)
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
	l2 := func(ins []*npy.Array) string {
		return fmt.Sprintf("ltm2 468 %d %s 33 133 0.3 16 12 1.5 1.25 %s", len(eyeSubset), ints(eyeSubset), floats(ins[0]))
	}
	l1 := func(ins []*npy.Array) string {
		return fmt.Sprintf("ltm1 14 7 0 5 2 9 11 13 7 48 48 16 16 192 1.5 0 5 %s", floats(ins[0]))
	}
	tl := func(head string) func(ins []*npy.Array) string {
		return func(ins []*npy.Array) string { return head + " " + floats(ins[1]) + " " + floats(ins[0]) }
	}
	tt := func(head string, m []float32) func(ins []*npy.Array) string {
		return func(ins []*npy.Array) string { return head + " " + vals(m) + " " + floats(ins[0]) }
	}
	crop1, crop2, crop3 := rotatedCrop(0.9, 0.4, 7, 3), rotatedCrop(1.7, -0.9, -2, 6), rotatedCrop(0.8, 1.1, 11, 2)
	return []goldenModel{
		{"landmarks_to_transform_matrix", "v2_face_eye", customModel("Landmarks2TransformMatrix", 2, ltmV2,
			[]tIn{{shape: []int32{1, 468, 3}}}, [][]int32{{1, 4, 4}}), scaled(0, 192), l2, []int{1, 4, 4}, true},
		{"landmarks_to_transform_matrix", "v1", customModel("Landmarks2TransformMatrix", 1, ltmV1,
			[]tIn{{shape: []int32{1, 1, 1, 42}}}, [][]int32{{1, 4, 4}}), scaled(0, 192), l1, []int{1, 4, 4}, true},
		{"transform_landmarks", "v2_xy", customModel("TransformLandmarks", 2, nil,
			[]tIn{{shape: []int32{1, 80, 2}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 80, 2}}), scaled(-2, 2), tl("tl2 80 2"), []int{1, 80, 2}, true},
		{"transform_landmarks", "v2_xyz", customModel("TransformLandmarks", 2, nil,
			[]tIn{{shape: []int32{1, 33, 3}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 33, 3}}), scaled(-2, 2), tl("tl2 33 3"), []int{1, 33, 3}, true},
		{"transform_landmarks", "v1_scale", customModel("TransformLandmarks", 1, flex("dimensions", 3, "scale", float32(2.5)),
			[]tIn{{shape: []int32{1, 2, 1, 12}}, {shape: []int32{1, 4, 4}}}, [][]int32{{1, 2, 1, 12}}), scaled(-2, 2), tl("tl1 2 1 12 3 2.5"), []int{1, 2, 1, 12}, true},
		{"transform_tensor_bilinear", "v2_crop", customModel("TransformTensorBilinear", 2, flex("output_height", 16, "output_width", 16),
			[]tIn{{shape: []int32{1, 24, 24, 5}}, {shape: []int32{1, 4, 4}, data: crop1}},
			[][]int32{{1, 16, 16, 5}}), nil, tt("tt2 24 24 5 16 16", crop1), []int{1, 16, 16, 5}, true},
		{"transform_tensor_bilinear", "v2_edge", customModel("TransformTensorBilinear", 2, flex("output_height", 9, "output_width", 7),
			[]tIn{{shape: []int32{1, 10, 12, 3}}, {shape: []int32{1, 4, 4}, data: crop2}},
			[][]int32{{1, 9, 7, 3}}), nil, tt("tt2 10 12 3 9 7", crop2), []int{1, 9, 7, 3}, true},
		{"transform_tensor_bilinear", "v1_crop", customModel("TransformTensorBilinear", 1, flex("mode", "bilinear", "output_size", []int{8, 10}),
			[]tIn{{shape: []int32{1, 20, 20, 4}}, {shape: []int32{1, 4, 4}, data: crop3}},
			[][]int32{{1, 8, 10, 4}}), nil, tt("tt1 20 20 4 8 10", crop3), []int{1, 8, 10, 4}, true},
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
		if err := optest.RecordCases(ref, filepath.Join(root, m.variant), m.model, 3, uint64(1000*i+1), m.gen, optest.Case{Exact: m.exact}); err != nil {
			t.Errorf("%s/%s: %v", m.op, m.variant, err)
		}
	}
}

// harnessEnv names a kernel harness: a local program (never committed)
// that includes MediaPipe's mediapipe/util/tflite/operations/*.cc and
// calls their CPU compute functions (LandmarksToTransformMatrixV1/V2,
// TransformLandmarks/V2, TransformTensor/TransformTensorBilinearV2) on
// the request it reads on stdin, printing the output values with %.9g.
// Until a TensorFlow Lite runner with MediaPipe's kernels was available,
// the golden cases were recorded with it (testdata/README.md).
const harnessEnv = "TFLRUN_MP_HARNESS"

func ints(v []int) string { return strings.Trim(fmt.Sprint(v), "[]") }

func vals(v []float32) string {
	var b strings.Builder
	for _, x := range v {
		b.WriteString(strconv.FormatFloat(float64(x), 'g', 9, 32))
		b.WriteByte(' ')
	}
	return b.String()
}

func floats(a *npy.Array) string {
	v := make([]float32, len(a.Data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
	return vals(v)
}

// TestRecordLandmarkOpsHarness records the golden cases with the kernel
// harness named by TFLRUN_MP_HARNESS (and TFLRUN_RECORD=1).
func TestRecordLandmarkOpsHarness(t *testing.T) {
	h := os.Getenv(harnessEnv)
	if os.Getenv(optest.RecordEnv) != "1" || h == "" {
		t.Skipf("recording skipped: run with %s=1 %s=/path/to/harness to rewrite testdata/", optest.RecordEnv, harnessEnv)
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
		dir := filepath.Join(root, m.variant)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		mp := filepath.Join(dir, "model.tflite")
		if err := os.WriteFile(mp, m.model, 0o644); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 3; k++ {
			ins, err := optest.RandomInputs(mp, uint64(1000*i+1+k), m.gen, nil)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(h)
			cmd.Stdin = strings.NewReader(m.harness(ins))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s/%s: harness: %v", m.op, m.variant, err)
			}
			fields := bytes.Fields(out)
			data := make([]byte, 4*len(fields))
			for j, f := range fields {
				v, err := strconv.ParseFloat(string(f), 32)
				if err != nil {
					t.Fatal(err)
				}
				binary.LittleEndian.PutUint32(data[4*j:], math.Float32bits(float32(v)))
			}
			want := &npy.Array{Type: ops.Float32, Shape: m.out, Data: data}
			if n := 1; true {
				for _, d := range m.out {
					n *= d
				}
				if len(fields) != n {
					t.Fatalf("%s/%s: harness gave %d values, want %d", m.op, m.variant, len(fields), n)
				}
			}
			c := optest.Case{Dir: filepath.Join(dir, fmt.Sprintf("run%d", k)), Model: mp, Exact: m.exact, Inputs: ins, Outputs: []*npy.Array{want}}
			if err := optest.WriteCase(&c); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestGoldenLandmarkOps(t *testing.T) {
	for _, op := range []string{"landmarks_to_transform_matrix", "transform_landmarks", "transform_tensor_bilinear"} {
		root := filepath.Join("testdata", op)
		if _, err := os.Stat(root); err != nil {
			t.Errorf("%s: no recorded cases (%v)", op, err)
			continue
		}
		optest.Check(t, root, nil)
	}
}
