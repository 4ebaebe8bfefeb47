package wav_test

import (
	"bytes"
	"fmt"

	"github.com/tflrun/tflrun/wav"
)

// Example decodes a stereo 16-bit WAV file of two frames into the float32
// and int16 samples an audio model takes.
func Example() {
	var file bytes.Buffer
	_ = wav.Encode(&file, &wav.Audio{
		SampleRate: 16000, Channels: 2, BitsPerSample: 16, Format: wav.PCM, Frames: 2,
		Data: []byte{0x00, 0x40, 0x00, 0xc0, 0xff, 0x7f, 0x00, 0x00}, // 16384, -16384, 32767, 0
	})

	a, err := wav.Decode(&file, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d Hz, %d channels, %d-bit %s, %d frames\n", a.SampleRate, a.Channels, a.BitsPerSample, a.Format, a.Frames)
	fmt.Println(a.Float32())
	fmt.Println(a.Int16())
	// Output:
	// 16000 Hz, 2 channels, 16-bit PCM, 2 frames
	// [0.5 -0.5 0.9999695 0]
	// [16384 -16384 32767 0]
}
