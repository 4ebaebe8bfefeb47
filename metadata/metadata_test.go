package metadata

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/interpreter"
)

// full is metadata with every field this package reads set, so that a
// round trip through Marshal and Parse checks every slot.
func full() *ModelMetadata {
	labels := AssociatedFile{Name: "labels.txt", Description: "class names", Type: FileTensorAxisLabels, Locale: "en", Version: "2"}
	return &ModelMetadata{
		Name: "classifier", Description: "tells things apart", Version: "v3", Author: "tflrun", License: "Apache-2.0",
		MinParserVersion: "1.5.0",
		AssociatedFiles:  []AssociatedFile{{Name: "readme.txt", Type: FileDescriptions}},
		Subgraphs: []SubgraphMetadata{{
			Name: "main", Description: "the only one",
			Inputs: []TensorMetadata{
				{
					Name: "image", Description: "an RGB image", DimensionNames: []string{"batch", "height", "width", "channels"},
					Content:      &Content{Kind: ContentImage, Image: &ImageProperties{ColorSpace: ColorSpaceRGB, DefaultSize: &ImageSize{224, 160}}, Range: &ValueRange{1, 3}},
					ProcessUnits: []ProcessUnit{{Type: ProcessUnitNormalization, Normalization: &NormalizationOptions{Mean: []float32{127.5, 1, 2}, Std: []float32{127.5}}}},
					Stats:        &Stats{Max: []float32{255}, Min: []float32{0}},
				},
				{Name: "audio", Content: &Content{Kind: ContentAudio, Audio: &AudioProperties{SampleRate: 16000, Channels: 1}}},
				{Name: "text", ProcessUnits: []ProcessUnit{
					{Type: ProcessUnitBertTokenizer, BertTokenizer: &BertTokenizerOptions{VocabFile: []AssociatedFile{{Name: "vocab.txt", Type: FileVocabulary}}}},
					{Type: ProcessUnitSentencePieceTokenizer, SentencePieceTokenizer: &SentencePieceTokenizerOptions{SentencePieceModel: []AssociatedFile{{Name: "sp.model"}}, VocabFile: []AssociatedFile{{Name: "sp.vocab"}}}},
					{Type: ProcessUnitRegexTokenizer, RegexTokenizer: &RegexTokenizerOptions{DelimRegexPattern: `[^\w\']+`, VocabFile: []AssociatedFile{{Name: "vocab.txt", Type: FileVocabulary}}}},
				}},
			},
			Outputs: []TensorMetadata{
				{
					Name: "scores", Content: &Content{Kind: ContentFeature},
					ProcessUnits: []ProcessUnit{
						{Type: ProcessUnitScoreCalibration, ScoreCalibration: &ScoreCalibrationOptions{Transformation: ScoreInverseLogistic, DefaultScore: 0.25}},
						{Type: ProcessUnitScoreThresholding, ScoreThresholding: &ScoreThresholdingOptions{GlobalScoreThreshold: 0.5}},
					},
					AssociatedFiles: []AssociatedFile{labels, {Name: "labels_fr.txt", Type: FileTensorAxisLabels, Locale: "fr"}},
				},
				{Name: "boxes", Content: &Content{Kind: ContentBoundingBox, BoundingBox: &BoundingBoxProperties{Index: []uint32{1, 0, 3, 2}, Type: BoundingBoxBoundaries, CoordinateType: CoordinatePixel}, Range: &ValueRange{2, 2}}},
			},
			AssociatedFiles:    []AssociatedFile{{Name: "calibration.csv", Type: FileTensorAxisScoreCalibration}},
			InputProcessUnits:  []ProcessUnit{{Type: ProcessUnitNormalization, Normalization: &NormalizationOptions{Mean: []float32{0}, Std: []float32{1}}}},
			OutputProcessUnits: []ProcessUnit{{Type: ProcessUnitScoreThresholding, ScoreThresholding: &ScoreThresholdingOptions{GlobalScoreThreshold: 0.1}}},
			InputTensorGroups:  []TensorGroup{{Name: "in", TensorNames: []string{"image", "audio"}}},
			OutputTensorGroups: []TensorGroup{{Name: "detection", TensorNames: []string{"scores", "boxes"}}},
			CustomMetadata:     []CustomMetadata{{Name: "mine", Data: []byte{1, 2, 3}}},
		}},
	}
}

