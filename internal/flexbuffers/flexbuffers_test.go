package flexbuffers

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Tests of the reader and the builder: the encodings the format's
// documentation spells out byte for byte, random trees built and read
// back, the C++ reader's conversions, and hostile buffers (truncated,
// mutated, crafted), which must give errors and never panic.

func finish(t *testing.T, b *Builder) []byte {
	t.Helper()
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(buf); err != nil {
		t.Fatalf("Verify of a built buffer: %v\n% x", err, buf)
	}
	return buf
}

// TestDocumentedEncodings checks the byte layouts given in the format's
// documentation (docs/internals.md, "FlexBuffers").
func TestDocumentedEncodings(t *testing.T) {
	var b Builder
	b.Int(13)
	if got, want := finish(t, &b), []byte{13, 4, 1}; !bytes.Equal(got, want) {
		t.Errorf("root int 13: % x, want % x", got, want)
	}

	b = Builder{}
	v := b.StartVector()
	b.Int(1)
	b.Int(2)
	b.Int(3)
	b.EndVector(v, false, false)
	buf := finish(t, &b)
	// 3, 1, 2, 3, 4, 4, 4, then the root: offset 6 back to the first
	// element, type VECTOR<<2 (8-bit), width 1.
	if want := []byte{3, 1, 2, 3, 4, 4, 4, 6, 40, 1}; !bytes.Equal(buf, want) {
		t.Errorf("vector [1 2 3]: % x, want % x", buf, want)
	}

	// { foo: 13, bar: 14 }, with the keys written bar first as in the
	// documentation's example.
	b = Builder{}
	m := b.StartMap()
	b.Key("bar")
	b.Int(14)
	b.Key("foo")
	b.Int(13)
	b.EndMap(m)
	buf = finish(t, &b)
	want := []byte{'b', 'a', 'r', 0, 'f', 'o', 'o', 0, 2, 9, 6, 2, 1, 2, 14, 13, 4, 4, 4, 36, 1}
	if !bytes.Equal(buf, want) {
		t.Errorf("map: % x, want % x", buf, want)
	}
	mp, err := RootMap(want)
	if err != nil {
		t.Fatal(err)
	}
	for key, w := range map[string]int64{"foo": 13, "bar": 14, "baz": 0, "": 0, "fooo": 0} {
		if got, err := mp.Int(key); err != nil || got != w {
			t.Errorf("m[%q] = %d, %v; want %d", key, got, err, w)
		}
	}
	if has, _ := mp.Has("baz"); has {
		t.Error("Has(baz) on a map without it")
	}
	if k, err := mp.Key(1); err != nil || k != "foo" {
		t.Errorf("Key(1) = %q, %v", k, err)
	}
}

// node is a random tree for the round trip; kind is the Type written.
type node struct {
	kind  Type
	i     int64
	u     uint64
	f     float64
	b     bool
	s     string
	blob  []byte
	keys  []string // maps
	kids  []node
	typed bool
	fixed bool
}

func randInt(r *rand.Rand) int64 {
	switch r.IntN(5) {
	case 0:
		return int64(r.IntN(256)) - 128
	case 1:
		return int64(r.IntN(1<<16)) - 1<<15
	case 2:
		return int64(int32(r.Uint32()))
	case 3:
		return int64(r.Uint64())
	}
	return []int64{0, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32 + 1}[r.IntN(6)]
}

func randUint(r *rand.Rand) uint64 {
	return []uint64{uint64(r.IntN(256)), uint64(r.IntN(1 << 16)), uint64(r.Uint32()), r.Uint64(), math.MaxUint64}[r.IntN(5)]
}

func randFloat(r *rand.Rand) float64 {
	switch r.IntN(4) {
	case 0:
		return float64(float32(r.NormFloat64()))
	case 1:
		return r.NormFloat64() * 1e10
	case 2:
		return []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}[r.IntN(6)]
	}
	return float64(r.IntN(100))
}

func randString(r *rand.Rand, maxLen int) string {
	n := r.IntN(maxLen + 1)
	if r.IntN(20) == 0 {
		n = 200 + r.IntN(400) // a 16-bit size field
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteByte(byte('a' + r.IntN(26)))
	}
	return sb.String()
}

