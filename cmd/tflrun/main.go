// Command tflrun runs, benchmarks and inspects TensorFlow Lite models with
// tflrun's pure-Go interpreter.
//
//	tflrun run MODEL [--input NAME|INDEX=FILE]... [--output-dir DIR] [--json] [--max-memory SIZE] ...
//	tflrun bench [MODEL] [--num_runs N] [--warmup_runs N] [--min_secs S] ... (benchmark_model's flags)
//	tflrun inspect MODEL [--json] [--max-memory SIZE]
//	tflrun convert SAVED_MODEL_DIR|GRAPH.pb|GRAPH.pbtxt -o OUT.tflite ...
//	tflrun cpu [--json] [--levels] [--isa LEVEL]
//	tflrun version
//
// Errors are printed to stderr as "tflrun: <message>"; the exit code is 1
// for a failure and 2 for a usage error (unknown command or flag, wrong
// number of arguments, malformed flag value). Flags follow the standard
// flag package's syntax (--name=value, --name value, -name), anywhere on
// the line; `tflrun COMMAND --help` lists a command's flags.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks an error in how tflrun was called (exit code 2).
type usageError = cli.UsageError

func usageErrorf(format string, args ...any) error {
	return cli.UsageErrorf(format, args...)
}

// execute runs tflrun with args, writing to stdout and stderr, and
// returns the process exit code.
func execute(args []string, stdout, stderr io.Writer) int {
	warnISA(stderr) // a bad TFLRUN_ISA falls back to the best level
	root := newRootCmd(stdout, stderr)
	err := root.Execute(args, stdout)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "tflrun: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "Run 'tflrun --help' for usage.\n")
		return 2
	}
	return 1
}

func newRootCmd(stdout, stderr io.Writer) *cli.Command {
	root := &cli.Command{
		Name:  "tflrun",
		Usage: "tflrun [command]",
		Short: "Run, benchmark and inspect TensorFlow Lite models in pure Go",
		Long: `tflrun runs TensorFlow Lite (.tflite) models with a pure-Go interpreter
whose fused recurrent kernels (LSTM, RNN, GRU, SVDF) follow TensorFlow Lite's
semantics exactly.`,
	}
	root.Args = func(args []string) error {
		if len(args) > 0 {
			return usageErrorf("unknown command %q", args[0])
		}
		return nil
	}
	root.Run = func(args []string) error {
		root.WriteHelp(stderr)
		return usageErrorf("no command given")
	}
	root.Add(newRunCmd(stdout, stderr), newBenchCmd(stdout, stderr), newInspectCmd(stdout), newVersionCmd(stdout), newCPUCmd(stdout, stderr))
	root.Add(newConvertCmd(stdout, stderr))
	return root
}

// exactArgs checks for exactly n positional arguments, with a usage error
// naming the command path and what it takes.
func exactArgs(path string, n int, what string) func([]string) error {
	return func(args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %s, got %d argument(s)", path, what, len(args))
		}
		return nil
	}
}
