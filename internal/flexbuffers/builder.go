package flexbuffers

import (
	"encoding/binary"
	"math"
	"sort"
)

// Builder writes a FlexBuffer front to back, children before parents, as
// the format's reference builders do: scalars and keys are pushed onto a
// stack, EndVector and EndMap replace a container's entries by the
// container, and Finish writes the root. Every container takes the
// smallest width (1, 2, 4 or 8 bytes) its size, inline scalars and
// offsets fit. Errors of use (a key outside a map, unbalanced containers)
// are reported by Finish. The zero value is ready to use.
type Builder struct {
	buf   []byte
	stack []entry
	open  []int // stack positions of the open containers
	err   error
}

// entry is a value on the builder's stack: an inline scalar, or the
// position of something already written (an offset's target) with its
// width.
type entry struct {
	typ   Type
	i     int64
	u     uint64
	f     float64
	pos   int // target position, for values behind an offset
	width int // inline: bytes the value needs; others: the target's width
	key   string
}

func (b *Builder) fail(msg string) {
	if b.err == nil {
		b.err = errorf("builder: %s", msg)
	}
}

// widthU is the smallest width holding u.
func widthU(u uint64) int {
	switch {
	case u <= math.MaxUint8:
		return 1
	case u <= math.MaxUint16:
		return 2
	case u <= math.MaxUint32:
		return 4
	}
	return 8
}

// widthI is the smallest width holding i as a signed integer.
func widthI(i int64) int {
	u := uint64(i) << 1
	if i < 0 {
		u = ^u
	}
	return widthU(u)
}

// widthF is 4 when f survives a round trip through float32, else 8.
func widthF(f float64) int {
	if float64(float32(f)) == f || math.IsNaN(f) {
		return 4
	}
	return 8
}

func (b *Builder) push(e entry) { b.stack = append(b.stack, e) }

// Null pushes a null.
func (b *Builder) Null() { b.push(entry{typ: TypeNull, width: 1}) }

// Int pushes a signed integer.
func (b *Builder) Int(i int64) { b.push(entry{typ: TypeInt, i: i, width: widthI(i)}) }

// Uint pushes an unsigned integer.
func (b *Builder) Uint(u uint64) { b.push(entry{typ: TypeUint, u: u, width: widthU(u)}) }

// Bool pushes a bool.
func (b *Builder) Bool(v bool) {
	var u uint64
	if v {
		u = 1
	}
	b.push(entry{typ: TypeBool, u: u, width: 1})
}

// Float32 pushes a float stored in (at least) 4 bytes.
func (b *Builder) Float32(f float32) { b.push(entry{typ: TypeFloat, f: float64(f), width: 4}) }

// Float64 pushes a float stored in 4 bytes when float32 holds it exactly,
// else 8.
func (b *Builder) Float64(f float64) { b.push(entry{typ: TypeFloat, f: f, width: widthF(f)}) }

// align pads the buffer with zeros to a multiple of w.
func (b *Builder) align(w int) {
	for len(b.buf)%w != 0 {
		b.buf = append(b.buf, 0)
	}
}

func (b *Builder) writeUint(u uint64, w int) {
	var tmp [8]byte
	binary.LittleEndian.PutUint64(tmp[:], u)
	b.buf = append(b.buf, tmp[:w]...)
}

// IndirectInt writes i out of line and pushes an offset to it.
func (b *Builder) IndirectInt(i int64) {
	w := widthI(i)
	b.align(w)
	pos := len(b.buf)
	b.writeUint(uint64(i), w)
	b.push(entry{typ: TypeIndirectInt, pos: pos, width: w})
}

// IndirectUint writes u out of line and pushes an offset to it.
func (b *Builder) IndirectUint(u uint64) {
	w := widthU(u)
	b.align(w)
	pos := len(b.buf)
	b.writeUint(u, w)
	b.push(entry{typ: TypeIndirectUint, pos: pos, width: w})
}