func randScalar(r *rand.Rand, kind Type) node {
	switch kind {
	case TypeInt, TypeIndirectInt:
		return node{kind: kind, i: randInt(r)}
	case TypeUint, TypeIndirectUint:
		return node{kind: kind, u: randUint(r)}
	case TypeFloat, TypeIndirectFloat:
		return node{kind: kind, f: randFloat(r)}
	case TypeBool:
		return node{kind: kind, b: r.IntN(2) == 1}
	case TypeKey:
		return node{kind: kind, s: randString(r, 6)}
	}
	return node{kind: TypeNull}
}

func randNode(r *rand.Rand, depth int) node {
	k := r.IntN(14)
	if depth >= 4 && k >= 10 {
		k = r.IntN(10)
	}
	switch k {
	case 0:
		return node{kind: TypeNull}
	case 1, 2, 3, 4, 5, 6, 7:
		kinds := []Type{TypeInt, TypeUint, TypeFloat, TypeBool, TypeIndirectInt, TypeIndirectUint, TypeIndirectFloat}
		return randScalar(r, kinds[k-1])
	case 8:
		return node{kind: TypeString, s: randString(r, 10)}
	case 9:
		blob := make([]byte, r.IntN(20))
		for i := range blob {
			blob[i] = byte(r.Uint32())
		}
		return node{kind: TypeBlob, blob: blob}
	case 10: // untyped vector
		n := node{kind: TypeVector}
		for i := r.IntN(6); i > 0; i-- {
			n.kids = append(n.kids, randNode(r, depth+1))
		}
		return n
	case 11: // typed vector
		et := []Type{TypeInt, TypeUint, TypeFloat, TypeBool, TypeKey}[r.IntN(5)]
		n := node{kind: TypeVector, typed: true}
		for i := r.IntN(7); i > 0; i-- {
			n.kids = append(n.kids, randScalar(r, et))
		}
		if len(n.kids) == 0 {
			n.kids = append(n.kids, randScalar(r, et))
		}
		return n
	case 12: // fixed typed vector
		et := []Type{TypeInt, TypeUint, TypeFloat}[r.IntN(3)]
		n := node{kind: TypeVector, typed: true, fixed: true}
		for i := 2 + r.IntN(3); i > 0; i-- {
			n.kids = append(n.kids, randScalar(r, et))
		}
		return n
	}
	n := node{kind: TypeMap}
	seen := map[string]bool{}
	for i := r.IntN(8); i > 0; i-- {
		key := randString(r, 5)
		if seen[key] {
			continue
		}
		seen[key] = true
		n.keys = append(n.keys, key)
		n.kids = append(n.kids, randNode(r, depth+1))
	}
	return n
}

func (n node) build(b *Builder) {
	switch n.kind {
	case TypeNull:
		b.Null()
	case TypeInt:
		b.Int(n.i)
	case TypeUint:
		b.Uint(n.u)
	case TypeFloat:
		b.Float64(n.f)
	case TypeBool:
		b.Bool(n.b)
	case TypeIndirectInt:
		b.IndirectInt(n.i)
	case TypeIndirectUint:
		b.IndirectUint(n.u)
	case TypeIndirectFloat:
		b.IndirectFloat64(n.f)
	case TypeKey:
		b.Key(n.s)
	case TypeString:
		b.String(n.s)
	case TypeBlob:
		b.Blob(n.blob)
	case TypeVector:
		s := b.StartVector()
		for _, k := range n.kids {
			k.build(b)
		}
		b.EndVector(s, n.typed, n.fixed)
	case TypeMap:
		s := b.StartMap()
		for i, k := range n.kids {
			b.Key(n.keys[i])
			k.build(b)
		}
		b.EndMap(s)
	}
}

