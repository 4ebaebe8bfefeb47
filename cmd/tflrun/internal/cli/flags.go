package cli

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// FlagSet is a command's flags: a flag.FlagSet that parses flags mixed
// with positional arguments and knows one-letter aliases.
type FlagSet struct {
	fs *flag.FlagSet
	// short maps a long name to its one-letter alias.
	short map[string]string
	alias map[string]bool // names that are aliases
}

// NewFlagSet returns an empty flag set. Its errors are returned by Parse,
// never printed.
func NewFlagSet() *FlagSet {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &FlagSet{fs: fs, short: map[string]string{}, alias: map[string]bool{}}
}

// Parse parses args, in which flags and positional arguments may be
// mixed, and returns the positional ones in order. "--" ends the flags:
// everything after it is positional. The error is flag.ErrHelp for -h or
// --help (unless the set defines them), else a message in the
// double-dash spelling ("unknown flag --x", `invalid value "many" for
// flag --num_runs: ...`).
func (f *FlagSet) Parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.fs.Parse(args); err != nil {
			return nil, rewordError(err)
		}
		rest := f.fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// rewordError turns the flag package's single-dash messages into the
// double-dash spelling tflrun documents.
func rewordError(err error) error {
	if err == flag.ErrHelp {
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Errorf("unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Errorf("flag needs an argument: --%s", name)
	}
	if strings.HasPrefix(msg, "invalid ") {
		return fmt.Errorf("%s", strings.Replace(msg, " for flag -", " for flag --", 1))
	}
	return err
}

// Changed reports whether the flag name (long or alias) was set on the
// command line.
func (f *FlagSet) Changed(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name == name || f.short[name] == fl.Name || f.short[fl.Name] == name {
			set = true
		}
	})
	return set
}

// Visit calls fn with the long name of every flag set on the command
// line, in lexical order.
func (f *FlagSet) Visit(fn func(name string)) {
	seen := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) {
		name := fl.Name
		if f.alias[name] {
			for long, s := range f.short {
				if s == name {
					name = long
				}
			}
		}
		if !seen[name] {
			seen[name] = true
			fn(name)
		}
	})
}

// Var defines a flag with a flag.Value.
func (f *FlagSet) Var(v flag.Value, name, usage string) { f.fs.Var(v, name, usage) }

// VarP defines a flag with a one-letter alias.
func (f *FlagSet) VarP(v flag.Value, name, short, usage string) {
	f.fs.Var(v, name, usage)
	if short != "" {
		f.fs.Var(v, short, usage)
		f.short[name] = short
		f.alias[short] = true
	}
}

// StringVar defines a string flag.
func (f *FlagSet) StringVar(p *string, name, def, usage string) { f.fs.StringVar(p, name, def, usage) }

// StringVarP defines a string flag with a one-letter alias ("-o").
func (f *FlagSet) StringVarP(p *string, name, short, def, usage string) {
	*p = def
	f.VarP((*stringValue)(p), name, short, usage)
}

// BoolVar defines a boolean flag.
func (f *FlagSet) BoolVar(p *bool, name string, def bool, usage string) {
	f.fs.BoolVar(p, name, def, usage)
}

// IntVar defines an int flag.
func (f *FlagSet) IntVar(p *int, name string, def int, usage string) {
	f.fs.IntVar(p, name, def, usage)
}

// Uint64Var defines a uint64 flag.
func (f *FlagSet) Uint64Var(p *uint64, name string, def uint64, usage string) {
	f.fs.Uint64Var(p, name, def, usage)
}

// Float64Var defines a float64 flag.
func (f *FlagSet) Float64Var(p *float64, name string, def float64, usage string) {
	f.fs.Float64Var(p, name, def, usage)
}

// StringArrayVar defines a repeatable string flag: each use appends its
// value as is (commas included).
func (f *FlagSet) StringArrayVar(p *[]string, name string, def []string, usage string) {
	*p = def
	f.fs.Var(&arrayValue{p: p}, name, usage)
}

// StringSliceVar defines a repeatable flag of comma-separated strings:
// each use appends the values it lists ("--x a,b --x c" is a, b, c).
func (f *FlagSet) StringSliceVar(p *[]string, name string, def []string, usage string) {
	*p = def
	f.fs.Var(&arrayValue{p: p, split: true}, name, usage)
}

type stringValue string

func (s *stringValue) Set(v string) error { *s = stringValue(v); return nil }
func (s *stringValue) String() string     { return string(*s) }

// arrayValue collects the values of a repeated flag; the default is
// replaced by the first use.
type arrayValue struct {
	p     *[]string
	split bool
	set   bool
}

func (a *arrayValue) Set(v string) error {
	if !a.set {
		*a.p = nil
		a.set = true
	}
	if a.split {
		*a.p = append(*a.p, strings.Split(v, ",")...)
	} else {
		*a.p = append(*a.p, v)
	}
	return nil
}

func (a *arrayValue) String() string {
	if a == nil || a.p == nil {
		return ""
	}
	return strings.Join(*a.p, ",")
}

// writeDefaults prints one line per flag: "  -o, --output string  usage
// (default ...)", sorted by name, with -h, --help last.
func (f *FlagSet) writeDefaults(w io.Writer, cmdName string) {
	type line struct{ names, usage string }
	var lines []line
	f.fs.VisitAll(func(fl *flag.Flag) {
		if f.alias[fl.Name] {
			return
		}
		typ, usage := flag.UnquoteUsage(fl)
		names := "    --" + fl.Name
		if s := f.short[fl.Name]; s != "" {
			names = "-" + s + ", --" + fl.Name
		}
		if _, isArray := fl.Value.(*arrayValue); isArray {
			typ = "strings"
		}
		if _, isStr := fl.Value.(*stringValue); isStr {
			typ = "string"
		}
		if typ != "" {
			names += " " + typ
		}
		if def := fl.DefValue; !isZeroDefault(def) {
			if typ == "string" {
				def = strconv.Quote(def)
			}
			usage += " (default " + def + ")"
		}
		lines = append(lines, line{names, usage})
	})
	sort.SliceStable(lines, func(i, j int) bool {
		return strings.TrimLeft(lines[i].names, " -") < strings.TrimLeft(lines[j].names, " -")
	})
	lines = append(lines, line{"-h, --help", "help for " + cmdName})
	width := 0
	for _, l := range lines {
		width = max(width, len(l.names))
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s   %s\n", width, l.names, l.usage)
	}
}

// isZeroDefault reports whether a default value reads as the zero value
// of its flag's type, which the help leaves unsaid (as flag.PrintDefaults
// does).
func isZeroDefault(def string) bool {
	switch def {
	case "", "false", "0", "[]":
		return true
	}
	return false
}
