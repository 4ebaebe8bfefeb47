package main

import (
	"regexp"
	"strings"
)

// formatAsm aligns the operands of Go assembly: within a block of
// instructions (lines between labels, blank lines, comments and
// directives) every mnemonic is padded to the longest one's width plus a
// space, as asmfmt does. Macro invocations (NAME(...)) keep their text and
// do not end a block; #define lines and their continuations are kept as
// they are. Indented lines are indented with one tab, whatever the
// template used.
func formatAsm(src string) string {
	lines := strings.Split(src, "\n")
	var out []string
	var block []int // indices in out of the current block's instructions
	flush := func() {
		w := 0
		for _, i := range block {
			mn, _, _ := strings.Cut(strings.TrimPrefix(out[i], "\t"), " ")
			w = max(w, len(mn))
		}
		for _, i := range block {
			mn, ops, ok := strings.Cut(strings.TrimPrefix(out[i], "\t"), " ")
			if ok {
				out[i] = "\t" + mn + strings.Repeat(" ", w-len(mn)+1) + strings.TrimSpace(ops)
			}
		}
		block = block[:0]
	}
	inDefine := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if t := strings.TrimLeft(l, " \t"); t != l {
			l = "\t" + t
		}
		switch {
		case inDefine || strings.HasPrefix(l, "#"):
			flush()
			inDefine = strings.HasSuffix(l, `\`)
		case macroCall.MatchString(l):
		case instruction.MatchString(l):
			mn, ops, _ := strings.Cut(strings.TrimPrefix(l, "\t"), " ")
			l = "\t" + mn
			if ops = strings.TrimSpace(ops); ops != "" {
				l += " " + ops
			}
			block = append(block, len(out))
		default:
			flush()
		}
		out = append(out, l)
	}
	flush()
	return strings.Join(out, "\n")
}

var (
	macroCall   = regexp.MustCompile(`^\t[A-Z][A-Z0-9_]*\(`)
	instruction = regexp.MustCompile(`^\t[A-Z][A-Z0-9_.]*( |$)`)
)
