package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/testmodels"
	"github.com/tflrun/tflrun/metadata"
	"github.com/tflrun/tflrun/schema"
	"github.com/tflrun/tflrun/wav"
)

// writeFile writes b to name in a test's temporary directory.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// solidPNG is a w×h PNG of one colour (gray when gray is set).
func solidPNG(t *testing.T, w, h int, c color.NRGBA, gray bool) []byte {
	t.Helper()
	var img image.Image
	if gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i := range g.Pix {
			g.Pix[i] = c.R
		}
		img = g
	} else {
		n := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				n.SetNRGBA(x, y, c)
			}
		}
		img = n
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func runJSON(t *testing.T, args ...string) runReport {
	t.Helper()
	code, out, errs := tflrun(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, errs)
	}
	var rep runReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%q: bad JSON: %v\n%s", args, err, out)
	}
	return rep
}

// TestRunScoreOutputs: top classes for float and quantised score vectors,
// [1, 2] included, and not for integer outputs.
func TestRunScoreOutputs(t *testing.T) {
	dir := t.TempDir()
	soft2 := writeFile(t, dir, "softmax2.tflite", testmodels.Softmax(1, 2))
	cast := writeFile(t, dir, "cast.tflite", testmodels.CastToInt32(1, 3))
	if rep := runJSON(t, "run", soft2); len(rep.Outputs[0].Top) != 2 {
		t.Errorf("[1, 2] softmax: top %+v", rep.Outputs[0].Top)
	}
	if _, out, _ := tflrun(t, "run", soft2); !strings.Contains(out, "  top 2:\n    class ") {
		t.Errorf("[1, 2] text:\n%s", out)
	}
	if rep := runJSON(t, "run", cast); rep.Outputs[0].Top != nil {
		t.Errorf("int32 output has a top list: %+v", rep.Outputs[0].Top)
	}
	if _, out, _ := tflrun(t, "run", cast); strings.Contains(out, "top") {
		t.Errorf("int32 output text has a top list:\n%s", out)
	}
	if rep := runJSON(t, "run", soft2, "--top-k", "0"); rep.Outputs[0].Top != nil {
		t.Errorf("--top-k 0: %+v", rep.Outputs[0].Top)
	}
}

// TestRunStreamsValues: values are capped by --max-values (64 for text,
// all for JSON by default), the total is reported, and top-k ties go to
// the lower index.
func TestRunStreamsValues(t *testing.T) {
	fill := writeFile(t, t.TempDir(), "fill.tflite", testmodels.Fill(100000, 0.5))
	_, out, _ := tflrun(t, "run", fill)
	if !strings.Contains(out, `output 0 "filled" float32 [100000]`) || !strings.Contains(out, " 0.5 ... 99936 more (see --max-values, --output-dir)]") {
		t.Errorf("text:\n%s", out)
	}
	if !regexp.MustCompile(`top 5:\n    class 0 +0\.5\n    class 1 +0\.5\n    class 2 `).MatchString(out) {
		t.Errorf("ties do not go to the lower index:\n%s", out)
	}
	_, out, _ = tflrun(t, "run", fill, "--max-values=3")
	if !strings.Contains(out, "values: [0.5 0.5 0.5 ... 99997 more") {
		t.Errorf("--max-values=3:\n%s", out)
	}
	rep := runJSON(t, "run", fill)
	if o := rep.Outputs[0]; o.ValuesTotal != 100000 || len(o.Values) != 100000 || o.Values[99999] != 0.5 {
		t.Errorf("JSON: total %d, %d values", o.ValuesTotal, len(o.Values))
	}
	rep = runJSON(t, "run", fill, "--max-values", "2")
	if o := rep.Outputs[0]; o.ValuesTotal != 100000 || len(o.Values) != 2 {
		t.Errorf("JSON --max-values 2: total %d, %d values", o.ValuesTotal, len(o.Values))
	}
	_, one, _ := tflrun(t, "run", fill)
	if code, four, errs := tflrun(t, "run", fill, "--num_threads", "4"); code != 0 || four != one {
		t.Errorf("--num_threads 4: exit %d %s\n%s\nwant\n%s", code, errs, four, one)
	}
	if code, _, errs := tflrun(t, "run", fill, "--num_threads", "-2"); code == 0 || !strings.Contains(errs, "NumThreads is -2") {
		t.Errorf("--num_threads -2: exit %d %s", code, errs)
	}
	if code, _, errs := tflrun(t, "run", fill, "--max-values", "-5"); code != 2 {
		t.Errorf("--max-values -5: exit %d %s", code, errs)
	}
}

