package builtin_test

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Hostile models for the detection, FFT, audio and sparse operators
// (NON_MAX_SUPPRESSION_V4/V5, RFFT2D, REAL, IMAG, COMPLEX_ABS, DENSIFY and
// the custom TFLite_Detection_PostProcess, AudioSpectrogram and Mfcc),
// through the whole interpreter: their golden-case models with bytes
// corrupted at random (custom options, shapes, constants, sparsity), and
// targeted breakages (lying FlexBuffers, sizes far too large, run-time
// values where constants are needed). Each must load, allocate and
// invoke, or fail with an error naming the operator; never panic, and
// never allocate past the interpreter's bound.

// hostileLimit is the arena bound of these tests: far above what the
// golden models need, far below what the hostile sizes ask for.
const hostileLimit = 64 << 20

var hostileResolver = interpreter.DefaultResolver()

// loadAndInvoke loads b, allocates its tensors within hostileLimit and
// invokes it once (inputs as allocated: zeros).
func loadAndInvoke(b []byte) error {
	m, err := interpreter.LoadBytes(b)
	if err != nil {
		return err
	}
	it, err := interpreter.New(m, &interpreter.Options{MaxArenaBytes: hostileLimit, Resolver: hostileResolver})
	if err != nil {
		return err
	}
	if err := it.AllocateTensors(); err != nil {
		return err
	}
	return it.Invoke()
}

// goldenModels returns the golden-case models of those operators.
func goldenModels(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, op := range []string{"detection_postprocess", "non_max_suppression", "rfft2d", "complex_parts", "audio_spectrogram", "mfcc", "densify"} {
		m, _ := filepath.Glob(filepath.Join("testdata", op, "*", "model.tflite"))
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Fatal("no golden-case models under testdata")
	}
	return paths
}

// hugeOutputRefusal is how an output of 4 GiB or more is refused: by the
// interpreter's arena bound on 64-bit targets; on 32-bit ones its byte
// count already overflows int.
var hugeOutputRefusal = map[bool]string{true: "overflows", false: "MaxArenaBytes"}[strconv.IntSize == 32]

func TestHostileModelsCorrupted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	mutations := 40
	if testing.Short() {
		mutations = 8
	}
	for _, p := range goldenModels(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// A run-time sample rate is 0 in the zeroed inputs: refused at Eval.
		if err := loadAndInvoke(b); err != nil && !strings.Contains(err.Error(), "sample rate 0") {
			t.Fatalf("%s must be valid: %v", p, err)
		}
		mut := make([]byte, len(b))
		for k := 0; k < mutations; k++ {
			copy(mut, b)
			for n := 1 + r.IntN(3); n > 0; n-- {
				mut[r.IntN(len(mut))] = byte(r.Uint32())
			}
			_ = loadAndInvoke(mut) // errors are fine, panics are not
		}
	}
}

// lyingMap returns FlexBuffer options whose root map claims 2^31-1
// entries (a 4-byte-wide map holding three).
func lyingMap(t *testing.T) []byte {
	t.Helper()
	b := intMap("max_detections", 1<<20, "window_size", 1<<20, "stride", 1)
	// Root: offset (width b[len-1]) then the packed type; the map's
	// count sits one element width before the map.
	rw := int(b[len(b)-1])
	at := len(b) - 2 - rw
	off := int(b[at]) // one byte suffices for these small maps
	w := 1 << (b[len(b)-2] & 3)
	pos := at - off - w
	for i := range w {
		b[pos+i] = 0xff
	}
	b[pos+w-1] = 0x7f
	return b
}

