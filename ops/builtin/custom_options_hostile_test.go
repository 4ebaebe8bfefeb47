package builtin

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Hostile custom_options for the custom operators (TFLite_Detection_PostProcess,
// AudioSpectrogram, Mfcc, aeq.hadamard_rotation, NumericVerify, and the Signal library's of package ops/signal,
// see custom_options_signal_test.go): FlexBuffer maps whose length fields, key
// vectors or root lie about the bytes that follow, and every single-byte
// corruption of valid options. Prepare must fail naming custom_options, or
// succeed with options it can honour; it never panics, and a kernel that
// prepares evaluates without panicking.

// customNodes returns, per custom operator, a function making a fresh
// valid node for the given options, and those valid options.
func customNodes(t *testing.T) []struct {
	name string
	opts []byte
	node func(opts []byte) *ops.Node
	k    func() ops.Kernel
} {
	// Small inputs: a mutated window or table size stays cheap (no frame
	// to compute), and mutated output sizes are checked before use.
	wave := tensorOf(ops.Float32, []int{16, 1}, f32Seq(16))
	spec := tensorOf(ops.Float32, []int{1, 2, 33}, make([]float32, 66))
	return append([]struct {
		name string
		opts []byte
		node func(opts []byte) *ops.Node
		k    func() ops.Kernel
	}{
		{DetectionPostProcessName, detectionOpts(t, 3, 1, nil, nil, nil), detectionNode, NewDetectionPostProcess},
		{AudioSpectrogramName, spectrogramOpts(t, 8, 2, true), func(o []byte) *ops.Node { return spectrogramNode(wave, o) }, NewAudioSpectrogram},
		{MfccName, mfccOpts(t, 4000, 20, 40, 13), func(o []byte) *ops.Node { return mfccNode(spec, c32(16000), o) }, NewMfcc},
		{HadamardRotationName, hadamardOptions(t, 4, ones(4)), func(o []byte) *ops.Node {
			return hadamardNode(o, tensorOf(ops.Float32, []int{2, 8}, f32Seq(16)), outTensor(ops.Float32))
		}, NewHadamardRotation},
		{NumericVerifyName, numericVerifyOptions(t, 0.5, true), func(o []byte) *ops.Node {
			return nvNode(o, q(tensorOf(ops.Int8, []int{2, 3}, []int8{1, 2, 3, 4, 5, 6}), 0.5, 0), tensorOf(ops.Float32, []int{2, 3}, f32Seq(6)))
		}, NewNumericVerify},
	}, signalCustomNodes(t)...)
}

// rootMap locates the root map of FlexBuffer b: its position, the width of
// its elements, and the positions of its count, keys width and keys
// offset fields (each of that width, just before the map).
func rootMap(t *testing.T, b []byte) (pos, width int) {
	t.Helper()
	rw := int(b[len(b)-1])
	packed := b[len(b)-2]
	at := len(b) - 2 - rw
	var off int
	for i := rw - 1; i >= 0; i-- {
		off = off<<8 | int(b[at+i])
	}
	if packed>>2 != 9 { // TypeMap
		t.Fatalf("root type %d, want a map", packed>>2)
	}
	return at - off, 1 << (packed & 3)
}

// putField writes v (little-endian, width bytes) at b[p:].
func putField(b []byte, p, width int, v uint64) {
	for i := 0; i < width; i++ {
		b[p+i] = byte(v >> (8 * i))
	}
}

func TestCustomOptionsHostile(t *testing.T) {
	for _, c := range customNodes(t) {
		t.Run(c.name, func(t *testing.T) {
			if err := prepare(c.k(), c.node(c.opts)); err != nil {
				t.Fatalf("valid options refused: %v", err)
			}
			pos, w := rootMap(t, c.opts)
			all := ^uint64(0) >> (64 - 8*w)
			lies := []struct {
				name   string
				mutate func(b []byte) []byte
				want   string
			}{
				{"count huge", func(b []byte) []byte { putField(b, pos-w, w, all); return b }, "custom_options"},
				{"count one past", func(b []byte) []byte {
					n := uint64(b[pos-w]) // the maps here hold < 256 entries
					putField(b, pos-w, w, n+1)
					return b
				}, "custom_options"},
				{"keys before the buffer", func(b []byte) []byte { putField(b, pos-3*w, w, all); return b }, "custom_options"},
				{"keys width 3", func(b []byte) []byte { putField(b, pos-2*w, w, 3); return b }, "custom_options"},
				{"root offset huge", func(b []byte) []byte { b[len(b)-3] = 0xff; return b }, "custom_options"},
				{"root width 3", func(b []byte) []byte { b[len(b)-1] = 3; return b }, "custom_options"},
				{"root width past the buffer", func(b []byte) []byte { b[len(b)-1] = 8; return b[len(b)-6:] }, "custom_options"},
				{"front cut off", func(b []byte) []byte { return b[len(b)/2:] }, "custom_options"},
				{"one byte", func(b []byte) []byte { return b[len(b)-1:] }, "custom_options"},
				{"root is an int", func(b []byte) []byte { b[len(b)-2] = 1 << 2; return b }, "custom_options"},
			}
			for _, l := range lies {
				t.Run(l.name, func(t *testing.T) {
					opts := l.mutate(append([]byte(nil), c.opts...))
					err := c.k().Prepare(c.node(opts))
					if err == nil || !strings.Contains(err.Error(), l.want) {
						t.Fatalf("Prepare: %v, want an error containing %q", err, l.want)
					}
				})
			}
		})
	}
}

func TestCustomOptionsCorruptedBytes(t *testing.T) {
	values := []byte{0, 1, 2, 3, 0x20, 0x7f, 0x80, 0xfe, 0xff}
	if testing.Short() {
		values = []byte{0, 3, 0xff}
	}
	for _, c := range customNodes(t) {
		t.Run(c.name, func(t *testing.T) {
			mut := make([]byte, len(c.opts))
			for i := range c.opts {
				for _, v := range values {
					copy(mut, c.opts)
					mut[i] = v
					n, k := c.node(mut), c.k()
					if err := k.Prepare(n); err != nil {
						continue
					}
					// Options that parse may still ask for large outputs;
					// evaluate only what a test can afford to allocate.
					size := 0
					for _, o := range n.Outputs {
						size += o.Bytes()
					}
					if size > 1<<20 {
						continue
					}
					for _, o := range n.Outputs {
						o.Data = alignedBytes(o.Bytes())
					}
					_ = k.Eval(n) // an error is fine, a panic is not
				}
			}
		})
	}
}

// TestDetectionHugeMaxDetections: max_detections sizes the outputs (which
// the interpreter bounds by its arena limit), but not the kernel's own
// working memory, which depends only on the boxes and classes.
func TestDetectionHugeMaxDetections(t *testing.T) {
	yes, per := true, 1<<30
	for _, regular := range []*bool{nil, &yes} {
		n := detectionNode(detectionOpts(t, 1<<28, 1, regular, &per, nil))
		k := NewDetectionPostProcess().(*DetectionPostProcess)
		err := k.Prepare(n)
		if strconv.IntSize == 32 {
			// [1, 2^28, 4] float32 outputs are 2^32 bytes: on a 32-bit
			// target their size itself overflows, a clean refusal.
			if err == nil || !strings.Contains(err.Error(), "overflows") {
				t.Errorf("32-bit, 2^28 detections: %v, want an overflow error", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		wantShape(t, n.Outputs[0].Shape, []int{1, 1 << 28, 4})
		if c := cap(k.info); c > 6*2+6 {
			t.Errorf("regular %v: merge buffer of %d entries for 6 boxes of 2 classes", regular != nil, c)
		}
	}
	// The same options over the test's six boxes, with outputs the size
	// max_detections 12 gives: every (box, class) pair fits.
	n := detectionNode(detectionOpts(t, 12, 1, &yes, &per, nil))
	run(t, NewDetectionPostProcess(), n)
	if got := n.Outputs[3].Float32s()[0]; got < 1 || got > 12 {
		t.Errorf("num_detections %v", got)
	}
}
