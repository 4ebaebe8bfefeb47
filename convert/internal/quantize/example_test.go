package quantize_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/quantize"
)

// Modes are named as `tflrun convert --quantize` takes them.
func ExampleParseMode() {
	for _, s := range []string{"dynamic", "float16", "int4"} {
		m, err := quantize.ParseMode(s)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(m)
	}
	// Output:
	// dynamic
	// float16
	// error: unknown quantization "int4" (want none, dynamic or float16)
}
