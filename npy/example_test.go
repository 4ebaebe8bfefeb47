package npy_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
)

// Example writes a float32 [2, 3] array as NumPy would save it and reads
// it back.
func Example() {
	data := make([]byte, 0, 24)
	for i := 0; i < 6; i++ {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(i)/2))
	}
	var file bytes.Buffer
	if err := npy.Write(&file, ops.Float32, []int{2, 3}, data); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", file.Bytes()[10:file.Len()-len(data)-1])

	a, err := npy.Read(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Type, a.Shape, a.NumElements(), math.Float32frombits(binary.LittleEndian.Uint32(a.Data[20:])))
	// Output:
	// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }                                                          "
	// float32 [2 3] 6 2.5
}
