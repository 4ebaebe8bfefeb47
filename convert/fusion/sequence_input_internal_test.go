package fusion

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// TestCheckSequenceInputRefusals reaches every refusal of
// checkSequenceInput, the guard the Keras LSTM and GRU rules put before
// a fused layer: since a batch given as -1 stays dynamic and the rules
// fuse a dynamic batch where the layer allows it, no SavedModel graph in
// the tests hits the dynamic-dimension reasons any more, so each is
// checked here on a built call, batch-major and time-major.
func TestCheckSequenceInputRefusals(t *testing.T) {
	cases := []struct {
		dtype     ir.DType
		shape     ir.Shape
		timeMajor bool
		want      string // "" = accepted
	}{
		{ir.Float32, ir.Shape{2, 5, 3}, false, ""},
		{ir.Int32, ir.Shape{2, 5, 3}, false, "the input is"},
		{ir.Float32, ir.Shape{5, 3}, false, "want rank 3"},
		{ir.Float32, nil, false, "want rank 3"},
		{ir.Float32, ir.Shape{-1, 5, 3}, false, "the batch size is not static"},
		{ir.Float32, ir.Shape{2, -1, 3}, false, "the time dimension is not static"},
		{ir.Float32, ir.Shape{2, 5, -1}, false, "the input shape"},
		{ir.Float32, ir.Shape{5, -1, 3}, true, "the batch size is not static"},
		{ir.Float32, ir.Shape{-1, 2, 3}, true, "the time dimension is not static"},
	}
	for _, c := range cases {
		g := ir.NewFunction("layer", nil)
		if c.timeMajor {
			g.Attrs["time_major"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: true}}
		}
		s := &Site{Call: &ir.Node{Name: "call", Inputs: []*ir.Value{{Name: "x", DType: c.dtype, Shape: c.shape}}}}
		err := checkSequenceInput(s, g, "UNIDIRECTIONAL_SEQUENCE_LSTM")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v %v time_major=%v: refused: %v", c.dtype, c.shape, c.timeMajor, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v %v time_major=%v: got %v, want a refusal containing %q", c.dtype, c.shape, c.timeMajor, err, c.want)
		}
		if _, ok := err.(*refusal); err != nil && !ok {
			t.Errorf("%v %v: %T is not a refusal (the report would not carry it)", c.dtype, c.shape, err)
		}
	}
}
