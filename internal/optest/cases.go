package optest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
)

// Case is one recorded run: a model, its inputs and TensorFlow Lite's
// outputs for them.
type Case struct {
	// Dir is the case's folder.
	Dir string
	// Model is the model's path (resolved against Dir).
	Model string
	// Exact demands bit-identical outputs (integer outputs always are).
	Exact bool
	// Atol and Rtol bound float differences: |got-want| ≤ Atol +
	// Rtol·max|want|. Zero means the defaults, 1e-5 each.
	Atol, Rtol float64
	// Inputs and Outputs are the arrays, in subgraph order.
	Inputs, Outputs []*npy.Array
}

type caseJSON struct {
	Model string  `json:"model"`
	Exact bool    `json:"exact,omitempty"`
	Atol  float64 `json:"atol,omitempty"`
	Rtol  float64 `json:"rtol,omitempty"`
}

// LoadCase reads the case in dir.
func LoadCase(dir string) (*Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil, err
	}
	var cj caseJSON
	if err := json.Unmarshal(b, &cj); err != nil {
		return nil, fmt.Errorf("%s/case.json: %v", dir, err)
	}
	if cj.Model == "" {
		return nil, fmt.Errorf("%s/case.json: no model", dir)
	}
	c := &Case{Dir: dir, Model: filepath.Join(dir, cj.Model), Exact: cj.Exact, Atol: cj.Atol, Rtol: cj.Rtol}
	for _, kind := range []string{"input_", "output_"} {
		for i := 0; ; i++ {
			p := filepath.Join(dir, fmt.Sprintf("%s%d.npy", kind, i))
			a, err := npy.ReadFile(p)
			if os.IsNotExist(err) {
				break
			}
			if err != nil {
				return nil, err
			}
			if kind == "input_" {
				c.Inputs = append(c.Inputs, a)
			} else {
				c.Outputs = append(c.Outputs, a)
			}
		}
	}
	if len(c.Outputs) == 0 {
		return nil, fmt.Errorf("%s: no output_0.npy", dir)
	}
	return c, nil
}

// WriteCase writes c's case.json (with model relative to c.Dir) and its
// arrays into c.Dir, creating it.
func WriteCase(c *Case) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(c.Dir, c.Model)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(caseJSON{Model: filepath.ToSlash(rel), Exact: c.Exact, Atol: c.Atol, Rtol: c.Rtol}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "case.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	for kind, arrs := range map[string][]*npy.Array{"input_": c.Inputs, "output_": c.Outputs} {
		for i, a := range arrs {
			if err := npy.WriteFile(filepath.Join(c.Dir, fmt.Sprintf("%s%d.npy", kind, i)), a.Type, a.Shape, a.Data); err != nil {
				return err
			}
		}
	}
	return nil
}

