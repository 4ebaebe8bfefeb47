package cli

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// testTree is a root with one subcommand "run" taking a MODEL and a few
// flags of every kind; it records what Run saw.
type testTree struct {
	root    *Command
	model   []string
	out     string
	inputs  []string
	arrays  []string
	n       int
	verbose bool
	ran     bool
	changed []string
}

func newTestTree() *testTree {
	tt := &testTree{}
	f := NewFlagSet()
	run := &Command{
		Name: "run", Usage: "run MODEL [flags]", Short: "run a model", Long: "Run runs a model.",
		Flags: f,
		Args: func(args []string) error {
			if len(args) != 1 {
				return UsageErrorf("run takes one MODEL, got %d", len(args))
			}
			return nil
		},
		Run: func(args []string) error {
			tt.ran, tt.model = true, args
			f.Visit(func(name string) { tt.changed = append(tt.changed, name) })
			return nil
		},
	}
	f.StringVarP(&tt.out, "output", "o", "out.tflite", "file to write")
	f.StringArrayVar(&tt.inputs, "input", nil, "NAME=FILE (repeatable)")
	f.StringSliceVar(&tt.arrays, "arrays", []string{"x"}, "comma-separated names")
	f.IntVar(&tt.n, "num_runs", 50, "runs")
	f.BoolVar(&tt.verbose, "verbose", false, "say more")
	tt.root = &Command{Name: "prog", Usage: "prog [command]", Long: "Prog does things."}
	tt.root.Add(run)
	return tt
}

func TestParseMixedFlagsAndArgs(t *testing.T) {
	for _, c := range []struct {
		args    []string
		model   []string
		out     string
		inputs  []string
		arrays  []string
		n       int
		verbose bool
		changed []string
	}{
		{[]string{"run", "m.tflite"}, []string{"m.tflite"}, "out.tflite", nil, []string{"x"}, 50, false, nil},
		{[]string{"run", "m.tflite", "--num_runs", "3", "--verbose"}, []string{"m.tflite"}, "out.tflite", nil, []string{"x"}, 3, true, []string{"num_runs", "verbose"}},
		{[]string{"run", "--num_runs=3", "m.tflite", "-verbose=true"}, []string{"m.tflite"}, "out.tflite", nil, []string{"x"}, 3, true, []string{"num_runs", "verbose"}},
		{[]string{"run", "-o", "a.tflite", "m"}, []string{"m"}, "a.tflite", nil, []string{"x"}, 50, false, []string{"output"}},
		{[]string{"run", "m", "--output=b.tflite"}, []string{"m"}, "b.tflite", nil, []string{"x"}, 50, false, []string{"output"}},
		{[]string{"run", "m", "--input", "a=1,2", "--input=b=3"}, []string{"m"}, "out.tflite", []string{"a=1,2", "b=3"}, []string{"x"}, 50, false, []string{"input"}},
		{[]string{"run", "m", "--arrays", "p,q", "--arrays=r"}, []string{"m"}, "out.tflite", nil, []string{"p", "q", "r"}, 50, false, []string{"arrays"}},
		{[]string{"run", "--", "--verbose"}, []string{"--verbose"}, "out.tflite", nil, []string{"x"}, 50, false, nil},
		{[]string{"run", "-", "--verbose=false"}, []string{"-"}, "out.tflite", nil, []string{"x"}, 50, false, []string{"verbose"}},
	} {
		tt := newTestTree()
		var out bytes.Buffer
		if err := tt.root.Execute(c.args, &out); err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		got := []any{tt.model, tt.out, tt.inputs, tt.arrays, tt.n, tt.verbose, tt.changed}
		want := []any{c.model, c.out, c.inputs, c.arrays, c.n, c.verbose, c.changed}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %v, want %v", c.args, got, want)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "m", "--nope"}, "unknown flag --nope"},
		{[]string{"run", "m", "--num_runs", "many"}, `invalid value "many" for flag --num_runs`},
		{[]string{"run", "m", "--num_runs"}, "flag needs an argument: --num_runs"},
		{[]string{"run"}, "run takes one MODEL, got 0"},
		{[]string{"frob"}, `unknown command "frob" for "prog"`},
		{[]string{"help", "frob"}, `unknown help topic "frob"`},
	} {
		tt := newTestTree()
		err := tt.root.Execute(c.args, &bytes.Buffer{})
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want a UsageError with %q", c.args, err, c.want)
		}
		if tt.ran {
			t.Errorf("%q: ran despite the error", c.args)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {}} {
		tt := newTestTree()
		var out bytes.Buffer
		if err := tt.root.Execute(args, &out); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		for _, want := range []string{"Prog does things.", "Available Commands:\n  run  run a model\n", `Use "prog [command] --help"`} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: help lacks %q:\n%s", args, want, out.String())
			}
		}
	}
	for _, args := range [][]string{{"run", "--help"}, {"help", "run"}, {"run", "m", "-h"}} {
		tt := newTestTree()
		var out bytes.Buffer
		if err := tt.root.Execute(args, &out); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if tt.ran {
			t.Errorf("%q: ran instead of printing help", args)
		}
		for _, want := range []string{
			"Run runs a model.\n\nUsage:\n  prog run MODEL [flags]\n",
			"      --arrays strings   comma-separated names (default x)\n",
			"  -o, --output string    file to write (default \"out.tflite\")\n",
			"      --num_runs int     runs (default 50)\n",
			"      --input strings    NAME=FILE (repeatable)\n",
			"      --verbose          say more\n",
			"  -h, --help             help for run\n",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: help lacks %q:\n%s", args, want, out.String())
			}
		}
	}
}
