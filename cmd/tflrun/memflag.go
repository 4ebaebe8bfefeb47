package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/interpreter"
)

// memoryFlag is the value of --max-memory: the interpreter's memory bound
// (interpreter.Options.MaxArenaBytes), which tflrun also applies to the
// input files it reads and the images it decodes.
type memoryFlag struct {
	bytes int64 // 0: the interpreter's default; -1: no bound
}

// memoryFlagUsage is the help text of --max-memory.
const memoryFlagUsage = "bound the memory for tensors (arena, variables, precomputed), input files and decoded images: bytes or a size such as 512MiB, 2GiB, 1.5GB; 'none' for no bound (default: the interpreter's, 2 GiB on 64-bit systems)"

// sizeUnits are the suffixes parseSize accepts, lower-case: IEC binary
// units, SI decimal units, and single letters as binary units (as ulimit
// and most tools read them).
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
}

// parseSize reads a byte count: a non-negative number (decimals allowed
// with a unit) and an optional unit from sizeUnits, any case, optionally
// separated by a space ("512MiB", "2 GiB", "1.5GB", "1048576").
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("%q is not a size (want bytes or a number with B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)", s)
	}
	if unit == "" || unit == "b" {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number of bytes", s)
		}
		return n, nil
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	b := v * mult
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(b), nil
}

// Set parses a size or "none".
func (m *memoryFlag) Set(s string) error {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		m.bytes = -1
		return nil
	}
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("a bound of 0 bytes leaves nothing to run in (use 'none' for no bound)")
	}
	m.bytes = n
	return nil
}

// String prints the value as set ("" for the default).
func (m *memoryFlag) String() string {
	switch {
	case m == nil || m.bytes == 0:
		return ""
	case m.bytes < 0:
		return "none"
	}
	return strconv.FormatInt(m.bytes, 10)
}

// options returns the interpreter options for the bound.
func (m *memoryFlag) options() *interpreter.Options {
	return &interpreter.Options{MaxArenaBytes: m.bytes}
}

// limit is the bound in bytes (-1 for none).
func (m *memoryFlag) limit() int64 {
	if m.bytes == 0 {
		return interpreter.DefaultMaxArenaBytes
	}
	return m.bytes
}

// describe says what the bound is, for error messages.
func (m *memoryFlag) describe() string {
	if m.bytes == 0 {
		return fmt.Sprintf("the default memory bound of %d bytes (--max-memory)", interpreter.DefaultMaxArenaBytes)
	}
	return fmt.Sprintf("the --max-memory bound of %d bytes", m.bytes)
}
