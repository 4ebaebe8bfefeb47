package signal

// fifo is a first-in first-out queue of int16 samples of fixed capacity:
// the behaviour of TFLite Micro's CircularBuffer (signal/src/
// circular_buffer.cc) as the Delay, Framer and Stacker kernels use it
// (write, write zeros, extend, get, discard), on a plain ring. Callers
// keep within capacity (their Prepare proves it); the checks here only
// turn a broken invariant into a short write rather than memory
// corruption.
type fifo struct {
	buf        []int16
	read, size int
}

func newFifo(capacity int) fifo { return fifo{buf: make([]int16, capacity)} }

func (f *fifo) reset() { f.read, f.size = 0, 0; clear(f.buf) }

func (f *fifo) available() int { return f.size }

// write appends vals.
func (f *fifo) write(vals []int16) {
	c := len(f.buf)
	if len(vals) > c-f.size {
		vals = vals[:c-f.size]
	}
	w := (f.read + f.size) % max(c, 1)
	n := copy(f.buf[w:], vals)
	copy(f.buf, vals[n:])
	f.size += len(vals)
}

// writeZeros appends n zeros.
func (f *fifo) writeZeros(n int) {
	c := len(f.buf)
	n = min(n, c-f.size)
	for i := 0; i < n; i++ {
		f.buf[(f.read+f.size+i)%c] = 0
	}
	f.size += n
}

// extend appends the last count values written n more times
// (CircularBufferExtend).
func (f *fifo) extend(count, n int) {
	c := len(f.buf)
	if count <= 0 || count > f.size {
		return
	}
	start := f.read + f.size - count
	for k := 0; k < n && f.size+count <= c; k++ {
		for i := 0; i < count; i++ {
			f.buf[(f.read+f.size+i)%c] = f.buf[(start+i)%c]
		}
		f.size += count
	}
}

// get copies the first len(dst) values without removing them.
func (f *fifo) get(dst []int16) {
	c := len(f.buf)
	for i := range dst[:min(len(dst), f.size)] {
		dst[i] = f.buf[(f.read+i)%c]
	}
}

// discard removes the first n values.
func (f *fifo) discard(n int) {
	n = min(n, f.size)
	f.read = (f.read + n) % max(len(f.buf), 1)
	f.size -= n
}
