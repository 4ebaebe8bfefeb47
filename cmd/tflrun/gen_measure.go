//go:build ignore

// gen_measure writes the inputs of the memory and time measurements of
// `tflrun run` (the table in the issue-10 closing note) to the directory
// given as its argument:
//
//	fill_2g.tflite     FILL to a float32 [500000000] output (2 GB) from a 500-byte model
//	fill_256m.tflite   the same with a 256 MiB output
//	mean_f32.tflite    an image model: float32 [1, 4, 4, 3] → per-channel mean
//	mean_gray.tflite   the same with a 1-channel input
//	rgba_17000.png     a 17000×17000 RGBA PNG of a few MB
//	gray_17000.png     a 17000×17000 gray PNG
//
// Run it with `go run gen_measure.go DIR`; nothing it writes is committed.
package main

import (
	"log"
	"os"
	"path/filepath"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/testmodels"
	"github.com/tflrun/tflrun/schema"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go run gen_measure.go DIR")
	}
	dir := os.Args[1]
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("fill_2g.tflite", testmodels.Fill(500000000, 1.5))
	write("fill_256m.tflite", testmodels.Fill(64<<20, 1.5))
	write("mean_f32.tflite", testmodels.ImageMean(schema.TensorTypeFLOAT32, 4, 4, 3, 0, 0))
	write("mean_gray.tflite", testmodels.ImageMean(schema.TensorTypeFLOAT32, 4, 4, 1, 0, 0))
	for _, p := range []struct {
		name string
		typ  byte
	}{{"rgba_17000.png", 6}, {"gray_17000.png", 0}} {
		f, err := os.Create(filepath.Join(dir, p.name))
		if err != nil {
			log.Fatal(err)
		}
		if err := testmodels.WriteBlankPNG(f, 17000, 17000, p.typ); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