func TestRoundTrip(t *testing.T) {
	want := full()
	b := want.Marshal()
	if string(b[4:8]) != FileIdentifier {
		t.Fatalf("identifier %q", b[4:8])
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("round trip differs:\n got %s\nwant %s", g, w)
	}
	// JSON uses the schema's names and reads them back.
	j, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"kind":"image"`, `"color_space":"RGB"`, `"type":"TENSOR_AXIS_LABELS"`, `"type":"normalization"`, `"transformation":"inverse logistic"`} {
		if !bytes.Contains(j, []byte(s)) {
			t.Errorf("JSON lacks %s", s)
		}
	}
	var back ModelMetadata
	if err := json.Unmarshal(j, &back); err != nil || !reflect.DeepEqual(&back, want) {
		t.Errorf("JSON round trip: %v", err)
	}
	if n := want.Subgraphs[0].Inputs[0].Normalization(); n == nil || n.Mean[0] != 127.5 {
		t.Errorf("Normalization() = %+v", n)
	}
}

// seededModel is the project's own generated model (cmd/tflrun's
// embedded benchmark model).
func seededModel(t testing.TB) []byte {
	b, err := os.ReadFile(filepath.Join("..", "cmd", "tflrun", "embedded", "seeded_lstm.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPopulate writes metadata and a label file into a model and reads
// them back; the result still loads and runs in the interpreter.
func TestPopulate(t *testing.T) {
	md := &ModelMetadata{Name: "seeded", Subgraphs: []SubgraphMetadata{{
		Inputs:  []TensorMetadata{{Name: "input"}},
		Outputs: []TensorMetadata{{Name: "probabilities", AssociatedFiles: []AssociatedFile{{Name: "labels.txt", Type: FileTensorAxisLabels}}}},
	}}}
	labels := "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	model, err := Populate(seededModel(t), md, []File{{Name: "labels.txt", Data: []byte(labels)}, {Name: "notes.txt", Data: []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Metadata.Name != "seeded" || !reflect.DeepEqual(m.Files.Names(), []string{"labels.txt", "notes.txt"}) {
		t.Fatalf("%+v %v", m.Metadata, m.Files.Names())
	}
	got, err := m.Labels(0, 0)
	if err != nil || len(got) != 10 || got[7] != "seven" {
		t.Errorf("Labels = %q, %v", got, err)
	}
	if l, err := m.Labels(0, 1); l != nil || err != nil {
		t.Errorf("labels of a missing output: %v %v", l, err)
	}
	im, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatalf("the populated model does not load: %v", err)
	}
	it, err := interpreter.New(im, nil)
	if err == nil {
		err = it.AllocateTensors()
	}
	if err == nil {
		err = it.Invoke()
	}
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range im.Metadata {
		if e.Name == BufferName {
			found = true
			if p, err := Parse(e.Data); err != nil || p.Name != "seeded" {
				t.Errorf("interpreter's metadata entry: %v", err)
			}
		}
	}
	if !found {
		t.Error("the interpreter does not list TFLITE_METADATA")
	}
	// Populating again replaces both.
	model2, err := Populate(model, &ModelMetadata{Name: "again"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := FromModel(model2)
	if err != nil || m2.Metadata.Name != "again" || m2.Files != nil {
		t.Errorf("re-populated: %+v %v", m2, err)
	}
	// A model without metadata has none, without error.
	m3, err := FromModel(seededModel(t))
	if err != nil || m3.Metadata != nil || m3.Files != nil {
		t.Errorf("plain model: %+v %v", m3, err)
	}
	// A label file that the metadata names but the archive lacks.
	model4, _ := Populate(seededModel(t), md, nil)
	m4, _ := FromModel(model4)
	if _, err := m4.Labels(0, 0); err == nil || !strings.Contains(err.Error(), "no associated files archive") {
		t.Errorf("missing archive: %v", err)
	}
	model5, _ := Populate(seededModel(t), md, []File{{Name: "other.txt"}})
	m5, _ := FromModel(model5)
	if _, err := m5.Labels(0, 0); err == nil || !strings.Contains(err.Error(), `"labels.txt" is not in the model's archive`) {
		t.Errorf("missing label file: %v", err)
	}
}

