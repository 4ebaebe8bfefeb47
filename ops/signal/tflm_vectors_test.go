package signal_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// TensorFlow Lite Micro's own kernel tests (signal/micro/kernels/*_test.cc,
// their options in *_flexbuffers_generated_data.cc, the FFT data in
// signal/testdata/fft_test_data.cc), read from its tree (tflmEnv) and
// replayed through tflrun's kernels. This file holds only the code that
// reads them: a reader of the C arrays those files declare.

// cTest is one TEST(…) block: its arrays and scalars by name, and the
// names of the generated options and shared data it refers to.
type cTest struct {
	name   string
	arrays map[string][]string // number tokens; shapes start with the rank
	flex   string              // g_gen_data_NAME it passes, "" for none
	refs   []string            // tflite::kXxx shared arrays, in order
	body   string
}

var (
	cArrayRE  = regexp.MustCompile(`(?:const\s+)?(?:unsigned\s+char|u?int(?:8|16|32|64)_t|int|float)\s+(\w+)\[[^\]]*\]\s*=\s*\{([^}]*)\}`)
	cScalarRE = regexp.MustCompile(`(?:(?:constexpr|const)\s+)?(?:u?int(?:8|16|32|64)_t|int)\s+(\w+)\s*=\s*(-?\w+)\s*;`)
	cFlexRE   = regexp.MustCompile(`g_gen_data_(\w+?)\s*,`)
	cRefRE    = regexp.MustCompile(`tflite::(k\w+)`)
)

// preprocess evaluates the #if blocks as on the reference machine (not
// an Xtensa or HiFi build): a condition that tests a macro is false, its
// negation (#ifndef, #if !defined) true; comments are dropped.
func preprocess(src string) string {
	var out []string
	type level struct{ keep, parent bool }
	var stack []level
	keep := true
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "#if"):
			stack = append(stack, level{keep, keep})
			negated := strings.HasPrefix(t, "#ifndef") || strings.HasPrefix(strings.Join(strings.Fields(t), " "), "#if !defined")
			keep = keep && negated
			continue
		case strings.HasPrefix(t, "#else"), strings.HasPrefix(t, "#elif"):
			if len(stack) > 0 {
				keep = stack[len(stack)-1].parent && !keep
			}
			continue
		case strings.HasPrefix(t, "#endif"):
			if len(stack) > 0 {
				keep = stack[len(stack)-1].keep
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if keep {
			if i := strings.Index(line, "//"); i >= 0 {
				line = line[:i]
			}
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// substitute replaces named constants in tokens.
func substitute(tokens []string, consts map[string]string) []string {
	for i, tok := range tokens {
		if v, ok := consts[tok]; ok {
			tokens[i] = v
		}
	}
	return tokens
}

func splitTokens(body string) []string {
	var toks []string
	for _, f := range strings.Split(body, ",") {
		if f = strings.TrimSpace(f); f != "" {
			toks = append(toks, f)
		}
	}
	return toks
}

// cArrays returns every array a C file declares at top level, by name.
func cArrays(src string) map[string][]string {
	src = preprocess(src)
	m := map[string][]string{}
	for _, a := range cArrayRE.FindAllStringSubmatch(src, -1) {
		m[a[1]] = splitTokens(a[2])
	}
	return m
}

// cTests parses the TEST blocks of a test file.
func cTests(t *testing.T, src string) []cTest {
	t.Helper()
	src = preprocess(src)
	var tests []cTest
	for {
		i := strings.Index(src, "\nTEST(")
		if i < 0 {
			break
		}
		src = src[i+6:]
		close := strings.Index(src, ")")
		name := strings.Join(strings.Fields(src[:close]), "")
		open := strings.Index(src, "{")
		depth, end := 0, -1
		for j := open; j < len(src); j++ {
			if src[j] == '{' {
				depth++
			} else if src[j] == '}' {
				if depth--; depth == 0 {
					end = j
					break
				}
			}
		}
		if end < 0 {
			t.Fatalf("test %s: unbalanced braces", name)
		}
		body := src[open+1 : end]
		ct := cTest{name: name, arrays: map[string][]string{}, body: body}
		consts := map[string]string{}
		for _, s := range cScalarRE.FindAllStringSubmatch(body, -1) {
			consts[s[1]] = s[2]
		}
		for k, v := range consts {
			ct.arrays[k] = []string{v}
		}
		for _, a := range cArrayRE.FindAllStringSubmatch(body, -1) {
			ct.arrays[a[1]] = substitute(splitTokens(a[2]), consts)
		}
		if f := cFlexRE.FindStringSubmatch(body); f != nil {
			ct.flex = f[1]
		}
		for _, r := range cRefRE.FindAllStringSubmatch(body, -1) {
			ct.refs = append(ct.refs, r[1])
		}
		tests = append(tests, ct)
		src = src[end:]
	}
	if len(tests) == 0 {
		t.Fatal("no TEST blocks found")
	}
	return tests
}

func parseInt(t *testing.T, tok string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(tok, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(tok, 0, 64)
		if uerr != nil {
			t.Fatalf("number %q: %v", tok, err)
		}
		v = int64(u)
	}
	return v
}

func parseFloat(t *testing.T, tok string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(tok, "f"), "F"), 64)
	if err != nil {
		t.Fatalf("number %q: %v", tok, err)
	}
	return v
}