// check compares the value read with the tree written.
func (n node) check(v Value, path string) error {
	switch n.kind {
	case TypeNull:
		if !v.IsNull() {
			return fmt.Errorf("%s: %s, want null", path, v.Type())
		}
	case TypeInt, TypeIndirectInt:
		if v.Type() != n.kind {
			return fmt.Errorf("%s: type %s, want %s", path, v.Type(), n.kind)
		}
		if got, err := v.AsInt(); err != nil || got != n.i {
			return fmt.Errorf("%s: %d, %v; want %d", path, got, err, n.i)
		}
	case TypeUint, TypeIndirectUint:
		if v.Type() != n.kind {
			return fmt.Errorf("%s: type %s, want %s", path, v.Type(), n.kind)
		}
		if got, err := v.AsUint(); err != nil || got != n.u {
			return fmt.Errorf("%s: %d, %v; want %d", path, got, err, n.u)
		}
	case TypeFloat, TypeIndirectFloat:
		if v.Type() != n.kind {
			return fmt.Errorf("%s: type %s, want %s", path, v.Type(), n.kind)
		}
		if got, err := v.AsFloat(); err != nil || math.Float64bits(got) != math.Float64bits(n.f) {
			return fmt.Errorf("%s: %v, %v; want %v", path, got, err, n.f)
		}
	case TypeBool:
		if got, err := v.AsBool(); err != nil || got != n.b || v.Type() != TypeBool {
			return fmt.Errorf("%s: %s %v, %v; want %v", path, v.Type(), got, err, n.b)
		}
	case TypeKey:
		if got, err := v.AsKey(); err != nil || got != n.s {
			return fmt.Errorf("%s: key %q, %v; want %q", path, got, err, n.s)
		}
	case TypeString:
		if got, err := v.AsString(); err != nil || got != n.s {
			return fmt.Errorf("%s: %q, %v; want %q", path, got, err, n.s)
		}
	case TypeBlob:
		if got, err := v.AsBlob(); err != nil || !bytes.Equal(got, n.blob) {
			return fmt.Errorf("%s: blob % x, %v; want % x", path, got, err, n.blob)
		}
	case TypeVector:
		vec, err := v.AsVector()
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if n.typed != (v.Type() != TypeVector) || n.fixed != v.Type().fixedVector() {
			return fmt.Errorf("%s: type %s (typed %v, fixed %v)", path, v.Type(), n.typed, n.fixed)
		}
		if vec.Len() != len(n.kids) {
			return fmt.Errorf("%s: %d elements, want %d", path, vec.Len(), len(n.kids))
		}
		for i, k := range n.kids {
			e, err := vec.At(i)
			if err != nil {
				return err
			}
			if err := k.check(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		if _, err := vec.At(len(n.kids)); err == nil {
			return fmt.Errorf("%s: At(Len) succeeded", path)
		}
	case TypeMap:
		m, err := v.AsMap()
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if m.Len() != len(n.kids) {
			return fmt.Errorf("%s: %d entries, want %d", path, m.Len(), len(n.kids))
		}
		sorted := slices.Clone(n.keys)
		sort.Strings(sorted)
		for i, key := range n.keys {
			e, err := m.Get(key)
			if err != nil {
				return err
			}
			if err := n.kids[i].check(e, path+"."+key); err != nil {
				return err
			}
			if k, err := m.Key(slices.Index(sorted, key)); err != nil || k != key {
				return fmt.Errorf("%s: key %d is %q, %v; want %q", path, slices.Index(sorted, key), k, err, key)
			}
		}
		if e, err := m.Get("\xff missing"); err != nil || !e.IsNull() {
			return fmt.Errorf("%s: missing key gave %s, %v", path, e.Type(), err)
		}
	}
	return nil
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		n := randNode(r, 0)
		var b Builder
		n.build(&b)
		buf := finish(t, &b)
		root, err := Root(buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.check(root, "root"); err != nil {
			t.Fatalf("trial %d: %v\n% x", trial, err, buf)
		}
	}
}

// TestWidths forces every container width: a vector is as wide as its
// widest inline element and its farthest offset.
func TestWidths(t *testing.T) {
	for _, c := range []struct {
		val   int64
		width int
	}{{1, 1}, {-129, 2}, {1 << 20, 4}, {1 << 40, 8}} {
		var b Builder
		v := b.StartVector()
		b.Int(0)
		b.Int(c.val)
		b.EndVector(v, false, false)
		buf := finish(t, &b)
		root, _ := Root(buf)
		vec, err := root.AsVector()
		if err != nil || vec.width != c.width {
			t.Errorf("vector with %d: width %d, %v; want %d", c.val, vec.width, err, c.width)
		}
	}
	// A string 70000 bytes long: its size field and the offset to it
	// need 4 bytes.
	var b Builder
	v := b.StartVector()
	b.String(strings.Repeat("x", 70000))
	b.Int(5)
	b.EndVector(v, false, false)
	buf := finish(t, &b)
	root, _ := Root(buf)
	vec, _ := root.AsVector()
	if vec.width != 4 {
		t.Errorf("vector after a long string: width %d, want 4", vec.width)
	}
	e, _ := vec.At(0)
	if s, err := e.AsString(); err != nil || len(s) != 70000 {
		t.Errorf("long string: %d bytes, %v", len(s), err)
	}
}

// TestConversions checks the C++ reader's conversions between kinds.
func TestConversions(t *testing.T) {
	var b Builder
	m := b.StartMap()
	b.Key("f")
	b.Float32(-2.75)
	b.Key("i")
	b.Int(-3)
	b.Key("u")
	b.Uint(200)
	b.Key("t")
	b.Bool(true)
	b.Key("n")
	b.Null()
	b.Key("s")
	b.String("42")
	b.Key("sf")
	b.String("1.5")
	b.Key("bad")
	b.String("x1")
	b.Key("v")
	v := b.StartVector()
	b.Int(1)
	b.Int(2)
	b.Int(3)
	b.EndVector(v, false, false)
	b.Key("tv")
	v = b.StartVector()
	b.Int(1)
	b.Int(2)
	b.EndVector(v, true, false)
	b.Key("huge")
	b.Float64(1e300)
	b.Key("blob")
	b.Blob([]byte{1, 2})
	b.EndMap(m)
	mp, err := RootMap(finish(t, &b))
	if err != nil {
		t.Fatal(err)
	}
	ints := map[string]int64{"f": -2, "i": -3, "u": 200, "t": 1, "n": 0, "s": 42, "sf": 0, "bad": 0, "v": 3, "tv": 0, "missing": 0, "blob": 0}
	for k, want := range ints {
		if got, err := mp.Int(k); err != nil || got != want {
			t.Errorf("Int(%q) = %d, %v; want %d", k, got, err, want)
		}
	}
	floats := map[string]float64{"f": -2.75, "i": -3, "u": 200, "t": 1, "n": 0, "s": 42, "sf": 1.5, "bad": 0, "v": 3, "missing": 0}
	for k, want := range floats {
		if got, err := mp.Float(k); err != nil || got != want {
			t.Errorf("Float(%q) = %v, %v; want %v", k, got, err, want)
		}
	}
	bools := map[string]bool{"f": true, "i": true, "u": true, "t": true, "n": false, "missing": false, "v": true}
	for k, want := range bools {
		if got, err := mp.Bool(k); err != nil || got != want {
			t.Errorf("Bool(%q) = %v, %v; want %v", k, got, err, want)
		}
	}
	if u, err := mp.Get("i"); err == nil {
		if got, _ := u.AsUint(); got != math.MaxUint64-2 {
			t.Errorf("AsUint(-3) = %d, want the wrapped value", got)
		}
	}
	if _, err := mp.Int("huge"); err == nil || !strings.Contains(err.Error(), `"huge"`) {
		t.Errorf("Int of 1e300: %v, want an error naming the key", err)
	}
	for _, k := range []string{"i", "v", "n"} {
		e, _ := mp.Get(k)
		if _, err := e.AsString(); err == nil {
			t.Errorf("AsString of %s succeeded", k)
		}
		if _, err := e.AsBlob(); err == nil {
			t.Errorf("AsBlob of %s succeeded", k)
		}
		if _, err := e.AsMap(); err == nil {
			t.Errorf("AsMap of %s succeeded", k)
		}
	}
	e, _ := mp.Get("f")
	if _, err := e.AsVector(); err == nil {
		t.Error("AsVector of a float succeeded")
	}
	// A map is also a vector of its values.
	root, _ := Root(finish(t, func() *Builder {
		var b Builder
		m := b.StartMap()
		b.Key("a")
		b.Int(7)
		b.EndMap(m)
		return &b
	}()))
	if vec, err := root.AsVector(); err != nil || vec.Len() != 1 {
		t.Errorf("map as vector: %v, %v", vec.Len(), err)
	}
}

// TestBuilderMisuse: errors of use surface at Finish.
func TestBuilderMisuse(t *testing.T) {
	cases := map[string]func(b *Builder){
		"empty":       func(b *Builder) {},
		"two roots":   func(b *Builder) { b.Int(1); b.Int(2) },
		"open vector": func(b *Builder) { b.StartVector(); b.Int(1) },
		"odd map":     func(b *Builder) { m := b.StartMap(); b.Key("a"); b.EndMap(m) },
		"map no key":  func(b *Builder) { m := b.StartMap(); b.Int(1); b.Int(2); b.EndMap(m) },
		"repeated key": func(b *Builder) {
			m := b.StartMap()
			b.Key("a")
			b.Int(1)
			b.Key("a")
			b.Int(2)
			b.EndMap(m)
		},
		"zero in key":  func(b *Builder) { m := b.StartMap(); b.Key("a\x00"); b.Int(1); b.EndMap(m) },
		"mixed typed":  func(b *Builder) { v := b.StartVector(); b.Int(1); b.Float32(2); b.EndVector(v, true, false) },
		"string typed": func(b *Builder) { v := b.StartVector(); b.String("a"); b.EndVector(v, true, false) },
		"fixed 5": func(b *Builder) {
			v := b.StartVector()
			b.Int(1)
			b.Int(1)
			b.Int(1)
			b.Int(1)
			b.Int(1)
			b.EndVector(v, true, true)
		},
		"fixed untyped":  func(b *Builder) { v := b.StartVector(); b.Int(1); b.Int(1); b.EndVector(v, false, true) },
		"fixed bool":     func(b *Builder) { v := b.StartVector(); b.Bool(true); b.Bool(false); b.EndVector(v, true, true) },
		"wrong handle":   func(b *Builder) { v := b.StartVector(); b.StartVector(); b.EndVector(v, false, false) },
		"close unopened": func(b *Builder) { b.Int(1); b.EndVector(0, false, false) },
	}
	for name, f := range cases {
		var b Builder
		f(&b)
		if _, err := b.Finish(); err == nil {
			t.Errorf("%s: Finish succeeded", name)
		}
	}
}

// sample builds a buffer holding every type, the seed of the mutation
// tests and of the fuzz target.
func sample() []byte {
	var b Builder
	m := b.StartMap()
	b.Key("max_detections")
	b.Int(10)
	b.Key("nms_iou_threshold")
	b.Float32(0.6)
	b.Key("use_regular_nms")
	b.Bool(false)
	b.Key("big")
	b.IndirectInt(-1 << 40)
	b.Key("bigu")
	b.IndirectUint(1 << 50)
	b.Key("d")
	b.IndirectFloat64(0.1)
	b.Key("name")
	b.String("TFLite")
	b.Key("blob")
	b.Blob([]byte{0, 1, 2, 3})
	b.Key("vec")
	v := b.StartVector()
	b.Int(-1)
	b.String("x")
	b.Null()
	w := b.StartVector()
	b.Float32(1)
	b.Float32(2)
	b.Float32(3)
	b.EndVector(w, true, true)
	b.EndVector(v, false, false)
	b.Key("ints")
	v = b.StartVector()
	for i := 0; i < 5; i++ {
		b.Int(int64(i * 100))
	}
	b.EndVector(v, true, false)
	b.Key("keys")
	v = b.StartVector()
	b.Key("k1")
	b.Key("k2")
	b.EndVector(v, true, false)
	b.Key("bools")
	v = b.StartVector()
	b.Bool(true)
	b.Bool(false)
	b.EndVector(v, true, false)
	b.Key("sub")
	s := b.StartMap()
	b.Key("y_scale")
	b.Float64(10)
	b.EndMap(s)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return buf
}

// walk calls every accessor on v and its children, ignoring errors; it
// must not panic on any input. It visits at most *budget values.
func walk(v Value, depth int, budget *int) {
	*budget--
	if *budget < 0 || depth > 8 {
		return
	}
	v.AsInt()
	v.AsUint()
	v.AsFloat()
	v.AsBool()
	v.AsString()
	v.AsKey()
	v.AsBlob()
	if m, err := v.AsMap(); err == nil {
		for _, k := range []string{"", "a", "max_detections", "sub", "zzz"} {
			m.Get(k)
			m.Int(k)
			m.Float(k)
			m.Bool(k)
			m.Has(k)
		}
		for i := -1; i <= m.Len() && i < 16; i++ {
			m.Key(i)
			if e, err := m.Value(i); err == nil {
				walk(e, depth+1, budget)
			}
		}
	}
	if vec, err := v.AsVector(); err == nil {
		for i := -1; i <= vec.Len() && i < 16; i++ {
			if e, err := vec.At(i); err == nil {
				walk(e, depth+1, budget)
			}
		}
	}
}

func readAll(buf []byte) {
	Verify(buf)
	RootMap(buf)
	if r, err := Root(buf); err == nil {
		budget := 300
		walk(r, 0, &budget)
	}
}

// TestMutations reads every prefix and every one-byte change of a buffer
// holding every type: errors are fine, panics are not (the fuzz target
// goes further).
func TestMutations(t *testing.T) {
	buf := sample()
	if err := Verify(buf); err != nil {
		t.Fatal(err)
	}
	for n := 0; n <= len(buf); n++ {
		readAll(buf[:n])
		readAll(buf[len(buf)-n:])
	}
	mut := make([]byte, len(buf))
	for i := range buf {
		for _, x := range []byte{0, 3, 0xff, buf[i] ^ 1, buf[i] + 4} {
			copy(mut, buf)
			mut[i] = x
			readAll(mut)
		}
	}
}

// TestHostile checks that crafted buffers give the errors they should.
func TestHostile(t *testing.T) {
	cases := []struct {
		name string
		buf  []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"two bytes", []byte{4, 1}, "too short"},
		{"root width 3", []byte{1, 2, 3, 4, 3}, "root width 3"},
		{"root width 8 in 4 bytes", []byte{1, 4, 4, 8}, "does not fit"},
		{"unknown type", []byte{0, 0xfc, 1}, "unknown type"},
		// A vector whose offset points 9 bytes back from offset 0.
		{"offset before buffer", []byte{9, 40, 1}, "before the buffer"},
		// A vector at offset 1 claiming 200 elements.
		{"vector too long", []byte{4, 1, 1, 40, 1}, "overruns"},
		{"vector size huge", []byte{200, 1, 1, 40, 1}, "claims 200 elements"},
		// A string of 50 bytes in a 6-byte buffer.
		{"string too long", []byte{50, 'a', 0, 2, 20, 1}, "overruns"},
		{"size before buffer", []byte{0, 40, 1}, "size of the vector"},
		// A map at offset 3 (keys offset, keys width, size before it)
		// whose keys width is 3.
		{"keys width", []byte{1, 3, 1, 7, 4, 2, 36, 1}, "keys width 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(c.buf)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify: %v, want an error containing %q", err, c.want)
			}
			readAll(c.buf)
		})
	}

	// A key without a terminating zero: the typed key vector's one
	// element points at "ab", after which no byte is zero up to the end.
	// Bytes: "ab", the size 1, the element (offset 3 back to "ab"), and
	// the root (offset 1 back to the element, type key vector, width 1).
	key := []byte{'a', 'b', 1, 3, 1, byte(TypeVectorKey) << 2, 1}
	if err := Verify(key); err == nil || !strings.Contains(err.Error(), "terminating zero") {
		t.Errorf("unterminated key: %v", err)
	}

	// Unsorted keys: lookups would miss, Verify refuses.
	var b Builder
	m := b.StartMap()
	b.Key("a")
	b.Int(1)
	b.Key("b")
	b.Int(2)
	b.EndMap(m)
	buf, _ := b.Finish()
	swapped := bytes.Replace(slices.Clone(buf), []byte("a\x00b\x00"), []byte("b\x00a\x00"), 1)
	if err := Verify(swapped); err == nil || !strings.Contains(err.Error(), "does not sort") {
		t.Errorf("unsorted keys: %v", err)
	}
	// Keys and values of different counts.
	mp, _ := RootMap(buf)
	lens := slices.Clone(buf)
	lens[mp.keys.pos-1] = 1 // the keys vector's size field
	if _, err := RootMap(lens); err == nil || !strings.Contains(err.Error(), "1 keys and 2 values") {
		t.Errorf("count mismatch: %v", err)
	}
}

