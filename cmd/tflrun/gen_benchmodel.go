//go:build ignore

// gen_benchmodel writes embedded/seeded_lstm.tflite, the model `tflrun
// bench` embeds, from package benchmodel. Run it with `go generate
// ./cmd/tflrun`; TestEmbeddedModelRegenerates fails when the committed
// file differs from what it writes.
package main

import (
	"log"
	"os"
	"path/filepath"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/benchmodel"
)

func main() {
	b, err := benchmodel.Build()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("embedded", benchmodel.Name), b, 0o644); err != nil {
		log.Fatal(err)
	}
}
