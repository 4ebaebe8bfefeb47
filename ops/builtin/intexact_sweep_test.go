package builtin_test

import (
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// The integer-exactness sweep: generated single-operator models of every
// integer kernel (int8, uint8, int16; per-tensor and per-channel; every
// fused activation), with random shapes, scales and zero points and
// random inputs over the whole value range, run through TensorFlow Lite's
// builtin kernels (the TFLITE_REF runner) and through tflrun, every output
// compared bit for bit.
//
//	TFLITE_REF=/path/to/tflite_ref TFLRUN_SWEEP=200 go test ./ops/builtin -run TestIntegerSweep -v
//
// runs 200 models of each family (TFLRUN_SWEEP_FAMILY, a regular
// expression, selects families; TFLRUN_SWEEP_SEED shifts the seeds;
// TFLRUN_SWEEP_OUT=DIR saves every mismatching model with its inputs and
// TensorFlow Lite's outputs as a golden case there). Models TensorFlow
// Lite refuses are counted and skipped; a model tflrun refuses, or whose
// outputs differ, fails the test. The cases that found each bug are
// recorded for good by TestRecordIntExact (below) under
// testdata/intexact, which TestGoldenIntExact checks on every run.

// swFamily generates one random model of a kernel class.
type swFamily struct {
	name string
	gen  func(r *rand.Rand) swCase
}

// swCase is one generated model.
type swCase struct {
	desc  string
	model []byte
	gen   optest.InputGen // nil: optest.Uniform
}

// ---- model building ----

// swBuild assembles a one-operator model. Inputs with data are constants;
// the others are model inputs, in order.
type swBuild struct {
	b    *optest.Builder
	ins  []int32
	mins []int32
	outs []int32
}

func newSwBuild() *swBuild { return &swBuild{b: optest.NewBuilder()} }

// in adds an activation input.
func (s *swBuild) in(typ schema.TensorType, shape []int, q *optest.Quant) {
	t := s.b.Tensor(fmt.Sprintf("in%d", len(s.ins)), typ, i32s(shape), q)
	s.ins = append(s.ins, t)
	s.mins = append(s.mins, t)
}

// cst adds a constant input.
func (s *swBuild) cst(typ schema.TensorType, shape []int, q *optest.Quant, data []byte) {
	s.ins = append(s.ins, s.b.Const(fmt.Sprintf("c%d", len(s.ins)), typ, i32s(shape), q, data))
}

// omit adds an omitted optional input.
func (s *swBuild) omit() { s.ins = append(s.ins, -1) }

// out adds an output.
func (s *swBuild) out(typ schema.TensorType, shape []int, q *optest.Quant) {
	s.outs = append(s.outs, s.b.Tensor(fmt.Sprintf("out%d", len(s.outs)), typ, i32s(shape), q))
}

// op finishes the model with one builtin operator.
func (s *swBuild) op(code schema.BuiltinOperator, version int32, opts *schema.BuiltinOptionsT) []byte {
	s.b.Op(code, version, s.ins, s.outs, opts)
	s.b.Inputs(s.mins...)
	s.b.Outputs(s.outs...)
	return s.b.Bytes()
}

func i32s(v []int) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// ---- random parameters ----

// logUniform draws from [lo, hi] with a uniform logarithm.
func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

// qtype is a quantised integer type with its schema and ops names.
type qtype struct {
	s      schema.TensorType
	o      ops.DataType
	lo, hi int
}

var (
	qInt8  = qtype{schema.TensorTypeINT8, ops.Int8, -128, 127}
	qUint8 = qtype{schema.TensorTypeUINT8, ops.Uint8, 0, 255}
	qInt16 = qtype{schema.TensorTypeINT16, ops.Int16, -32768, 32767}
)

// zp draws a zero point of t (int16: 0, as TFLite's int16 kernels need).
func (t qtype) zp(r *rand.Rand) int64 {
	if t.s == schema.TensorTypeINT16 {
		return 0
	}
	return int64(t.lo + r.IntN(t.hi-t.lo+1))
}

// anyZP draws any zero point of t, int16 included.
func (t qtype) anyZP(r *rand.Rand) int64 { return int64(t.lo + r.IntN(t.hi-t.lo+1)) }

// steps is the half-range of t in steps (128 for 8 bits).
func (t qtype) steps() float64 { return float64(t.hi-t.lo+1) / 2 }

// bytesOf draws n random values of t over its whole range.
func (t qtype) bytesOf(r *rand.Rand, n int) []byte {
	switch t.s {
	case schema.TensorTypeINT16:
		v := make([]int16, n)
		for i := range v {
			v[i] = int16(r.IntN(65536) - 32768)
		}
		return optest.I16(v...)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

func pt(scale float64, zp int64) *optest.Quant { return optest.PerTensor(float32(scale), zp) }

// activations a fused-activation option can take on the integer kernels.
var swActs = []schema.ActivationFunctionType{
	schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU,
	schema.ActivationFunctionTypeRELU6, schema.ActivationFunctionTypeRELU_N1_TO_1,
}

func pick[T any](r *rand.Rand, v ...T) T { return v[r.IntN(len(v))] }

func prodInts(v []int) int {
	n := 1
	for _, d := range v {
		n *= d
	}
	return n
}

// randShape draws a shape of rank dims with each dimension in [1, hi].
func randShape(r *rand.Rand, rank, hi int) []int {
	s := make([]int, rank)
	for i := range s {
		s[i] = 1 + r.IntN(hi)
	}
	return s
}

// int32s packs v as little-endian int32 bytes.
func int32s(v []int32) []byte { return optest.I32(v...) }

// ---- the sweep ----

func TestIntegerSweep(t *testing.T) {
	nStr := os.Getenv("TFLRUN_SWEEP")
	if nStr == "" {
		t.Skipf("sweep skipped: run with TFLRUN_SWEEP=<models per family> and %s=/path/to/tflite_ref", optest.RefEnv)
	}
	n, err := strconv.Atoi(nStr)
	if err != nil || n <= 0 {
		t.Fatalf("TFLRUN_SWEEP=%q: need a positive count", nStr)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	var only *regexp.Regexp
	if f := os.Getenv("TFLRUN_SWEEP_FAMILY"); f != "" {
		if only, err = regexp.Compile(f); err != nil {
			t.Fatal(err)
		}
	}
	seed0 := uint64(0)
	if s := os.Getenv("TFLRUN_SWEEP_SEED"); s != "" {
		if seed0, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	outDir := os.Getenv("TFLRUN_SWEEP_OUT")
	tmp := t.TempDir()
	type tally struct{ ran, refRefused, refused, mismatched int }
	results := map[string]*tally{}
	var names []string
	for _, fam := range swFamilies() {
		if only != nil && !only.MatchString(fam.name) {
			continue
		}
		names = append(names, fam.name)
		tl := &tally{}
		results[fam.name] = tl
		for i := 0; i < n; i++ {
			seed := seed0 + uint64(i)
			c := fam.gen(swRand(fam.name, seed))
			mp := filepath.Join(tmp, fmt.Sprintf("%s_%d.tflite", fam.name, seed))
			if err := os.WriteFile(mp, c.model, 0o644); err != nil {
				t.Fatal(err)
			}
			in, err := swInputs(c.model, seed, c.gen)
			if err != nil {
				t.Fatalf("%s seed %d (%s): inputs: %v", fam.name, seed, c.desc, err)
			}
			want, err := optest.Reference(ref, mp, in)
			if err != nil {
				tl.refRefused++
				if tl.refRefused <= 3 {
					t.Logf("%s seed %d (%s): TensorFlow Lite refuses: %v", fam.name, seed, c.desc, firstLine(err))
				}
				continue
			}
			tl.ran++
			cs := &optest.Case{Model: mp, Exact: true, Inputs: in, Outputs: want}
			got, err := optest.Run(cs, nil)
			if err != nil {
				tl.refused++
				t.Errorf("%s seed %d (%s): tflrun refuses what TensorFlow Lite runs: %v", fam.name, seed, c.desc, err)
				continue
			}
			var diffs []string
			for j := range want {
				if j >= len(got) {
					diffs = append(diffs, fmt.Sprintf("output %d missing", j))
					continue
				}
				if msg := optest.Compare(cs, j, got[j], want[j]); msg != "" {
					diffs = append(diffs, msg+"; "+diffStats(got[j], want[j]))
				}
			}
			if len(diffs) == 0 {
				continue
			}
			tl.mismatched++
			t.Errorf("%s seed %d (%s): %s", fam.name, seed, c.desc, strings.Join(diffs, "; "))
			if outDir != "" {
				dir := filepath.Join(outDir, fmt.Sprintf("%s_%d", fam.name, seed))
				if err := saveSweepCase(dir, c.model, in, want); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %6s %8s %8s %10s\n", "family", "ran", "TFLite✗", "tflrun✗", "mismatch")
	for _, name := range names {
		tl := results[name]
		fmt.Fprintf(&b, "%-28s %6d %8d %8d %10d\n", name, tl.ran, tl.refRefused, tl.refused, tl.mismatched)
	}
	t.Logf("integer sweep, %d models per family:\n%s", n, b.String())
}

// swInputs draws random values for the model's inputs (their declared
// types and shapes, read from the flatbuffer, so that models tflrun
// cannot load get inputs too) with gen (nil: optest.Uniform), as
// optest.RandomInputs does.
func swInputs(model []byte, seed uint64, gen optest.InputGen) ([]*npy.Array, error) {
	if gen == nil {
		gen = optest.Uniform
	}
	m := schema.GetRootAsModel(model, 0).UnPack()
	if len(m.Subgraphs) == 0 {
		return nil, errors.New("no subgraph")
	}
	sg := m.Subgraphs[0]
	r := rand.New(rand.NewPCG(seed, 0x6f7074657374))
	var res []*npy.Array
	for i, ti := range sg.Inputs {
		t := sg.Tensors[ti]
		typ := ops.DataType(t.Type)
		shape := make([]int, len(t.Shape))
		for j, d := range t.Shape {
			shape[j] = int(d)
		}
		sz := typ.Size()
		if sz <= 0 {
			return nil, fmt.Errorf("input %d: type %v", i, typ)
		}
		n := prodInts(shape)
		data := make([]byte, n*sz)
		for e := 0; e < n; e++ {
			putSwValue(data[e*sz:], typ, gen(r, i, typ))
		}
		res = append(res, &npy.Array{Type: typ, Shape: shape, Data: data})
	}
	return res, nil
}

func putSwValue(b []byte, typ ops.DataType, v float64) {
	switch typ {
	case ops.Float32:
		copy(b, optest.F32(float32(v)))
	case ops.Int8, ops.Uint8, ops.Bool:
		b[0] = byte(int64(v))
	case ops.Int16:
		copy(b, optest.I16(int16(int64(v))))
	case ops.Int32:
		copy(b, optest.I32(int32(int64(v))))
	case ops.Int64:
		copy(b, optest.I64(int64(v)))
	}
}

// swRand is the generator of one model: seeded by the family name and the
// model's seed, so that a reported (family, seed) regenerates it.
func swRand(family string, seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(crc32.ChecksumIEEE([]byte(family))), seed))
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// diffStats describes how two integer arrays differ: how many elements,
// the largest difference and its sign.
func diffStats(got, want *npy.Array) string {
	if got.Type != want.Type || len(got.Data) != len(want.Data) {
		return ""
	}
	g, w := intValues(got), intValues(want)
	if g == nil {
		return ""
	}
	n, maxd, low := 0, int64(0), 0
	for i := range g {
		if d := g[i] - w[i]; d != 0 {
			n++
			if d < 0 {
				low++
				d = -d
			}
			maxd = max(maxd, d)
		}
	}
	return fmt.Sprintf("%d of %d differ, max %d, %d low", n, len(g), maxd, low)
}

func intValues(a *npy.Array) []int64 {
	n := a.NumElements()
	v := make([]int64, n)
	for i := range v {
		switch a.Type {
		case ops.Int8:
			v[i] = int64(int8(a.Data[i]))
		case ops.Uint8:
			v[i] = int64(a.Data[i])
		case ops.Int16:
			v[i] = int64(int16(uint16(a.Data[2*i]) | uint16(a.Data[2*i+1])<<8))
		case ops.Int32:
			v[i] = int64(int32(uint32(a.Data[4*i]) | uint32(a.Data[4*i+1])<<8 | uint32(a.Data[4*i+2])<<16 | uint32(a.Data[4*i+3])<<24))
		default:
			return nil
		}
	}
	return v
}

// saveSweepCase writes a mismatching model as a golden case folder.
func saveSweepCase(dir string, model []byte, in, want []*npy.Array) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mp := filepath.Join(dir, "model.tflite")
	if err := os.WriteFile(mp, model, 0o644); err != nil {
		return err
	}
	return optest.WriteCase(&optest.Case{Dir: filepath.Join(dir, "run0"), Model: mp, Exact: true, Inputs: in, Outputs: want})
}

// ---- golden cases ----

// intExactGolden lists the generated models recorded under
// testdata/intexact: (family, seed) pairs, each the sweep's model of that
// seed, chosen because they found a bug or cover a class the fixes
// touched. Keep it small: every model is checked on every test run.
var intExactGolden = []struct {
	family string
	seed   uint64
}{
	// int8 CONV_2D and FULLY_CONNECTED: ruy's x86 rule (ties of the final
	// shift upward); each of these fails with ties away from zero.
	{"conv2d_int8_pc", 15}, {"conv2d_int8_pt", 27},
	{"conv2d_int8_pc_tie", 8}, {"conv2d_int8_pc_tie", 18}, {"conv2d_int8_pt_tie", 5}, {"conv2d_int8_pt_tie", 20},
	{"fc_int8_pt", 18}, {"fc_int8_pc", 31}, {"fc_int8_pt_tie", 4}, {"fc_int8_pc_tie", 0},
	{"fc_int16x8_b32_tie", 4},
	// The kernels that keep ties away from zero (reference grouped
	// convolution, gemmlowp's uint8 GEMMs, the depthwise kernels, the
	// int64-bias 16x8 FULLY_CONNECTED); the depthwise ones fail with ties
	// upward.
	{"conv2d_int8_grouped_tie", 0}, {"conv2d_uint8_tie", 0}, {"fc_uint8_tie", 0}, {"fc_int16x8_b64_tie", 0},
	{"dwconv_int8_tie", 3}, {"dwconv_int8_pt_tie", 1}, {"dwconv_uint8_tie", 2},
	// LEAKY_RELU's and RELU's float32 quotients; QUANTIZE's double
	// division near halves (each fails with the float32 one); int8/uint8
	// → int16.
	{"leaky_relu_int8", 43}, {"relu_int16", 5020},
	{"quantize_f32_int8", 0}, {"quantize_f32_uint8", 1}, {"quantize_f32_int16", 0},
	{"requantize_int8_int16", 0}, {"requantize_uint8_int16", 0},
	// The quantised HARD_SWISH, PRELU, RESIZE_BILINEAR kernels, and the
	// integer LSTM at cell-state scales outside 2^-15..2^-9.
	{"hard_swish_int8", 0}, {"hard_swish_uint8", 0}, {"prelu_int8", 0}, {"prelu_int16", 0},
	{"resize_bilinear_uint8", 0}, {"resize_bilinear_int8", 0}, {"resize_bilinear_int16", 0},
	{"lstm_int8_cellscale", 0}, {"lstm_int8_cellscale", 1}, {"lstm_int8_cellscale", 2}, {"lstm_int8_cellscale", 3},
	// The int16 LOGISTIC and TANH (fixed-point path) and SOFTMAX.
	{"logistic_int16_pot", 0}, {"tanh_int16_pot", 0}, {"tanh_int16_pot", 1}, {"tanh_int16_pot", 2},
	{"softmax_int16", 0}, {"softmax_int16", 1}, {"softmax_int16", 2},
	// int8 LOG_SOFTMAX: the builtin kernel's float table path
	// (optimized_ops::LogSoftmax<int8_t>); the fixed-point reference
	// kernel gives one step more on one element of this one.
	{"log_softmax_int8", 75},
}

func TestRecordIntExact(t *testing.T) {
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording skipped: run with %s=1 %s=/path/to/tflite_ref to rewrite testdata/intexact", optest.RecordEnv, optest.RefEnv)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", "intexact")
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	fams := map[string]swFamily{}
	for _, f := range swFamilies() {
		fams[f.name] = f
	}
	for _, g := range intExactGolden {
		f, ok := fams[g.family]
		if !ok {
			t.Fatalf("no family %q", g.family)
		}
		c := f.gen(swRand(g.family, g.seed))
		dir := filepath.Join(root, fmt.Sprintf("%s_%d", g.family, g.seed))
		if err := optest.RecordCases(ref, dir, c.model, 2, g.seed, c.gen, optest.Case{Exact: true}); err != nil {
			t.Fatalf("%s seed %d: %v", g.family, g.seed, err)
		}
	}
}

func TestGoldenIntExact(t *testing.T) {
	root := filepath.Join("testdata", "intexact")
	if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) && len(intExactGolden) == 0 {
		t.Skip("no integer-exactness cases recorded yet")
	}
	optest.Check(t, root, nil)
}
