package tfnodedef

import (
	"math"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tflrun/tflrun/internal/flexbuffers"
)

// Encode serializes nd in the wire format Decode reads (attributes in
// name order, lists packed), for tests and tools that build Flex
// operators.
func Encode(nd *NodeDef) []byte {
	var b []byte
	b = appendString(b, 1, nd.Name)
	b = appendString(b, 2, nd.Op)
	for _, in := range nd.Inputs {
		b = appendString(b, 3, in)
	}
	keys := make([]string, 0, len(nd.Attr))
	for k := range nd.Attr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var e []byte
		e = appendString(e, 1, k)
		e = protowire.AppendTag(e, 2, protowire.BytesType)
		e = protowire.AppendBytes(e, encodeAttr(nd.Attr[k]))
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendBytes(b, e)
	}
	return b
}

// FlexOptions returns the custom_options of a Flex operator running nd:
// the FlexBuffer vector [nd.Op, Encode(nd)].
func FlexOptions(nd *NodeDef) ([]byte, error) {
	var fb flexbuffers.Builder
	v := fb.StartVector()
	fb.String(nd.Op)
	fb.String(string(Encode(nd)))
	fb.EndVector(v, false, false)
	return fb.Finish()
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func encodeAttr(a AttrValue) []byte {
	var b []byte
	switch a.Kind {
	case KindString:
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, a.S)
	case KindInt:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.I))
	case KindFloat:
		b = protowire.AppendTag(b, 4, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case KindBool:
		b = protowire.AppendTag(b, 5, protowire.VarintType)
		b = protowire.AppendVarint(b, protowire.EncodeBool(a.B))
	case KindType:
		b = protowire.AppendTag(b, 6, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.Type))
	case KindShape:
		b = protowire.AppendTag(b, 7, protowire.BytesType)
		b = protowire.AppendBytes(b, encodeShape(a.Shape))
	case KindList:
		var l []byte
		if len(a.ListI) > 0 {
			var p []byte
			for _, v := range a.ListI {
				p = protowire.AppendVarint(p, uint64(v))
			}
			l = protowire.AppendTag(l, 3, protowire.BytesType)
			l = protowire.AppendBytes(l, p)
		}
		if len(a.ListType) > 0 {
			var p []byte
			for _, v := range a.ListType {
				p = protowire.AppendVarint(p, uint64(v))
			}
			l = protowire.AppendTag(l, 6, protowire.BytesType)
			l = protowire.AppendBytes(l, p)
		}
		for _, s := range a.ListShape {
			l = protowire.AppendTag(l, 7, protowire.BytesType)
			l = protowire.AppendBytes(l, encodeShape(s))
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, l)
	}
	return b
}

func encodeShape(s Shape) []byte {
	var b []byte
	for _, d := range s.Dims {
		var dim []byte
		dim = protowire.AppendTag(dim, 1, protowire.VarintType)
		dim = protowire.AppendVarint(dim, uint64(d))
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, dim)
	}
	if s.UnknownRank {
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	return b
}
