package interpreter

import (
	"os"
	"path/filepath"
	"testing"
)

// Real CNN models beyond the golden folders: TensorFlow's own conversions
// of the DS-CNN keyword spotter (the float one has hybrid CONV_2D filters)
// against their golden outputs, and TFLite Micro's person_detect, which
// TFLite itself refuses to load (per-channel bias scales with
// quantized_dimension 3 on 1-D tensors) and which must at least load and
// run here. They are read from ../../shared and skipped when it is absent.

// TestGoldenKWSReferenceModel runs ../shared/golden/convert/kws_dscnn with
// the model its case.json names (TensorFlow's float conversion), which
// exercises the hybrid CONV_2D path within 1e-5.
func TestGoldenKWSReferenceModel(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "golden", "convert", "kws_dscnn")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("%s is absent: %v", root, err)
	}
	testGoldenFolder(t, root)
}

// TestCNNModelsRun loads, allocates and invokes the int8 DS-CNN and
// person_detect, checking that Invoke allocates nothing after the first
// run and that the outputs are valid probabilities (int8 softmax outputs
// summing to about 1).
func TestCNNModelsRun(t *testing.T) {
	for _, p := range []string{
		filepath.Join("..", "..", "shared", "savedmodels", "kws_dscnn", "kws_ref_model.tflite"),
		filepath.Join("..", "..", "shared", "models", "person_detect", "person_detect.tflite"),
	} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			if _, err := os.Stat(p); err != nil {
				t.Skipf("%s is absent: %v", p, err)
			}
			m, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			it, err := New(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := it.AllocateTensors(); err != nil {
				t.Fatal(err)
			}
			in := it.Input(0)
			for i := range in.Data {
				in.Data[i] = byte(i * 37)
			}
			if err := it.Invoke(); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(3, func() { _ = it.Invoke() }); a != 0 {
				t.Fatalf("Invoke allocated %v times", a)
			}
			out := it.Output(0)
			sum := 0.0
			for _, v := range asFloat64(out.Type, out.Data) {
				sum += (v - float64(out.ZeroPoint())) * float64(out.Scale())
			}
			if sum < 0.9 || sum > 1.1 {
				t.Fatalf("output probabilities sum to %v", sum)
			}
		})
	}
}
