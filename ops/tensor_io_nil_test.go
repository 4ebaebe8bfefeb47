package ops

import (
	"strings"
	"testing"
)

// A nil *Tensor, what Interpreter.Input returns for an index out of
// range, makes the copy methods fail with an error, never panic.
func TestCopyNilTensor(t *testing.T) {
	var nt *Tensor
	for name, err := range map[string]error{
		"CopyFrom":      nt.CopyFrom([]float32{1}),
		"CopyTo":        nt.CopyTo(make([]float32, 1)),
		"CopyFromBytes": nt.CopyFromBytes([]byte{0, 0, 0, 0}),
	} {
		if err == nil || !strings.Contains(err.Error(), "no such tensor") {
			t.Errorf("%s on a nil tensor: %v", name, err)
		}
	}
}
