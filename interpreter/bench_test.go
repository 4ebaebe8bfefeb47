package interpreter

import (
	"os"
	"path/filepath"
	"testing"
)

// benchmarkModel times Invoke on a real model from ../../shared/models with
// its inputs left zero; it reports allocations, which must be 0 per op.
func benchmarkModel(b *testing.B, name string) {
	benchmarkPath(b, filepath.Join("..", "..", "shared", "models", name))
}

// benchmarkPath is benchmarkModel for a model file anywhere.
func benchmarkPath(b *testing.B, path string) {
	m, err := Load(path)
	if err != nil {
		b.Skipf("model missing: %v", err)
	}
	defer m.Close()
	it, err := New(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		b.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := it.Invoke(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInvokeMNISTLSTMFloat(b *testing.B) { benchmarkModel(b, "mnist_lstm/trained_lstm.tflite") }
func BenchmarkInvokeMNISTLSTMInt8(b *testing.B) {
	benchmarkModel(b, "mnist_lstm/trained_lstm_int8.tflite")
}
func BenchmarkInvokeDTLN(b *testing.B) { benchmarkModel(b, "dtln/dtln_noise_suppression.tflite") }

// BenchmarkInvokeOverhead times Invoke of a one-operator float
// FULLY_CONNECTED [1,4] → [1,3]: almost all of it is the interpreter's
// fixed cost per Invoke (the in-use flag, the ISA run lock, the panic and
// fault guard). It must allocate nothing.
func BenchmarkInvokeOverhead(b *testing.B) {
	m, err := LoadBytes(pack(fcModel()))
	if err != nil {
		b.Fatal(err)
	}
	it, err := New(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := it.Invoke(); err != nil {
			b.Fatal(err)
		}
	}
}

// The tiny models of issue 14, where the fixed cost per Invoke and per
// operator weighs most (inputs zero; see benchmarkModel).
func BenchmarkInvokeMagicWand(b *testing.B) { benchmarkModel(b, "magic_wand/magic_wand.tflite") }
func BenchmarkInvokeTextClassifier(b *testing.B) {
	benchmarkModel(b, "text_classifier/regex_one_embedding_with_metadata.tflite")
}
func BenchmarkInvokeMicroSpeech(b *testing.B) {
	benchmarkModel(b, "micro_speech/micro_speech_quantized.tflite")
}

// BenchmarkInvokeTinyAWW times the MLPerf Tiny keyword-spotting model
// (int8 DS-CNN) from the corpus named by TFLRUN_TFLITE_CORPUS (default
// /work/corpus/tflite), skipping when it is absent.
func BenchmarkInvokeTinyAWW(b *testing.B) {
	dir := os.Getenv("TFLRUN_TFLITE_CORPUS")
	if dir == "" {
		dir = "/work/corpus/tflite"
	}
	benchmarkPath(b, filepath.Join(dir, "audio", "tiny_aww_ref_model.tflite"))
}

// BenchmarkInvokeUnrolledLSTM times a Keras LSTM the converter unrolled
// into 2,800 small operators (lauratonsi_lstm of the corpus named by
// TFLRUN_TFLITE_CORPUS, default /work/corpus/tflite; skipped when
// absent): the interpreter's cost per operator.
func BenchmarkInvokeUnrolledLSTM(b *testing.B) {
	dir := os.Getenv("TFLRUN_TFLITE_CORPUS")
	if dir == "" {
		dir = "/work/corpus/tflite"
	}
	benchmarkPath(b, filepath.Join(dir, "recurrent", "lauratonsi_lstm.tflite"))
}
