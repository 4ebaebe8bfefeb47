package perception

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// Helpers of the kernel tests: tensors and nodes built by hand, custom
// options, and running a node's Prepare and Eval as the interpreter does.

func tF32(shape []int, v []float32) *ops.Tensor {
	t := &ops.Tensor{Type: ops.Float32, Shape: shape}
	t.Data = make([]byte, t.Bytes())
	if v != nil {
		if err := t.CopyFrom(v); err != nil {
			panic(err)
		}
	}
	return t
}

func tU8(shape []int, v []uint8, scale float32, zp int64) *ops.Tensor {
	t := &ops.Tensor{Type: ops.Uint8, Shape: shape,
		Quant: &ops.Quantization{Scale: []float32{scale}, ZeroPoint: []int64{zp}}}
	t.Data = make([]byte, t.Bytes())
	copy(t.Data, v)
	return t
}

func tOut() *ops.Tensor { return &ops.Tensor{Type: ops.Float32} }

func tNode(name string, version int, opts []byte, ins []*ops.Tensor, outs ...*ops.Tensor) *ops.Node {
	return &ops.Node{OpName: name, Op: ops.BuiltinCustom, Version: version,
		Inputs: ins, Outputs: outs, CustomOptions: opts}
}

// tRun prepares and evaluates n with a fresh kernel of its custom code,
// allocating the outputs (filled with a NaN pattern first, so that a
// kernel leaving values unset shows) and the scratch buffers.
func tRun(n *ops.Node) error {
	k := kernels[n.OpName]()
	if err := k.Prepare(n); err != nil {
		return err
	}
	for _, o := range n.Outputs {
		o.Data = make([]byte, o.Bytes())
		if o.Type == ops.Float32 {
			for i := range o.Float32s() {
				o.Float32s()[i] = float32(math.NaN())
			}
		}
	}
	n.Scratch = n.Scratch[:0]
	for _, s := range n.ScratchSizes() {
		n.Scratch = append(n.Scratch, make([]byte, s))
	}
	return k.Eval(n)
}

// tFlex builds a FlexBuffer map; values are int (int64), float32,
// float64, string, bool or []int.
func tFlex(t testing.TB, kv ...any) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	for i := 0; i+1 < len(kv); i += 2 {
		b.Key(kv[i].(string))
		switch v := kv[i+1].(type) {
		case int:
			b.Int(int64(v))
		case float32:
			b.Float32(v)
		case float64:
			b.Float64(v)
		case string:
			b.String(v)
		case bool:
			b.Bool(v)
		case []int:
			s := b.StartVector()
			for _, x := range v {
				b.Int(int64(x))
			}
			b.EndVector(s, true, false)
		default:
			t.Fatalf("flexMap: unsupported %T", v)
		}
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// tWantErr fails unless err is an error containing every fragment.
func tWantErr(t *testing.T, what string, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not mention %q", what, err, f)
		}
	}
}

func tNear(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func tCheckNear(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if !tNear(float64(got[i]), float64(want[i]), tol) {
			if bad < 5 {
				t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values differ", what, bad)
	}
}
