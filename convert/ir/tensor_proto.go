package ir

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// FromProto decodes a TensorFlow TensorProto: raw tensor_content, or the
// typed repeated field of its dtype, where fewer values than the shape
// holds means the last value repeats (no values means zeros). Errors name
// the problem: unknown or unsupported type, non-static shape, a content
// length that does not match the shape, too many values, or a tensor above
// DefaultLimits.MaxTensorBytes. DecodeTensor decodes within a conversion's
// Budget.
func FromProto(p *tfpb.TensorProto) (*Tensor, error) {
	return DecodeTensor(p, nil, nil)
}

// DecodeTensor is FromProto within budget b: the tensor must fit in
// b's MaxTensorBytes, and its bytes are reserved against
// MaxConstantBytes before they are allocated and counted once the
// tensor is made (Budget.Reserve, Budget.Add); what names the tensor in
// a budget error. A nil b applies DefaultLimits to the tensor alone.
func DecodeTensor(p *tfpb.TensorProto, b *Budget, what func() string) (*Tensor, error) {
	t, err := decodeTensor(p, b, what)
	if err != nil {
		return nil, err
	}
	if err := b.Add(t, func() string { return describeTensor(what, t.DType, t.Shape) }); err != nil {
		return nil, err
	}
	return t, nil
}

// describeTensor names a tensor being made for a budget error: what it
// is (when what is set) and its type and shape.
func describeTensor(what func() string, dt DType, shape Shape) string {
	s := fmt.Sprintf("constant %s%s", dt, shape)
	if what != nil {
		s = what() + ": " + s
	}
	return s
}

func decodeTensor(p *tfpb.TensorProto, b *Budget, what func() string) (*Tensor, error) {
	maxBytes := b.limits().MaxTensorBytes
	if p == nil {
		return nil, &FormatError{What: "tensor", Detail: "missing"}
	}
	dt, err := FromTF(p.Dtype)
	if err != nil {
		return nil, &FormatError{What: "tensor", Detail: err.Error()}
	}
	shape, err := ShapeFromTF(p.TensorShape)
	if err != nil {
		return nil, err
	}
	if shape == nil {
		shape = Shape{} // TensorFlow writes scalars with an absent shape
	}
	n, ok := shape.NumElements()
	if !ok {
		return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("shape %s is not static or too large", shape)}
	}
	if dt == String {
		return stringsFromProto(p, shape, n, maxBytes, b)
	}
	sz := dt.Size()
	if sz == 0 {
		return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("constant of type %s is not supported", dt)}
	}
	if int64(n) > maxBytes/int64(sz) {
		return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("%s%s needs more than the %d-byte limit on one tensor (%s)", dt, shape, maxBytes, b.Name("MaxTensorBytes"))}
	}
	if err := b.Reserve(int64(n*sz), func() string { return describeTensor(what, dt, shape) }); err != nil {
		return nil, err
	}
	if len(p.TensorContent) > 0 {
		if len(p.TensorContent) != n*sz {
			return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("%s%s needs %d content bytes, has %d", dt, shape, n*sz, len(p.TensorContent))}
		}
		return &Tensor{DType: dt, Shape: shape, Data: append([]byte(nil), p.TensorContent...)}, nil
	}
	data := make([]byte, n*sz)
	var count int
	var put func(i, j int) // element i gets value j of the typed field
	switch dt {
	case Float32:
		count = len(p.FloatVal)
		put = func(i, j int) { binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(p.FloatVal[j])) }
	case Float64:
		count = len(p.DoubleVal)
		put = func(i, j int) { binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(p.DoubleVal[j])) }
	case Int32, Int16, Int8, Uint8, Uint16:
		count = len(p.IntVal)
		put = func(i, j int) { putInt(data[sz*i:], sz, uint64(p.IntVal[j])) }
	case Int64:
		count = len(p.Int64Val)
		put = func(i, j int) { binary.LittleEndian.PutUint64(data[8*i:], uint64(p.Int64Val[j])) }
	case Uint32:
		count = len(p.Uint32Val)
		put = func(i, j int) { binary.LittleEndian.PutUint32(data[4*i:], p.Uint32Val[j]) }
	case Uint64:
		count = len(p.Uint64Val)
		put = func(i, j int) { binary.LittleEndian.PutUint64(data[8*i:], p.Uint64Val[j]) }
	case Bool:
		count = len(p.BoolVal)
		put = func(i, j int) {
			if p.BoolVal[j] {
				data[i] = 1
			}
		}
	case Float16, BFloat16:
		count = len(p.HalfVal)
		put = func(i, j int) { binary.LittleEndian.PutUint16(data[2*i:], uint16(p.HalfVal[j])) }
	case Complex64:
		if len(p.ScomplexVal)%2 != 0 {
			return nil, &FormatError{What: "tensor", Detail: "complex64 values come in pairs, got an odd count"}
		}
		count = len(p.ScomplexVal) / 2
		put = func(i, j int) {
			binary.LittleEndian.PutUint32(data[8*i:], math.Float32bits(p.ScomplexVal[2*j]))
			binary.LittleEndian.PutUint32(data[8*i+4:], math.Float32bits(p.ScomplexVal[2*j+1]))
		}
	default:
		return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("constant of type %s is not supported", dt)}
	}
	if count > n {
		return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("%s%s holds %d elements, proto has %d values", dt, shape, n, count)}
	}
	if count > 0 {
		for i := 0; i < count; i++ {
			put(i, i)
		}
		// The last value repeats: copy it in doubling runs rather than
		// element by element (a one-value splat may fill a gigabyte).
		if done := count * sz; done < len(data) {
			last := data[done-sz : done]
			for filled := done; filled < len(data); {
				k := copy(data[filled:], last)
				filled += k
				if len(last) < 1<<20 {
					last = data[done-sz : filled]
				}
			}
		}
	}
	return &Tensor{DType: dt, Shape: shape, Data: data}, nil
}

func stringsFromProto(p *tfpb.TensorProto, shape Shape, n int, maxBytes int64, b *Budget) (*Tensor, error) {
	if len(p.StringVal) > n {
		return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("string%s holds %d elements, proto has %d values", shape, n, len(p.StringVal))}
	}
	total := 0
	for _, s := range p.StringVal {
		total += len(s)
	}
	if int64(n) > maxBytes/16 || int64(total) > maxBytes {
		return nil, &FormatError{What: "tensor", Detail: fmt.Sprintf("string%s is above the %d-byte limit on one tensor (%s)", shape, maxBytes, b.Name("MaxTensorBytes"))}
	}
	out := make([][]byte, n)
	for i := range out {
		switch {
		case len(p.StringVal) == 0:
			out[i] = nil
		case i < len(p.StringVal):
			out[i] = p.StringVal[i]
		default:
			out[i] = p.StringVal[len(p.StringVal)-1]
		}
	}
	return &Tensor{DType: String, Shape: shape, Strings: out}, nil
}

// Proto encodes t as a TensorProto with tensor_content (strings in
// string_val).
func (t *Tensor) Proto() *tfpb.TensorProto {
	p := &tfpb.TensorProto{Dtype: t.DType.TF(), TensorShape: t.Shape.TF()}
	if t.DType == String {
		p.StringVal = t.Strings
	} else {
		p.TensorContent = t.Data
	}
	return p
}
