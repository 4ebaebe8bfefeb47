package convert

import (
	"testing"

	"github.com/tflrun/tflrun/convert/internal/hostile"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/proto"
)

// convertGraphDef converts a generated GraphDef towards hostile.Out.
func convertGraphDef(t testing.TB, g *tfpb.GraphDef, opts Options) (*Result, error) {
	t.Helper()
	data, err := proto.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tfmodel.ParseGraphDef("hostile.pb", data, false)
	if err != nil {
		t.Fatal(err)
	}
	opts.OutputArrays = []string{hostile.Out}
	return ConvertModel(m, opts)
}
