package tfops_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// TestAudioFrontEnd: AudioSpectrogram and Mfcc become TFLite's custom
// operators of those names (version 1) with their attributes in a
// FlexBuffer map, and the model runs: a 1 kHz tone gives [1, 49, 10]
// finite coefficients, frame after frame the same. A frequency limit with
// a fraction, which TFLite's kernel would truncate, is refused naming it.
func TestAudioFrontEnd(t *testing.T) {
	res, err := convert.Convert("testdata/audio.pbtxt", convert.Options{OutputArrays: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	m := schema.GetRootAsModel(res.Model, 0).UnPack()
	sg := m.Subgraphs[0]
	want := []struct {
		name string
		opts map[string]int64
	}{
		{"AudioSpectrogram", map[string]int64{"window_size": 480, "stride": 320, "magnitude_squared": 1}},
		{"Mfcc", map[string]int64{"upper_frequency_limit": 4000, "lower_frequency_limit": 20, "filterbank_channel_count": 40, "dct_coefficient_count": 10}},
	}
	if len(sg.Operators) != len(want) {
		t.Fatalf("%d operators, want %d", len(sg.Operators), len(want))
	}
	for i, w := range want {
		op := sg.Operators[i]
		code := m.OperatorCodes[op.OpcodeIndex]
		if code.BuiltinCode != schema.BuiltinOperatorCUSTOM || code.CustomCode != w.name || code.Version != 1 {
			t.Fatalf("operator %d: %s %q v%d, want custom %q v1", i, code.BuiltinCode, code.CustomCode, code.Version, w.name)
		}
		o, err := flexbuffers.RootMap(op.CustomOptions)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range w.opts {
			got, err := o.Int(k)
			if k == "magnitude_squared" {
				b, e := o.Bool(k)
				got, err = map[bool]int64{true: 1}[b], e
			}
			if err != nil || got != v {
				t.Errorf("%s option %s = %d (%v), want %d", w.name, k, got, err, v)
			}
		}
	}
	model, err := interpreter.LoadBytes(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	in := it.Input(0).Float32s()
	for i := range in {
		in[i] = float32(0.5 * math.Sin(2*math.Pi*1000*float64(i)/16000))
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	out := it.Output(0)
	if len(out.Shape) != 3 || out.Shape[0] != 1 || out.Shape[1] != 49 || out.Shape[2] != 10 {
		t.Fatalf("output shape %v, want [1 49 10]", out.Shape)
	}
	y := out.Float32s()
	for i, v := range y {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("coefficient %d is %v", i, v)
		}
		// 320 samples is 20 periods of the tone: every frame is the same.
		if d := math.Abs(float64(v - y[i%10])); d > 1e-3*(1+math.Abs(float64(y[i%10]))) {
			t.Fatalf("frame %d coefficient %d = %v, frame 0 has %v", i/10, i%10, v, y[i%10])
		}
	}

	b, err := os.ReadFile("testdata/audio.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	frac := filepath.Join(t.TempDir(), "frac.pbtxt")
	if err := os.WriteFile(frac, []byte(strings.Replace(string(b), "value { f: 4000 }", "value { f: 7600.5 }", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = convert.Convert(frac, convert.Options{OutputArrays: []string{"y"}})
	if err == nil || !strings.Contains(err.Error(), `node "y" (op Mfcc): upper_frequency_limit 7600.5 is not a whole number of hertz`) {
		t.Errorf("fractional limit: %v", err)
	}
}