// TestDepthAndBudget: nesting beyond MaxDepth and shared subtrees that
// would take exponential time to walk are refused.
func TestDepthAndBudget(t *testing.T) {
	var b Builder
	var handles []int
	for i := 0; i <= MaxDepth+1; i++ {
		handles = append(handles, b.StartVector())
	}
	b.Int(1)
	for i := len(handles) - 1; i >= 0; i-- {
		b.EndVector(handles[i], false, false)
	}
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(buf); err == nil || !strings.Contains(err.Error(), "nest deeper") {
		t.Errorf("deep nesting: %v", err)
	}

	// Vectors of two elements that both point at the previous vector: 40
	// levels describe 2^40 leaves in a few hundred bytes.
	buf = []byte{1, 0x04} // an int (unused filler)
	prev := -1
	for level := 0; level < 40; level++ {
		// size 2, two offsets to prev, two type bytes (vector, width 1).
		pos := len(buf) + 1
		if prev < 0 {
			buf = append(buf, 2, 1, 2, 4, 4) // [1, 2]
		} else {
			buf = append(buf, 2, byte(pos-prev), byte(pos+1-prev), 40, 40)
		}
		prev = pos
	}
	buf = append(buf, byte(len(buf)-prev), 40, 1)
	if err := Verify(buf); !errors.Is(err, ErrBudget) {
		t.Errorf("shared subtrees: %v, want ErrBudget", err)
	}
	readAll(buf)
}

