package interpreter

import (
	"os"
	"path/filepath"
	"testing"
)

// Real CNN models beyond the golden folders (TensorFlow's float conversion
// of the DS-CNN keyword spotter is a golden folder, kws_dscnn_hybrid, in
// goldenSharedFolders): TensorFlow's int8 conversion of the DS-CNN, and
// TFLite Micro's person_detect, which TFLite itself refuses to load
// (per-channel bias scales with quantized_dimension 3 on 1-D tensors) and
// which must at least load and run here. They are read from ../../shared
// and skipped when it is absent.

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
			for _, v := range mustFloat64(t, out.Type, out.Data) {
				sum += (v - float64(out.ZeroPoint())) * float64(out.Scale())
			}
			if sum < 0.9 || sum > 1.1 {
				t.Fatalf("output probabilities sum to %v", sum)
			}
		})
	}
}
