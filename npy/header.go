package npy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// header is the decoded header dict.
type header struct {
	descr   string
	fortran bool
	shape   []int
}

// parseHeader decodes the header text: a Python dict literal with exactly
// the keys 'descr' (a string), 'fortran_order' (True or False) and 'shape'
// (a tuple — or list — of non-negative integers), in any order, followed
// by optional padding whitespace. It is a small recursive-descent parser
// for just that subset of Python literals, so no untrusted text is ever
// evaluated.
func parseHeader(text string) (header, error) {
	p := &parser{s: text}
	var h header
	seen := map[string]bool{}
	p.space()
	if !p.eat('{') {
		return h, p.errorf("header does not start with '{'")
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		p.space()
		if !p.eat(':') {
			return h, p.errorf("expected ':' after key %q", key)
		}
		p.space()
		if seen[key] {
			return h, p.errorf("key %q appears twice", key)
		}
		seen[key] = true
		switch key {
		case "descr":
			if p.peek() != '\'' && p.peek() != '"' {
				return h, p.errorf("unsupported dtype: 'descr' is not a plain type string (structured dtypes are not supported)")
			}
			h.descr, err = p.str()
		case "fortran_order":
			h.fortran, err = p.boolean()
		case "shape":
			h.shape, err = p.tuple()
		default:
			return h, p.errorf("unexpected key %q (a .npy header has only 'descr', 'fortran_order' and 'shape')", key)
		}
		if err != nil {
			return h, err
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if p.eat('}') {
			break
		}
		return h, p.errorf("expected ',' or '}'")
	}
	p.space()
	if p.i != len(p.s) {
		return h, p.errorf("unexpected text after the header dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("npy: header has no %q key", k)
		}
	}
	return h, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("npy: malformed header at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) eat(c byte) bool {
	if p.peek() == c && p.i < len(p.s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// str parses a single- or double-quoted string without escapes (NumPy's
// dtype strings never contain any).
func (p *parser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("expected a quoted string")
	}
	p.i++
	j := strings.IndexByte(p.s[p.i:], q)
	if j < 0 {
		return "", p.errorf("unterminated string")
	}
	v := p.s[p.i : p.i+j]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", p.errorf("escapes in strings are not supported")
	}
	p.i += j + 1
	return v, nil
}

func (p *parser) boolean() (bool, error) {
	switch {
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	}
	return false, p.errorf("'fortran_order' must be True or False")
}

// tuple parses "()", "(n,)", "(a, b, c)" (or the same in brackets) into
// non-negative ints. A Python 2 long suffix ("3L") is accepted.
func (p *parser) tuple() ([]int, error) {
	var closer byte
	switch {
	case p.eat('('):
		closer = ')'
	case p.eat('['):
		closer = ']'
	default:
		return nil, p.errorf("'shape' must be a tuple of integers")
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(closer) {
			return shape, nil
		}
		start := p.i
		for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '-' && p.i == start) {
			p.i++
		}
		if p.i == start {
			return nil, p.errorf("'shape' must be a tuple of integers")
		}
		v, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
		if err != nil || v > math.MaxInt32 {
			return nil, p.errorf("shape dimension %q is out of range", p.s[start:p.i])
		}
		if v < 0 {
			return nil, p.errorf("shape dimension %d is negative", v)
		}
		shape = append(shape, int(v))
		p.eat('L')
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		// "(3)" is the int 3 in Python, not a 1-tuple; NumPy never writes
		// it, and accepting it as (3,) is harmless.
		if p.eat(closer) {
			return shape, nil
		}
		return nil, p.errorf("expected ',' or '%c' in shape", closer)
	}
}
