package flexbuffers_test

import (
	"fmt"

	"github.com/tflrun/tflrun/internal/flexbuffers"
)

// A custom operator's options: build a map as TensorFlow's converter
// would, then read it back as a kernel does.
func Example() {
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("max_detections")
	b.Int(10)
	b.Key("nms_iou_threshold")
	b.Float32(0.5)
	b.Key("use_regular_nms")
	b.Bool(true)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}

	opts, err := flexbuffers.RootMap(buf)
	if err != nil {
		panic(err)
	}
	maxDet, _ := opts.Int("max_detections")
	iou, _ := opts.Float("nms_iou_threshold")
	regular, _ := opts.Bool("use_regular_nms")
	missing, _ := opts.Int("detections_per_class") // absent keys read as 0
	fmt.Println(maxDet, iou, regular, missing)
	// Output: 10 0.5 true 0
}