func TestHostileModels(t *testing.T) {
	load := func(op, variant string) *schema.ModelT {
		b, err := os.ReadFile(filepath.Join("testdata", op, variant, "model.tflite"))
		if err != nil {
			t.Fatalf("golden model %s/%s: %v", op, variant, err)
		}
		return schema.GetRootAsModel(b, 0).UnPack()
	}
	tensor := func(m *schema.ModelT, name string) *schema.TensorT {
		for _, x := range m.Subgraphs[0].Tensors {
			if x.Name == name {
				return x
			}
		}
		t.Fatalf("no tensor %q", name)
		return nil
	}
	setI32 := func(m *schema.ModelT, name string, v ...int32) {
		d := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(d[4*i:], uint32(x))
		}
		m.Buffers[tensor(m, name).Buffer].Data = d
	}
	options := func(op, variant string, opts []byte) func() *schema.ModelT {
		return func() *schema.ModelT {
			m := load(op, variant)
			m.Subgraphs[0].Operators[0].CustomOptions = opts
			return m
		}
	}
	detOpts := func(maxDet int, regular bool) []byte {
		return intMap("max_detections", maxDet, "max_classes_per_detection", 1, "use_regular_nms", regular,
			"num_classes", 5, "nms_iou_threshold", 1) // both models: 5 classes and a background
	}
	cases := []struct {
		name string
		m    func() *schema.ModelT
		want []string
	}{
		{"detection options garbage", options("detection_postprocess", "fast_f32", []byte{1, 2, 3, 4, 5}),
			[]string{"TFLite_Detection_PostProcess", "custom_options"}},
		{"detection options missing", options("detection_postprocess", "regular_u8", nil),
			[]string{"TFLite_Detection_PostProcess", "custom_options are missing"}},
		{"detection options lie about their size", options("detection_postprocess", "fast_f32", lyingMap(t)),
			[]string{"TFLite_Detection_PostProcess", "custom_options"}},
		// Outputs of 4 GiB: within the kernel's limits, refused by the
		// interpreter's arena bound.
		{"detection max_detections huge", options("detection_postprocess", "fast_f32", detOpts(1<<28, false)),
			[]string{hugeOutputRefusal}},
		{"detection max_detections huge, regular", options("detection_postprocess", "regular_f32", detOpts(1<<28, true)),
			[]string{hugeOutputRefusal}},
		{"detection max_detections overflows", options("detection_postprocess", "fast_f32", detOpts(1<<30, false)),
			[]string{"TFLite_Detection_PostProcess", "output 0"}},
		{"detection anchors short", func() *schema.ModelT {
			m := load("detection_postprocess", "fast_f32")
			a := tensor(m, "anchors")
			a.Shape = []int32{29, 4}
			m.Buffers[a.Buffer].Data = make([]byte, 29*16)
			return m
		}, []string{"TFLite_Detection_PostProcess", "anchors"}},
		{"detection anchors data short", func() *schema.ModelT {
			m := load("detection_postprocess", "fast_f32")
			m.Buffers[tensor(m, "anchors").Buffer].Data = make([]byte, 16)
			return m
		}, []string{"anchors"}},
		{"rfft2d length not a power of two", func() *schema.ModelT {
			m := load("rfft2d", "f32_4x8")
			setI32(m, "fft_length", 4, 6)
			return m
		}, []string{"RFFT2D", "fft_width 6"}},
		{"rfft2d huge length", func() *schema.ModelT {
			m := load("rfft2d", "f32_4x8")
			setI32(m, "fft_length", 1<<30, 1<<30)
			return m
		}, []string{"RFFT2D", "fft_height"}},
		{"rfft2d negative length", func() *schema.ModelT {
			m := load("rfft2d", "f32_4x8")
			setI32(m, "fft_length", -4, 8)
			return m
		}, []string{"RFFT2D", "fft_height -4"}},
		{"nms max_output_size negative", func() *schema.ModelT {
			m := load("non_max_suppression", "v4_20_boxes")
			setI32(m, "max_output_size", -1)
			return m
		}, []string{"NON_MAX_SUPPRESSION_V4", "negative"}},
		{"nms max_output_size huge", func() *schema.ModelT {
			m := load("non_max_suppression", "v5_soft")
			setI32(m, "max_output_size", 1<<31-1)
			return m
		}, []string{hugeOutputRefusal}},
		{"spectrogram window 1", options("audio_spectrogram", "w16_s8", intMap("window_size", 1, "stride", 1)),
			[]string{"AudioSpectrogram", "window_size 1"}},
		{"spectrogram window huge", options("audio_spectrogram", "w16_s8", intMap("window_size", 1<<30, "stride", 1)),
			[]string{"AudioSpectrogram", "window_size"}},
		{"spectrogram options lie about their size", options("audio_spectrogram", "w16_s8", lyingMap(t)),
			[]string{"AudioSpectrogram", "custom_options"}},
		{"mfcc more coefficients than channels", options("mfcc", "default_257_bins", intMap("upper_frequency_limit", 4000,
			"lower_frequency_limit", 20, "filterbank_channel_count", 4, "dct_coefficient_count", 13)),
			[]string{"Mfcc", "dct_coefficient_count 13"}},
		{"mfcc huge tables", options("mfcc", "default_257_bins", intMap("upper_frequency_limit", 4000,
			"lower_frequency_limit", 20, "filterbank_channel_count", 1<<30, "dct_coefficient_count", 13)),
			[]string{"Mfcc", "filterbank_channel_count 1073741824", "limits"}},
		{"mfcc huge output", options("mfcc", "default_257_bins", intMap("upper_frequency_limit", 4000,
			"lower_frequency_limit", 20, "filterbank_channel_count", 1<<30, "dct_coefficient_count", 1<<30)),
			[]string{"Mfcc", "output 0"}},
		{"mfcc options lie about their size", options("mfcc", "default_257_bins", lyingMap(t)),
			[]string{"Mfcc", "custom_options"}},
		{"mfcc zero run-time rate", func() *schema.ModelT { return load("mfcc", "runtime_rate") },
			[]string{"Mfcc", "sample rate 0"}},
		{"densify of an activation", func() *schema.ModelT {
			m := load("densify", "f32_csr_rows")
			sg := m.Subgraphs[0]
			for i, x := range sg.Tensors {
				if x.Name == "weights" {
					x.Buffer, x.Sparsity = 0, nil
					sg.Inputs = []int32{int32(i)}
				}
			}
			return m
		}, []string{"DENSIFY", "not a constant"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := loadAndInvoke(optest.Pack(c.m()))
			if err == nil {
				t.Fatal("succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestNMSRunTimeMaxOutputSize: a max_output_size computed at run time
// sizes the outputs at Invoke (the interpreter prepares the node then);
// a negative one is an error naming the operator.
func TestNMSRunTimeMaxOutputSize(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "non_max_suppression", "v5_soft", "model.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	m := schema.GetRootAsModel(b, 0).UnPack()
	sg := m.Subgraphs[0]
	for i, x := range sg.Tensors {
		if x.Name == "max_output_size" {
			x.Buffer = 0
			sg.Inputs = append(sg.Inputs, int32(i))
		}
	}
	model, err := interpreter.LoadBytes(optest.Pack(m))
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	last := it.Input(it.InputCount() - 1)
	for _, max := range []int32{0, 1, 3} {
		last.Int32s()[0] = max
		if err := it.Invoke(); err != nil {
			t.Fatalf("max_output_size %d: %v", max, err)
		}
		if s := it.Output(0).Shape; len(s) != 1 || s[0] != int(max) {
			t.Fatalf("max_output_size %d: selected_indices shape %v", max, s)
		}
	}
	last.Int32s()[0] = -1
	if err := it.Invoke(); err == nil || !strings.Contains(err.Error(), "NON_MAX_SUPPRESSION_V5") || !strings.Contains(err.Error(), "-1 is negative") {
		t.Fatalf("max_output_size -1: %v", err)
	}
}
