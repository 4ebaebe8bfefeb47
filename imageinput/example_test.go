package imageinput_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/tflrun/tflrun/imageinput"
	"github.com/tflrun/tflrun/ops"
)

// Example feeds a 4×2 PNG to a float32 [1, 2, 2, 3] input normalised to
// [-1, 1] (mean 127.5, std 127.5, as MobileNet's metadata says), resized
// bilinearly.
func Example() {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	for x := 0; x < 4; x++ {
		for y := 0; y < 2; y++ {
			img.Set(x, y, color.NRGBA{R: uint8(85 * x), G: 0, B: 255, A: 255})
		}
	}
	var file bytes.Buffer
	if err := png.Encode(&file, img); err != nil {
		panic(err)
	}

	decoded, err := imageinput.DecodeLimit(file.Bytes(), 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := imageinput.Convert(decoded, ops.Float32, []int{1, 2, 2, 3}, nil, imageinput.Options{
		Resize:        imageinput.ResizeBilinear,
		Normalization: &imageinput.Normalization{Mean: []float32{127.5}, Std: []float32{127.5}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 6; i++ {
		fmt.Printf("%.4f", math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
		if i < 5 {
			fmt.Print(" ")
		}
	}
	fmt.Println()

	// A colour image for a gray input is refused unless asked for.
	_, err = imageinput.Convert(decoded, ops.Float32, []int{1, 2, 4, 1}, nil, imageinput.Options{})
	fmt.Println(err)
	// Output:
	// -0.6667 -1.0000 1.0000 0.6667 -1.0000 1.0000
	// the image has 3 channel(s) (colour), the input [1 2 4 1] takes 1: convert the image first, or ask for the conversion (colour to gray by luma)
}
