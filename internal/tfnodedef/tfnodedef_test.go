package tfnodedef

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
)

func sample() *NodeDef {
	return &NodeDef{
		Name: "while/TensorListSetItem", Op: "TensorListSetItem", Inputs: []string{"a", "b:1"},
		Attr: map[string]AttrValue{
			"element_dtype": {Kind: KindType, Type: DTFloat},
			"resize":        {Kind: KindBool, B: true},
			"num_elements":  {Kind: KindInt, I: -1},
			"alpha":         {Kind: KindFloat, F: 0.5},
			"label":         {Kind: KindString, S: []byte("x")},
			"element_shape": {Kind: KindShape, Shape: Shape{Dims: []int64{-1, 20}}},
			"unknown":       {Kind: KindShape, Shape: Shape{UnknownRank: true}},
			"list":          {Kind: KindList, ListI: []int64{1, -2}, ListType: []DataType{DTInt32}, ListShape: []Shape{{Dims: []int64{}}}},
		},
	}
}

// TestRoundTrip checks Decode against Encode for every attribute kind.
func TestRoundTrip(t *testing.T) {
	want := sample()
	got, err := Decode(Encode(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v\nwant %+v", got, want)
	}
	opts, err := FlexOptions(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err = FlexOp(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Op != want.Op || got.Attr["element_dtype"].Type != DTFloat {
		t.Errorf("FlexOp: %+v", got)
	}
	if s := got.Attr["element_shape"].Shape.String(); s != "[?,20]" {
		t.Errorf("shape prints %q", s)
	}
}

// TestHostile checks that every truncation, and a few bad containers, is
// an error, never a panic.
func TestHostile(t *testing.T) {
	b := Encode(sample())
	for n := range b {
		Decode(b[:n]) // must not panic; a prefix may parse
	}
	for _, c := range []struct {
		opts []byte
		want string
	}{
		{nil, "missing"},
		{[]byte{1, 2, 3}, "custom_options"},
	} {
		if _, err := FlexOp(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FlexOp(%v): %v, want an error containing %q", c.opts, err, c.want)
		}
	}
	// The vector's name and the NodeDef's op must agree.
	var fb flexbuffers.Builder
	v := fb.StartVector()
	fb.String("TensorListStack")
	fb.String(string(Encode(&NodeDef{Op: "TensorListReserve"})))
	fb.EndVector(v, false, false)
	mismatch, err := fb.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FlexOp(mismatch); err == nil || !strings.Contains(err.Error(), `NodeDef's op is "TensorListReserve"`) {
		t.Errorf("mismatched names: %v", err)
	}
	// A negative dimension other than -1 is refused.
	bad := Encode(&NodeDef{Op: "X", Attr: map[string]AttrValue{"s": {Kind: KindShape, Shape: Shape{Dims: []int64{-5}}}}})
	if _, err := Decode(bad); err == nil || !strings.Contains(err.Error(), "size -5") {
		t.Errorf("dim -5: %v", err)
	}
}

// FuzzFlexOp feeds arbitrary custom_options and NodeDef bytes to the
// decoders: an error or a NodeDef, never a panic.
func FuzzFlexOp(f *testing.F) {
	opts, err := FlexOptions(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(opts)
	f.Add(Encode(sample()))
	f.Fuzz(func(t *testing.T, b []byte) {
		FlexOp(b)
		Decode(b)
	})
}