func TestParseLabels(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a\nb\n", []string{"a", "b"}},
		{"a\nb", []string{"a", "b"}},
		{"a\n\nc\n", []string{"a", "", "c"}},
		{"a\r\nb\r\n", []string{"a\r", "b\r"}},
		{"", []string{}},
	} {
		if got := ParseLabels([]byte(c.in)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseLabels(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestHostile: malformed buffers are FormatErrors naming the field, and
// offsets shared many times exhaust the work budget instead of the
// memory.
func TestHostile(t *testing.T) {
	good := full().Marshal()
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"short", good[:6], "too short"},
		{"identifier", append(append([]byte{}, good[:4]...), append([]byte("TFL3"), good[8:]...)...), `file identifier is "TFL3", want "M001"`},
		{"root past end", append([]byte{0xf0, 0xff, 0xff, 0x7f}, good[4:]...), "model_metadata (byte 0): offset 2147483632 points past the end"},
		{"truncated", good[:len(good)/2], "model_metadata"},
	} {
		_, err := Parse(c.b)
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a FormatError with %q", c.name, err, c.want)
		}
	}
	// Every truncation and every single-byte change is an error or a
	// result, never a panic.
	for n := 0; n < len(good); n++ {
		_, _ = Parse(good[:n])
	}
	for i := 0; i < len(good); i++ {
		for _, v := range []byte{0, 0xff, 0x80, good[i] ^ 1} {
			b := append([]byte(nil), good...)
			b[i] = v
			_, _ = Parse(b)
		}
	}

	// One tensor with a 4 KiB description, referenced 100000 times: 400 KB
	// of buffer, 400 MB if decoded.
	fb := flatbuffers.NewBuilder(0)
	desc := fb.CreateString(strings.Repeat("x", 4096))
	fb.StartObject(2)
	fb.PrependUOffsetTSlot(1, desc, 0)
	tensor := fb.EndObject()
	fb.StartVector(4, 100000, 4)
	for i := 0; i < 100000; i++ {
		fb.PrependUOffsetT(tensor)
	}
	vec := fb.EndVector(100000)
	fb.StartObject(4)
	fb.PrependUOffsetTSlot(3, vec, 0)
	sg := fb.EndObject()
	fb.StartVector(4, 1, 4)
	fb.PrependUOffsetT(sg)
	sgs := fb.EndVector(1)
	fb.StartObject(4)
	fb.PrependUOffsetTSlot(3, sgs, 0)
	fb.FinishWithFileIdentifier(fb.EndObject(), []byte(FileIdentifier))
	_, err := Parse(fb.FinishedBytes())
	if err == nil || !strings.Contains(err.Error(), "more work than") {
		t.Errorf("shared tables: %v", err)
	}

	// A vtable that claims a field beyond its table's object.
	fb = flatbuffers.NewBuilder(0)
	fb.StartObject(1)
	fb.PrependUint32Slot(0, 7, 0)
	fb.FinishWithFileIdentifier(fb.EndObject(), []byte(FileIdentifier))
	b := fb.FinishedBytes()
	root := int(binary.LittleEndian.Uint32(b))
	vt := root - int(int32(binary.LittleEndian.Uint32(b[root:])))
	binary.LittleEndian.PutUint16(b[vt+4:], 200) // field 0 at object offset 200
	if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), "model_metadata.name") {
		t.Errorf("field outside its table: %v", err)
	}
}

// sharedModel returns the path of a model under ../shared, skipping the
// test (naming the path) when it is absent.
func sharedModel(t *testing.T, rel string) string {
	p := filepath.Join("..", "..", "shared", "models", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is absent: %v", p, err)
	}
	return p
}