func TestTypeNames(t *testing.T) {
	for ty := Type(0); ty < 64; ty++ {
		if s := ty.String(); ty.Valid() == strings.HasPrefix(s, "type(") {
			t.Errorf("Type(%d).String() = %q, Valid %v", ty, s, ty.Valid())
		}
	}
}

// FuzzRead feeds arbitrary bytes to every accessor; run it with
// go test -fuzz=FuzzRead ./internal/flexbuffers.
func FuzzRead(f *testing.F) {
	f.Add(sample())
	f.Add([]byte{13, 4, 1})
	f.Add([]byte{'b', 'a', 'r', 0, 'f', 'o', 'o', 0, 2, 9, 6, 2, 1, 2, 14, 13, 4, 4, 4, 36, 1})
	f.Fuzz(func(t *testing.T, buf []byte) {
		readAll(buf)
		// What Verify accepts, the accessors read without error.
		if Verify(buf) == nil {
			r, _ := Root(buf)
			if err := readClean(r, 0); err != nil {
				t.Fatalf("Verify accepted the buffer, but %v", err)
			}
		}
	})
}

// readClean reads what Verify checked (without conversions that may fail
// on valid data, such as a huge float as an int) and returns the first
// error.
func readClean(v Value, depth int) error {
	if depth > 4 {
		return nil
	}
	switch t := v.Type(); {
	case t == TypeKey:
		_, err := v.AsKey()
		return err
	case t == TypeString, t == TypeBlob:
		_, err := v.AsBlob()
		return err
	case t == TypeMap:
		m, err := v.AsMap()
		if err != nil {
			return err
		}
		for i := 0; i < m.Len() && i < 8; i++ {
			k, err := m.Key(i)
			if err != nil {
				return err
			}
			e, err := m.Get(k)
			if err != nil {
				return err
			}
			if e2, _ := m.Value(i); e.pos != e2.pos {
				return fmt.Errorf("key %q: lookup found offset %d, entry %d is at %d", k, e.pos, i, e2.pos)
			}
			if err := readClean(e, depth+1); err != nil {
				return err
			}
		}
	case t.typedVector(), t.fixedVector(), t == TypeVector:
		vec, err := v.AsVector()
		if err != nil {
			return err
		}
		for i := 0; i < vec.Len() && i < 8; i++ {
			e, err := vec.At(i)
			if err != nil {
				return err
			}
			if err := readClean(e, depth+1); err != nil {
				return err
			}
		}
	case t == TypeFloat, t == TypeIndirectFloat:
		_, err := v.AsFloat()
		return err
	default:
		_, err := v.AsUint()
		return err
	}
	return nil
}
