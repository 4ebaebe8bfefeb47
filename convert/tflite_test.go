package convert

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
)

const sharedMNISTLSTM = "../../shared/models/mnist_lstm/trained_lstm.tflite"

// TestConvertTFLiteOptions converts a .tflite through Convert (told by its
// identifier), with --no-fuse and with the options that do not apply.
func TestConvertTFLiteOptions(t *testing.T) {
	buf, err := os.ReadFile(sharedMNISTLSTM)
	if err != nil {
		t.Skipf("shared model absent: %v", err)
	}
	res, err := Convert(sharedMNISTLSTM, Options{NoFuse: true})
	if err != nil {
		t.Fatal(err)
	}
	if !IsTFLite(res.Model) || len(res.Subgraphs) != 1 || res.Entry.Func != res.Subgraphs[0] {
		t.Fatalf("result: tflite %v, %d subgraphs", IsTFLite(res.Model), len(res.Subgraphs))
	}
	var printed bytes.Buffer
	if _, err := ConvertTFLite(buf, Options{PrintIRAfter: []string{"import-tflite"}, PrintIRTo: &printed}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(printed.String(), "IR after import-tflite") || !strings.Contains(printed.String(), "tfl.UNIDIRECTIONAL_SEQUENCE_LSTM") {
		t.Errorf("printed IR:\n%s", printed.String())
	}
	for _, o := range []Options{{Signature: "x"}, {InputArrays: []string{"a"}}, {InputShapes: []ir.Shape{{1}}}, {PrintIRAfter: []string{"nope"}}} {
		if _, err := ConvertTFLite(buf, o); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
}

// TestConvertTFLiteHostile feeds truncated and corrupted models: each is
// an error, never a panic.
func TestConvertTFLiteHostile(t *testing.T) {
	buf, err := os.ReadFile(sharedMNISTLSTM)
	if err != nil {
		t.Skipf("shared model absent: %v", err)
	}
	for _, n := range []int{0, 7, 8, 64, len(buf) / 2, len(buf) - 1} {
		if _, err := ConvertTFLite(buf[:n], Options{}); err == nil && n < len(buf) {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
	for i := 8; i < len(buf) && i < 4096; i += 13 {
		bad := bytes.Clone(buf)
		bad[i] ^= 0xa5
		ConvertTFLite(bad, Options{}) // an error or a model; never a panic
	}
	if _, err := ConvertTFLite(buf, Options{MaxConstantBytes: 1024}); err == nil || !strings.Contains(err.Error(), "max-constant-bytes") {
		t.Errorf("MaxConstantBytes 1024: error %v, want one naming the limit", err)
	}
}

// TestConvertTFLiteHostileLoop corrupts a model with a WHILE loop (built
// by the test) byte by byte: reading, raising and fusing it gives an
// error or a model, never a panic.
func TestConvertTFLiteHostileLoop(t *testing.T) {
	model := rnnLoopModel(loopModel{})
	step := 3
	if testing.Short() {
		step = 17
	}
	for i := 8; i < len(model); i += step {
		for _, x := range []byte{0xff, 0x01, 0x80} {
			bad := bytes.Clone(model)
			bad[i] ^= x
			ConvertTFLite(bad, Options{})
		}
	}
}

// TestTFLiteWriteFixedPoint checks that reading and writing a written
// model changes nothing, also for models tflrun cannot run.
func TestTFLiteWriteFixedPoint(t *testing.T) {
	for _, p := range []string{sharedMNISTLSTM, "../../shared/savedmodels/ditto_v2_bilstm/model.tflite",
		"../../shared/models/micro_speech/audio_preprocessor_int8.tflite"} {
		buf, err := os.ReadFile(p)
		if err != nil {
			t.Logf("%s absent: %v", p, err)
			continue
		}
		once := mustRewrite(t, buf)
		if twice := mustRewrite(t, once); !bytes.Equal(once, twice) {
			t.Errorf("%s: a second round trip changed the model", p)
		}
	}
}

func mustRewrite(t *testing.T, buf []byte) []byte {
	t.Helper()
	m, err := tflite.Read(buf, ir.NewBudget(ir.DefaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	out, err := tflite.WriteModel(m, "")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConvertTFLiteQuantize quantises a float .tflite's weights in both
// modes; the result runs and stays close to the float model.
func TestConvertTFLiteQuantize(t *testing.T) {
	buf, err := os.ReadFile("../../shared/models/vww_96/vww_96_float.tflite")
	if err != nil {
		t.Skipf("shared model absent: %v", err)
	}
	for _, mode := range []QuantizeMode{QuantizeDynamic, QuantizeFloat16} {
		res, err := ConvertTFLite(buf, Options{Quantize: QuantizeOptions{Mode: mode}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Quantization == nil || len(res.Quantization.Weights) == 0 || len(res.Model) >= len(buf) {
			t.Fatalf("mode %v: %d bytes from %d, summary %+v", mode, len(res.Model), len(buf), res.Quantization)
		}
		diff, err := compareModels(buf, res.Model, 2)
		if err != nil {
			t.Fatal(err)
		}
		if diff > 0.1 {
			t.Errorf("mode %v: outputs differ by %g", mode, diff)
		}
	}
}