// IndirectFloat64 writes f out of line (4 or 8 bytes, as Float64) and
// pushes an offset to it.
func (b *Builder) IndirectFloat64(f float64) {
	w := widthF(f)
	b.align(w)
	pos := len(b.buf)
	b.writeFloat(f, w)
	b.push(entry{typ: TypeIndirectFloat, pos: pos, width: w})
}

func (b *Builder) writeFloat(f float64, w int) {
	if w == 4 {
		b.writeUint(uint64(math.Float32bits(float32(f))), 4)
		return
	}
	b.writeUint(math.Float64bits(f), 8)
}

// sized writes a size field and the bytes of a string or blob.
func (b *Builder) sized(typ Type, data []byte, terminate bool) {
	w := widthU(uint64(len(data)))
	b.align(w)
	b.writeUint(uint64(len(data)), w)
	pos := len(b.buf)
	b.buf = append(b.buf, data...)
	if terminate {
		b.buf = append(b.buf, 0)
	}
	b.push(entry{typ: typ, pos: pos, width: w})
}

// String pushes a string (written with its size and a terminating zero).
func (b *Builder) String(s string) { b.sized(TypeString, []byte(s), true) }

// Blob pushes a blob of bytes.
func (b *Builder) Blob(data []byte) { b.sized(TypeBlob, data, false) }

// Key pushes a map key; inside a map, every value follows its key. A key
// cannot hold a zero byte.
func (b *Builder) Key(s string) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			b.fail("key holds a zero byte")
			return
		}
	}
	pos := len(b.buf)
	b.buf = append(b.buf, s...)
	b.buf = append(b.buf, 0)
	b.push(entry{typ: TypeKey, pos: pos, width: 1, key: s})
}

// StartVector opens a vector; its elements are the values pushed until
// the matching EndVector, which takes the returned handle.
func (b *Builder) StartVector() int {
	b.open = append(b.open, len(b.stack))
	return len(b.stack)
}

// StartMap opens a map; push key, value, key, value… and close it with
// EndMap (keys may come in any order; EndMap sorts them).
func (b *Builder) StartMap() int { return b.StartVector() }

func (b *Builder) close(start int) bool {
	if len(b.open) == 0 || b.open[len(b.open)-1] != start {
		b.fail("container closed out of order")
		return false
	}
	b.open = b.open[:len(b.open)-1]
	return true
}

// EndVector closes the vector opened at start. typed writes a typed
// vector (all elements of one scalar or key type, no type bytes); fixed,
// with typed, writes a fixed-length typed vector (2 to 4 ints, uints or
// floats, no size field).
func (b *Builder) EndVector(start int, typed, fixed bool) {
	if !b.close(start) {
		return
	}
	n := len(b.stack) - start
	if fixed && (!typed || n < 2 || n > 4) {
		b.fail("a fixed vector must be typed and hold 2 to 4 elements")
		return
	}
	v := b.vector(start, n, 1, typed, fixed, nil)
	b.stack = append(b.stack[:start], v)
}

// EndMap closes the map opened at start.
func (b *Builder) EndMap(start int) {
	if !b.close(start) {
		return
	}
	ents := b.stack[start:]
	if len(ents)%2 != 0 {
		b.fail("map has a key without a value")
		return
	}
	n := len(ents) / 2
	pairs := make([][2]entry, n)
	for i := range pairs {
		pairs[i] = [2]entry{ents[2*i], ents[2*i+1]}
		if pairs[i][0].typ != TypeKey {
			b.fail("map entry without a key")
			return
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i][0].key < pairs[j][0].key })
	for i := range pairs {
		if i > 0 && pairs[i][0].key == pairs[i-1][0].key {
			b.fail("map key " + pairs[i][0].key + " repeats")
			return
		}
		ents[2*i], ents[2*i+1] = pairs[i][0], pairs[i][1]
	}
	keys := b.vector(start, n, 2, true, false, nil)
	vals := b.vector(start+1, n, 2, false, false, &keys)
	b.stack = append(b.stack[:start], vals)
}