// values converts tokens to elements of type E.
func values[E int8 | int16 | int32 | uint32 | uint64 | float32 | byte](t *testing.T, toks []string) []E {
	t.Helper()
	out := make([]E, len(toks))
	var z E
	for i, tok := range toks {
		switch any(z).(type) {
		case float32:
			out[i] = E(parseFloat(t, tok))
		case uint64:
			out[i] = E(uint64(parseInt(t, tok)))
		default:
			out[i] = E(parseInt(t, tok))
		}
	}
	return out
}

// shapeOf reads a TFLite Micro test shape array: the rank, then the
// dimensions ({0} is a scalar).
func shapeOf(t *testing.T, toks []string) []int {
	t.Helper()
	v := values[int32](t, toks)
	if len(v) == 0 || int(v[0]) != len(v)-1 {
		t.Fatalf("shape %v: the first value must be the rank", toks)
	}
	s := make([]int, 0, v[0])
	for _, d := range v[1:] {
		s = append(s, int(d))
	}
	return s
}

// tflmCase loads one kernel test file with its generated options.
type tflmCase struct {
	tests []cTest
	flex  map[string][]byte
	data  map[string][]string
}

func loadTFLMCase(t *testing.T, test, flex string) *tflmCase {
	t.Helper()
	c := &tflmCase{tests: cTests(t, string(tflmFile(t, "signal/micro/kernels/"+test))), flex: map[string][]byte{}}
	if flex != "" {
		for name, toks := range cArrays(string(tflmFile(t, "signal/micro/kernels/"+flex))) {
			c.flex[strings.TrimPrefix(name, "g_gen_data_")] = values[byte](t, toks)
		}
	}
	return c
}

// options returns the generated options test ct passes.
func (c *tflmCase) options(t *testing.T, ct cTest) []byte {
	t.Helper()
	b, ok := c.flex[ct.flex]
	if !ok {
		t.Fatalf("%s: no generated options %q", ct.name, ct.flex)
	}
	return b
}

// array returns ct's array name, or the shared testdata array that
// replaces it (the refs, in order of use).
func (ct cTest) array(t *testing.T, name string) []string {
	t.Helper()
	a, ok := ct.arrays[name]
	if !ok {
		t.Fatalf("%s: no array %q", ct.name, name)
	}
	return a
}

// tensorOf builds a tensor of the given type and shape holding data.
func tensorOf[E any](typ ops.DataType, shape []int, data []E) *ops.Tensor {
	t := &ops.Tensor{Type: typ, Shape: append([]int{}, shape...)}
	var z E
	size := int(unsafe.Sizeof(z))
	t.Data = alignedBytes(len(data) * size)
	if len(data) > 0 {
		copy(t.Data, unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*size))
	}
	return t
}

// constOf is tensorOf for a constant (model) tensor.
func constOf[E any](typ ops.DataType, shape []int, data []E) *ops.Tensor {
	t := tensorOf(typ, shape, data)
	t.Kind = ops.ConstTensor
	return t
}

func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// node makes a custom node named op.
func node(op string, opts []byte, ins []*ops.Tensor, outs ...ops.DataType) *ops.Node {
	n := &ops.Node{OpName: op, Op: ops.BuiltinCustom, Version: 1, CustomOptions: opts, Inputs: ins}
	for _, typ := range outs {
		n.Outputs = append(n.Outputs, &ops.Tensor{Type: typ})
	}
	return n
}

// prepare runs Prepare and gives the outputs their bytes.
func prepare(k ops.Kernel, n *ops.Node) error {
	if err := k.Prepare(n); err != nil {
		return err
	}
	for _, o := range n.Outputs {
		if len(o.Data) < o.Bytes() {
			o.Data = alignedBytes(o.Bytes())
		}
	}
	return nil
}

// mustRun prepares and evaluates n once.
func mustRun(t *testing.T, k ops.Kernel, n *ops.Node) {
	t.Helper()
	if err := prepare(k, n); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if err := k.Eval(n); err != nil {
		t.Fatalf("Eval: %v", err)
	}
}

// expectEqual compares got with want element by element.
func expectEqual[E comparable](t *testing.T, what string, got, want []E) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: [%d] = %v, want %v\n got %v\nwant %v", what, i, got[i], want[i], got[:len(want)], want)
		}
	}
}

// expectNear compares within tol (absolute), returning the largest
// difference.
func expectNear[E int16 | int32 | float32](t *testing.T, what string, got, want []E, tol float64) float64 {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var worst float64
	for i := range want {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		worst = math.Max(worst, d)
		if d > tol {
			t.Fatalf("%s: [%d] = %v, want %v (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
	return worst
}

// opts writes a FlexBuffer map of the given keys and values (int64, int
// or bool), as TensorFlow writes a Signal op's attributes.
func opts(t testing.TB, kv ...any) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	for i := 0; i < len(kv); i += 2 {
		b.Key(kv[i].(string))
		switch v := kv[i+1].(type) {
		case bool:
			b.Bool(v)
		case int:
			b.Int(int64(v))
		case int64:
			b.Int(v)
		case float64:
			b.Float64(v)
		case string:
			b.String(v)
		default:
			t.Fatalf("opts: value %T", v)
		}
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}