// FindCases returns every case folder (one holding case.json) below root,
// sorted.
func FindCases(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "case.json" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// Run feeds c's inputs to a fresh interpreter of c's model (resizing an
// input whose shape differs from the declared one) and returns the
// outputs as arrays.
func Run(c *Case, opts *interpreter.Options) ([]*npy.Array, error) {
	m, err := interpreter.Load(c.Model)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	it, err := interpreter.New(m, opts)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	if it.InputCount() != len(c.Inputs) {
		return nil, fmt.Errorf("model has %d inputs, case has %d", it.InputCount(), len(c.Inputs))
	}
	for i, a := range c.Inputs {
		if !equalShape(it.Input(i).Shape, a.Shape) {
			if err := it.ResizeInputTensor(i, a.Shape); err != nil {
				return nil, fmt.Errorf("input %d: %v", i, err)
			}
		}
	}
	if err := it.AllocateTensors(); err != nil {
		return nil, err
	}
	for i, a := range c.Inputs {
		in := it.Input(i)
		if in.Type != a.Type {
			return nil, fmt.Errorf("input %d: model wants %v, case has %v", i, in.Type, a.Type)
		}
		if err := in.CopyFromBytes(a.Data); err != nil {
			return nil, fmt.Errorf("input %d: %v", i, err)
		}
	}
	if err := it.Invoke(); err != nil {
		return nil, err
	}
	out := make([]*npy.Array, it.OutputCount())
	for j := range out {
		t := it.Output(j)
		out[j] = &npy.Array{Type: t.Type, Shape: append([]int(nil), t.Shape...), Data: append([]byte(nil), t.Data...)}
	}
	return out, nil
}

// Compare checks got against want under c's tolerance and returns a
// description of the first difference, or "" when they agree.
func Compare(c *Case, j int, got, want *npy.Array) string {
	if got.Type != want.Type {
		return fmt.Sprintf("output %d: type %v, want %v", j, got.Type, want.Type)
	}
	if !equalShape(got.Shape, want.Shape) {
		return fmt.Sprintf("output %d: shape %v, want %v", j, got.Shape, want.Shape)
	}
	if len(got.Data) != len(want.Data) {
		return fmt.Sprintf("output %d: %d bytes, want %d", j, len(got.Data), len(want.Data))
	}
	switch got.Type {
	case ops.Float32, ops.Float64, ops.Float16, ops.Complex64, ops.Complex128:
		if c.Exact {
			break
		}
		g, w := floats(got), floats(want)
		atol, rtol := c.Atol, c.Rtol
		if atol == 0 {
			atol = 1e-5
		}
		if rtol == 0 {
			rtol = 1e-5
		}
		maxw := 0.0
		for _, v := range w {
			if a := math.Abs(v); a > maxw && !math.IsInf(a, 0) {
				maxw = a
			}
		}
		tol := atol + rtol*maxw
		for i := range g {
			if math.IsNaN(w[i]) && math.IsNaN(g[i]) || g[i] == w[i] {
				continue
			}
			if d := math.Abs(g[i] - w[i]); !(d <= tol) {
				return fmt.Sprintf("output %d: element %d is %v, want %v (diff %.3g > %.3g)", j, i, g[i], w[i], d, tol)
			}
		}
		return ""
	}
	for i := range got.Data {
		if got.Data[i] != want.Data[i] {
			sz := got.Type.Size()
			if sz <= 0 {
				sz = 1
			}
			return fmt.Sprintf("output %d: element %d differs (byte %d: %d, want %d)", j, i/sz, i, got.Data[i], want.Data[i])
		}
	}
	return ""
}

// Check runs every case below root through the interpreter (opts may be
// nil) and reports each difference as a test error naming the case. The
// cases are the repository's own testdata, so a missing root is a
// failure, not a skip.
func Check(t *testing.T, root string, opts *interpreter.Options) {
	t.Helper()
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("golden cases: %v", err)
	}
	dirs, err := FindCases(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("no cases below %s", root)
	}
	for _, d := range dirs {
		name := strings.TrimPrefix(strings.TrimPrefix(d, root), string(filepath.Separator))
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			c, err := LoadCase(d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(c, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.Outputs) {
				t.Fatalf("%d outputs, case has %d", len(got), len(c.Outputs))
			}
			for j := range got {
				if msg := Compare(c, j, got[j], c.Outputs[j]); msg != "" {
					t.Error(msg)
				}
			}
			checkThreads(t, c, opts, got)
		})
	}
}

// checkThreads runs c again on 2, 3 and 4 threads, every operator split
// whatever its size (parallel.SetMinWork(0)), and reports any output
// that is not bit-identical to one's, the outputs of opts (which must
// not ask for threads itself: then it does nothing).
func checkThreads(t *testing.T, c *Case, opts *interpreter.Options, one []*npy.Array) {
	t.Helper()
	if opts != nil && opts.NumThreads != 0 && opts.NumThreads != 1 {
		return
	}
	defer parallel.SetMinWork(parallel.SetMinWork(0))
	for threads := 2; threads <= 4; threads++ {
		o := interpreter.Options{NumThreads: threads}
		if opts != nil {
			o = *opts
			o.NumThreads = threads
		}
		got, err := Run(c, &o)
		if err != nil {
			t.Fatalf("%d threads: %v", threads, err)
		}
		for j := range got {
			if !bytes.Equal(got[j].Data, one[j].Data) {
				t.Errorf("output %d on %d threads differs from one thread's", j, threads)
			}
		}
	}
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// floats widens an array of a float type to float64; a complex array
// gives its real and imaginary parts in turn (so both are compared, and
// the tolerance scales with the largest of either).
func floats(a *npy.Array) []float64 {
	n := a.NumElements()
	switch a.Type {
	case ops.Complex64:
		a = &npy.Array{Type: ops.Float32, Shape: []int{2 * n}, Data: a.Data}
		n *= 2
	case ops.Complex128:
		a = &npy.Array{Type: ops.Float64, Shape: []int{2 * n}, Data: a.Data}
		n *= 2
	}
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		switch a.Type {
		case ops.Float32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:])))
		case ops.Float64:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*i:]))
		case ops.Float16:
			out[i] = float64(halfToFloat(binary.LittleEndian.Uint16(a.Data[2*i:])))
		}
	}
	return out
}

// halfToFloat converts IEEE 754 binary16 bits to float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// Subnormal: normalise.
		e := uint32(127 - 15 + 1)
		for frac&0x400 == 0 {
			frac <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}