// slotWidth is the width e needs in a slot at index idx of a container
// that starts (after padding to the width tried) at the buffer's end: its
// own width when inline, else the smallest width its backward offset fits.
func (b *Builder) slotWidth(e entry, idx int) int {
	if e.typ.inline() {
		return e.width
	}
	for w := 1; w <= 8; w *= 2 {
		start := (len(b.buf) + w - 1) / w * w
		off := uint64(start + idx*w - e.pos)
		if widthU(off) <= w {
			return w
		}
	}
	return 8
}

// packedType is e's type byte in a container of width w.
func packedType(e entry, w int) byte {
	sw := e.width
	if e.typ.inline() && w > sw {
		sw = w
	}
	lg := byte(0)
	for 1<<lg < sw {
		lg++
	}
	return byte(e.typ)<<2 | lg
}

// writeSlot writes e into a slot of width w.
func (b *Builder) writeSlot(e entry, w int) {
	switch e.typ {
	case TypeNull:
		b.writeUint(0, w)
	case TypeInt:
		b.writeUint(uint64(e.i), w)
	case TypeUint, TypeBool:
		b.writeUint(e.u, w)
	case TypeFloat:
		b.writeFloat(e.f, w)
	default:
		b.writeUint(uint64(len(b.buf)-e.pos), w)
	}
}

// vector writes the n entries at stack[start], stack[start+step], … as a
// vector (a map's values when keys is set) and returns its entry.
func (b *Builder) vector(start, n, step int, typed, fixed bool, keys *entry) entry {
	w := widthU(uint64(n))
	prefix := 1
	if keys != nil {
		if kw := b.slotWidth(*keys, 0); kw > w {
			w = kw
		}
		prefix = 3
	}
	elem := TypeNull
	for j := 0; j < n; j++ {
		e := b.stack[start+j*step]
		if sw := b.slotWidth(e, j+prefix); sw > w {
			w = sw
		}
		if typed {
			ok := e.typ == TypeInt || e.typ == TypeUint || e.typ == TypeFloat || (!fixed && (e.typ == TypeKey || e.typ == TypeBool))
			if !ok || (j > 0 && e.typ != elem) {
				b.fail("typed vector elements must share one int, uint, float, bool or key type")
				return entry{typ: TypeNull, width: 1}
			}
			elem = e.typ
		}
	}
	b.align(w)
	if keys != nil {
		b.writeSlot(*keys, w)
		b.writeUint(uint64(keys.width), w)
	}
	if !fixed {
		b.writeUint(uint64(n), w)
	}
	pos := len(b.buf)
	for j := 0; j < n; j++ {
		b.writeSlot(b.stack[start+j*step], w)
	}
	typ := TypeVector
	switch {
	case keys != nil:
		typ = TypeMap
	case typed && fixed:
		typ = elem - TypeInt + TypeVectorInt2 + Type(3*(n-2))
	case typed && elem == TypeBool:
		typ = TypeVectorBool
	case typed:
		typ = elem - TypeInt + TypeVectorInt
	}
	if !typed {
		for j := 0; j < n; j++ {
			b.buf = append(b.buf, packedType(b.stack[start+j*step], w))
		}
	}
	return entry{typ: typ, pos: pos, width: w}
}

// Finish writes the root (the one value left on the stack) and returns
// the buffer, or the first error of use.
func (b *Builder) Finish() ([]byte, error) {
	if b.err != nil {
		return nil, b.err
	}
	if len(b.open) != 0 || len(b.stack) != 1 {
		return nil, errorf("builder: Finish needs exactly one root value and no open container (have %d values, %d open)", len(b.stack), len(b.open))
	}
	root := b.stack[0]
	w := b.slotWidth(root, 0)
	b.align(w)
	b.writeSlot(root, w)
	b.buf = append(b.buf, packedType(root, 1), byte(w))
	return b.buf, nil
}
