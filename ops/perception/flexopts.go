package perception

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/internal/flexbuffers"
)

// Readers of the FlexBuffer maps these operators keep in custom_options.
// They convert as the C++ reader's AsInt32, AsFloat and AsTypedVector do:
// a missing key reads as 0 (or an empty vector), an integer is truncated
// to 32 bits, a double is narrowed to float32.

// fbMap decodes custom_options as a FlexBuffer map.
func fbMap(b []byte) (flexbuffers.Map, error) {
	if len(b) == 0 {
		return flexbuffers.Map{}, errors.New("custom_options are missing (the operator reads its parameters from a FlexBuffer map)")
	}
	m, err := flexbuffers.RootMap(b)
	if err != nil {
		return flexbuffers.Map{}, fmt.Errorf("custom_options: %v", err)
	}
	return m, nil
}

// fbInt32 reads m[key].AsInt32().
func fbInt32(m flexbuffers.Map, key string) (int32, error) {
	v, err := m.Int(key)
	if err != nil {
		return 0, fmt.Errorf("custom_options: %v", err)
	}
	return int32(v), nil
}

// fbFloat32 reads m[key].AsFloat().
func fbFloat32(m flexbuffers.Map, key string) (float32, error) {
	v, err := m.Float(key)
	if err != nil {
		return 0, fmt.Errorf("custom_options: %v", err)
	}
	return float32(v), nil
}

// maxFlexInts bounds the integer vectors read from custom_options (the
// largest real one, a landmark subset, has 80 entries).
const maxFlexInts = 1 << 16

// fbInt32s reads m[key] as a vector of int32 (AsTypedVector then AsInt32
// of each element); a missing key is an empty vector.
func fbInt32s(m flexbuffers.Map, key string) ([]int32, error) {
	v, err := m.Get(key)
	if err != nil {
		return nil, fmt.Errorf("custom_options: %q: %v", key, err)
	}
	if v.IsNull() {
		return nil, nil
	}
	vec, err := v.AsVector()
	if err != nil {
		return nil, fmt.Errorf("custom_options: %q: %v", key, err)
	}
	if vec.Len() > maxFlexInts {
		return nil, fmt.Errorf("custom_options: %q has %d elements, more than %d", key, vec.Len(), maxFlexInts)
	}
	out := make([]int32, vec.Len())
	for i := range out {
		e, err := vec.At(i)
		if err != nil {
			return nil, fmt.Errorf("custom_options: %q[%d]: %v", key, i, err)
		}
		x, err := e.AsInt()
		if err != nil {
			return nil, fmt.Errorf("custom_options: %q[%d]: %v", key, i, err)
		}
		out[i] = int32(x)
	}
	return out, nil
}

// fbHas reports whether m holds key with a non-null value.
func fbHas(m flexbuffers.Map, key string) (bool, error) {
	ok, err := m.Has(key)
	if err != nil {
		return false, fmt.Errorf("custom_options: %v", err)
	}
	return ok, nil
}