// withLabels is the embedded model with metadata naming a label file for
// its output, and the file zipped on.
func withLabels(t *testing.T) []byte {
	t.Helper()
	model, err := os.ReadFile(floatModel)
	if err != nil {
		t.Fatal(err)
	}
	md := &metadata.ModelMetadata{Name: "seeded digits", Version: "1", Author: "tflrun tests", Subgraphs: []metadata.SubgraphMetadata{{
		Inputs:  []metadata.TensorMetadata{{Name: "input"}},
		Outputs: []metadata.TensorMetadata{{Name: "probabilities", AssociatedFiles: []metadata.AssociatedFile{{Name: "digits.txt", Type: metadata.FileTensorAxisLabels, Description: "digit names"}}}},
	}}}
	b, err := metadata.Populate(model, md, []metadata.File{{Name: "digits.txt", Data: []byte("zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n")}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunLabels: with a label file in the model's metadata, the top
// classes carry their names; --no-metadata leaves them out.
func TestRunLabels(t *testing.T) {
	p := writeFile(t, t.TempDir(), "labelled.tflite", withLabels(t))
	names := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	rep := runJSON(t, "run", p)
	for _, c := range rep.Outputs[0].Top {
		if c.Label != names[c.Class] {
			t.Errorf("class %d labelled %q", c.Class, c.Label)
		}
	}
	_, out, _ := tflrun(t, "run", p)
	if c := rep.Outputs[0].Top[0]; !strings.Contains(out, "  "+names[c.Class]+"\n") {
		t.Errorf("text lacks the label %q:\n%s", names[c.Class], out)
	}
	if rep := runJSON(t, "run", p, "--no-metadata"); rep.Outputs[0].Top[0].Label != "" {
		t.Errorf("--no-metadata still labels")
	}

	// inspect shows the metadata, in text and JSON.
	_, out, _ = tflrun(t, "inspect", p)
	for _, want := range []string{"TensorFlow Lite metadata:\n  name: seeded digits\n  version: 1\n  author: tflrun tests\n",
		`output 0 "probabilities"`, "file digits.txt (TENSOR_AXIS_LABELS): digit names", "files zipped onto the model:\n    digits.txt (50 bytes)"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	code, out, errs := tflrun(t, "inspect", p, "--json")
	var ir inspectReport
	if code != 0 || json.Unmarshal([]byte(out), &ir) != nil {
		t.Fatalf("inspect --json: exit %d %s", code, errs)
	}
	if ir.TFLiteMetadata == nil || ir.TFLiteMetadata.Name != "seeded digits" || len(ir.AssociatedFiles) != 1 || ir.AssociatedFiles[0].Bytes != 50 {
		t.Errorf("inspect --json metadata: %+v %+v", ir.TFLiteMetadata, ir.AssociatedFiles)
	}
}

// TestRunImagePreprocessing: normalisation from flags and from metadata,
// raw pixels for uint8 metadata models, channel checks and resizing, on
// a model that outputs the per-channel mean of its input.
func TestRunImagePreprocessing(t *testing.T) {
	dir := t.TempDir()
	rgb := writeFile(t, dir, "rgb.png", solidPNG(t, 4, 4, color.NRGBA{10, 100, 200, 255}, false))
	big := writeFile(t, dir, "big.png", solidPNG(t, 8, 6, color.NRGBA{10, 100, 200, 255}, false))
	gray := writeFile(t, dir, "gray.png", solidPNG(t, 4, 4, color.NRGBA{R: 50}, true))
	floatMean := testmodels.ImageMean(schema.TensorTypeFLOAT32, 4, 4, 3, 0, 0)
	fm := writeFile(t, dir, "mean_f32.tflite", floatMean)
	values := func(args ...string) []any {
		t.Helper()
		return runJSON(t, args...).Outputs[0].Values
	}
	near := func(got []any, want ...float64) bool {
		for i, w := range want {
			if g, ok := got[i].(float64); !ok || g-w > 1e-6 || w-g > 1e-6 {
				return false
			}
		}
		return true
	}
	if v := values("run", fm, "--input", "0="+rgb); !near(v, 10.0/255, 100.0/255, 200.0/255) {
		t.Errorf("default: %v", v)
	}
	if v := values("run", fm, "--input", "0="+rgb, "--mean", "127.5", "--std", "127.5"); !near(v, (10-127.5)/127.5, (100-127.5)/127.5, (200-127.5)/127.5) {
		t.Errorf("--mean/--std: %v", v)
	}
	if v := values("run", fm, "--input", "0="+rgb, "--mean", "10,0,0", "--std", "1,2,4"); !near(v, 0, 50, 50) {
		t.Errorf("per-channel --mean/--std: %v", v)
	}
	// The model's metadata normalisation applies when no flag is given.
	md := &metadata.ModelMetadata{Subgraphs: []metadata.SubgraphMetadata{{Inputs: []metadata.TensorMetadata{{
		Name: "image", ProcessUnits: []metadata.ProcessUnit{{Normalization: &metadata.NormalizationOptions{Mean: []float32{0}, Std: []float32{1}}}},
	}}}}}
	withNorm, err := metadata.Populate(floatMean, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmn := writeFile(t, dir, "mean_f32_meta.tflite", withNorm)
	rep := runJSON(t, "run", fmn, "--input", "0="+rgb)
	if v := rep.Outputs[0].Values; !near(v, 10, 100, 200) || !strings.Contains(rep.Inputs[0].Preprocessing, "metadata mean [0] std [1]") {
		t.Errorf("metadata normalisation: %v %q", v, rep.Inputs[0].Preprocessing)
	}
	// A uint8 input quantised as MobileNet's (scale 1/128, zero point 128)
	// with metadata normalisation gets the raw pixels.
	u8, err := metadata.Populate(testmodels.ImageMean(schema.TensorTypeUINT8, 4, 4, 3, 1.0/128, 128), md, nil)
	if err != nil {
		t.Fatal(err)
	}
	u8p := writeFile(t, dir, "mean_u8_meta.tflite", u8)
	if v := values("run", u8p, "--input", "0="+rgb); !near(v, 10, 100, 200) {
		t.Errorf("uint8 raw pixels: %v", v)
	}
	// Channels and size.
	code, _, errs := tflrun(t, "run", fm, "--input", "0="+gray)
	if code != 1 || !strings.Contains(errs, "the image has 1 channel(s) (gray), the input [1 4 4 3] takes 3") || !strings.Contains(errs, "--convert-channels") {
		t.Errorf("gray into RGB: exit %d %s", code, errs)
	}
	if v := values("run", fm, "--input", "0="+gray, "--convert-channels"); !near(v, 50.0/255, 50.0/255, 50.0/255) {
		t.Errorf("--convert-channels: %v", v)
	}
	code, _, errs = tflrun(t, "run", fm, "--input", "0="+big)
	if code != 1 || !strings.Contains(errs, "image is 8x6 (width x height), the input [1 4 4 3] needs 4x4") || !strings.Contains(errs, "--resize") {
		t.Errorf("8x6 into 4x4: exit %d %s", code, errs)
	}
	rep = runJSON(t, "run", fm, "--input", "0="+big, "--resize", "bilinear")
	if v := rep.Outputs[0].Values; !near(v, 10.0/255, 100.0/255, 200.0/255) || !strings.Contains(rep.Inputs[0].Preprocessing, "resized from 8x6 (bilinear)") {
		t.Errorf("--resize bilinear: %v %q", v, rep.Inputs[0].Preprocessing)
	}
	for _, args := range [][]string{{"--mean", "1"}, {"--mean", "x", "--std", "1"}, {"--resize", "cubic"}} {
		if code, _, errs := tflrun(t, append([]string{"run", fm, "--input", "0=" + rgb}, args...)...); code != 2 {
			t.Errorf("%q: exit %d %s", args, code, errs)
		}
	}
}

// TestRunWAV feeds a WAV file to a float32 input of as many elements.
func TestRunWAV(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, frames int) string {
		var buf bytes.Buffer
		data := make([]byte, 2*frames)
		for i := 0; i < frames; i++ {
			binary.LittleEndian.PutUint16(data[2*i:], uint16(int16(i*40-16000)))
		}
		if err := wav.Encode(&buf, &wav.Audio{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Format: wav.PCM, Frames: frames, Data: data}); err != nil {
			t.Fatal(err)
		}
		return writeFile(t, dir, name, buf.Bytes())
	}
	if code, out, errs := tflrun(t, "run", floatModel, "--input", "0="+write("ok.wav", 784)); code != 0 || !strings.Contains(out, `output 0 "probabilities"`) {
		t.Errorf("784 frames: exit %d %s%s", code, out, errs)
	}
	code, _, errs := tflrun(t, "run", floatModel, "--input", "0="+write("short.wav", 700))
	if code != 1 || !strings.Contains(errs, `the WAV file has 700 frames x 1 channel(s) = 700 samples, the input "input" [1 28 28] takes 784`) {
		t.Errorf("700 frames: exit %d %s", code, errs)
	}
	code, _, errs = tflrun(t, "run", floatModel, "--input", "0="+writeFile(t, dir, "bad.wav", []byte("RIFF....WAVEjunk")))
	if code != 1 || !strings.Contains(errs, "wav: ") {
		t.Errorf("bad WAV: exit %d %s", code, errs)
	}
}

// pngHeader is a PNG signature and IHDR of a w×h RGBA image, with no
// pixel data: all a decoding budget check reads.
func pngHeader(w, h uint32) []byte {
	ihdr := append([]byte("IHDR"), binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)...)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	b := append([]byte("\x89PNG\r\n\x1a\n"), binary.BigEndian.AppendUint32(nil, 13)...)
	b = append(b, ihdr...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
}

// TestRunMemoryBound: --max-memory bounds the arena, input files and
// image decoding, and malformed sizes are usage errors.
func TestRunMemoryBound(t *testing.T) {
	dir := t.TempDir()
	fill := writeFile(t, dir, "fill.tflite", testmodels.Fill(100000, 1))
	code, _, errs := tflrun(t, "run", fill, "--max-memory", "64KiB")
	if code != 1 || !strings.Contains(errs, "tflrun: ") {
		t.Errorf("400 kB output under a 64 KiB bound: exit %d %s", code, errs)
	}
	if code, _, errs := tflrun(t, "run", fill, "--max-memory=1MiB"); code != 0 {
		t.Errorf("under 1 MiB: exit %d %s", code, errs)
	}
	for _, v := range []string{"lots", "1XB", "0", "-5"} {
		if code, _, errs := tflrun(t, "run", fill, "--max-memory", v); code != 2 {
			t.Errorf("--max-memory %s: exit %d %s", v, code, errs)
		}
	}
	fm := writeFile(t, dir, "mean.tflite", testmodels.ImageMean(schema.TensorTypeFLOAT32, 4, 4, 3, 0, 0))
	huge := writeFile(t, dir, "huge.png", pngHeader(17000, 17000))
	code, _, errs = tflrun(t, "run", fm, "--input", "0="+huge)
	if code != 1 || !strings.Contains(errs, "png image of 17000x17000 pixels would take about 2312000000 bytes to decode, over the budget") || !strings.Contains(errs, "default memory bound") {
		t.Errorf("17000x17000 PNG: exit %d %s", code, errs)
	}
	bin := writeFile(t, dir, "big.bin", make([]byte, 20000))
	code, _, errs = tflrun(t, "run", fm, "--input", "0="+bin, "--max-memory", "10KiB")
	if code != 1 || !strings.Contains(errs, "the file is 20000 bytes, over the --max-memory bound of 10240 bytes") {
		t.Errorf("20 kB file under 10 KiB: exit %d %s", code, errs)
	}
	if code, out, errs := tflrun(t, "inspect", fill, "--max-memory", "64KiB"); code != 0 || !strings.Contains(out, "allocation: failed: ") {
		t.Errorf("inspect --max-memory: exit %d %s %s", code, out, errs)
	}
	if code, _, errs := tflrun(t, "bench", fill, "--max-memory", "64KiB", "--num_runs", "1"); code != 1 {
		t.Errorf("bench --max-memory: exit %d %s", code, errs)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512MiB": 512 << 20, "2GiB": 2 << 30, "2 gib": 2 << 30, "1.5GB": 1500000000, "64k": 64 << 10, "3KB": 3000, "7B": 7} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "1.5", "-1", "1e3MiB", "99999999999TiB", "2 parsecs"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}

// TestRunMobileNet classifies a digit (resized, gray to RGB) with the
// shared MobileNet, whose metadata names its 1001 ImageNet labels.
func TestRunMobileNet(t *testing.T) {
	model := shared(t, "models/mobilenet_v1_025_128_uint8/mobilenet_v1_0.25_128_quant.tflite")
	rep := runJSON(t, "run", model, "--input", "0="+sample(t, 3), "--resize", "bilinear", "--convert-channels")
	top := rep.Outputs[0].Top
	if len(top) != 5 || top[0].Label == "" {
		t.Fatalf("top %+v", top)
	}
	if !strings.Contains(rep.Inputs[0].Preprocessing, "raw pixels") {
		t.Errorf("preprocessing %q", rep.Inputs[0].Preprocessing)
	}
}