// TestSharedModels reads the metadata of the two shared models that
// carry it, as TensorFlow Lite's metadata tools wrote it.
func TestSharedModels(t *testing.T) {
	b, err := os.ReadFile(sharedModel(t, "mobilenet_v1_025_128_uint8/mobilenet_v1_0.25_128_quant.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromModel(b)
	if err != nil {
		t.Fatal(err)
	}
	md := m.Metadata
	if md.Name != "ImageClassifier" || md.MinParserVersion != "1.0.0" || len(md.Subgraphs) != 1 {
		t.Fatalf("%+v", md)
	}
	in := md.Subgraphs[0].Inputs[0]
	if in.Name != "image" || in.Content.Kind != ContentImage || in.Content.Image.ColorSpace != ColorSpaceRGB {
		t.Errorf("input %+v", in)
	}
	if n := in.Normalization(); n == nil || !reflect.DeepEqual(n.Mean, []float32{127.5}) || !reflect.DeepEqual(n.Std, []float32{127.5}) {
		t.Errorf("normalisation %+v", n)
	}
	labels, err := m.Labels(0, 0)
	if err != nil || len(labels) != 1001 || labels[0] != "background" || labels[1] != "tench, Tinca tinca" {
		t.Errorf("labels: %d %v %q", len(labels), err, labels[:min(2, len(labels))])
	}

	b, err = os.ReadFile(sharedModel(t, "text_classifier/regex_one_embedding_with_metadata.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	if m, err = FromModel(b); err != nil {
		t.Fatal(err)
	}
	pu := m.Metadata.Subgraphs[0].Inputs[0].ProcessUnits
	if len(pu) != 1 || pu[0].RegexTokenizer == nil || pu[0].RegexTokenizer.VocabFile[0].Name != "vocab.txt" {
		t.Fatalf("process units %+v", pu)
	}
	vocab, err := m.Files.ReadFile("vocab.txt")
	if err != nil || len(vocab) == 0 {
		t.Errorf("vocab.txt: %d bytes, %v", len(vocab), err)
	}
	m.Files.MaxFileBytes = 10
	if _, err := m.Files.ReadFile("vocab.txt"); err == nil || !strings.Contains(err.Error(), "over the limit of 10") {
		t.Errorf("limit: %v", err)
	}
}

// corpusEnv names the folder of the third-party .tflite corpus
// (MANIFEST.tsv and its subfolders).
const corpusEnv = "TFLRUN_TFLITE_CORPUS"

// TestCorpus reads the metadata of every corpus model: the models
// TensorFlow Lite loads must give metadata or none, never an error, and
// labels must be readable where an output names them.
func TestCorpus(t *testing.T) {
	dir := os.Getenv(corpusEnv)
	if dir == "" {
		t.Skipf("%s is not set (the folder holding the corpus's MANIFEST.tsv)", corpusEnv)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Skipf("%s=%s: %v", corpusEnv, dir, err)
	}
	withMeta := 0
	for _, line := range strings.Split(string(manifest), "\n")[1:] {
		name, _, _ := strings.Cut(line, "\t")
		if !strings.HasSuffix(name, ".tflite") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		m, err := FromModel(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m.Metadata == nil {
			continue
		}
		withMeta++
		for sg := range m.Metadata.Subgraphs {
			for i := range m.Metadata.Subgraphs[sg].Outputs {
				if _, err := m.Labels(sg, i); err != nil {
					t.Errorf("%s: output %d labels: %v", name, i, err)
				}
			}
		}
	}
	t.Logf("%d corpus models carry metadata", withMeta)
}

// FuzzParse: any buffer gives metadata or a FormatError, and what parses
// survives a round trip: Marshal(Parse(Marshal(m))) == Marshal(m) (the
// first Marshal drops what it cannot write: a union type without a value
// or of a type this package does not know).
func FuzzParse(f *testing.F) {
	f.Add(full().Marshal())
	f.Add((&ModelMetadata{Name: "x"}).Marshal())
	f.Add([]byte("\x08\x00\x00\x00M001\x04\x00\x04\x00\x04\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		once := m.Marshal()
		again, err := Parse(once)
		if err != nil {
			t.Fatalf("re-marshalled metadata does not parse: %v", err)
		}
		if !bytes.Equal(again.Marshal(), once) {
			t.Fatal("round trip changed the metadata")
		}
	})
}
