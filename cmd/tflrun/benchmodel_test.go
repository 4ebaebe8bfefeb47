package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/benchmodel"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// TestEmbeddedModelRegenerates checks that the committed embedded model is
// exactly what benchmodel.Build writes (go generate ./cmd/tflrun rewrites
// it), and that it is the model the bench note describes: input float32
// [1, 28, 28], the four operators, output probabilities [1, 10].
func TestEmbeddedModelRegenerates(t *testing.T) {
	b, err := benchmodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, embeddedModel) {
		t.Fatalf("embedded/%s (%d bytes) is not what benchmodel.Build writes (%d bytes): run `go generate ./cmd/tflrun` and commit the result",
			benchmodel.Name, len(embeddedModel), len(b))
	}
	var names []string
	mt := schema.GetRootAsModel(embeddedModel, 0).UnPack()
	for _, op := range mt.Subgraphs[0].Operators {
		names = append(names, schema.BuiltinOperatorName(int32(schema.EffectiveBuiltinCodeT(mt.OperatorCodes[op.OpcodeIndex]))))
	}
	if got := strings.Join(names, " "); got != "UNIDIRECTIONAL_SEQUENCE_LSTM RESHAPE FULLY_CONNECTED SOFTMAX" {
		t.Errorf("operators %s", got)
	}
	m, err := interpreter.LoadBytes(embeddedModel)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	in := it.Input(0)
	if in.Type != ops.Float32 || !ops.SameShape(in.Shape, []int{1, benchmodel.Steps, benchmodel.Inputs}) {
		t.Fatalf("input %s %v", in.Type, in.Shape)
	}
	x := in.Float32s()
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	out := it.Output(0)
	if out.Type != ops.Float32 || !ops.SameShape(out.Shape, []int{1, benchmodel.Classes}) {
		t.Fatalf("output %s %v", out.Type, out.Shape)
	}
	sum := 0.0
	for _, p := range out.Float32s() {
		if !(p > 0 && p < 1) {
			t.Fatalf("output %v is not a probability", out.Float32s())
		}
		sum += float64(p)
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("probabilities sum to %v", sum)
	}
}
