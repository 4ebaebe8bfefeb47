// Package cli is the small command layer of tflrun: subcommands with help
// texts, over the standard library's flag package.
//
// It replaced spf13/cobra and spf13/pflag, whose flag package imports net
// (for its IP flag types); net makes a plain `go build` on Linux link
// dynamically against the C library, and tflrun is meant to be one static
// binary. The standard flag package has no such dependency, and what
// tflrun needs beyond it is small: flags after positional arguments
// ("run MODEL --input x=y"), repeatable and comma-separated string flags,
// one-letter aliases ("-o"), and generated help.
//
// Flag syntax is the flag package's, which covers every spelling tflrun's
// users and TensorFlow Lite's benchmark_model use: -name, --name,
// --name=value and --name value for non-boolean flags, --name and
// --name=true|false|1|0 for boolean ones. Flags and positional arguments
// may be mixed; "--" ends the flags. -h and --help print the command's
// help.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// UsageError marks an error in how the program was called: an unknown
// command or flag, a malformed flag value, a wrong number of arguments.
// Programs exit with status 2 for it (1 for other failures).
type UsageError struct{ Err error }

// Error returns the underlying error's message.
func (e UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e UsageError) Unwrap() error { return e.Err }

// UsageErrorf formats a UsageError.
func UsageErrorf(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// Command is a program or one of its subcommands.
type Command struct {
	// Name is the word that selects the command ("run"); for the root,
	// the program's name.
	Name string
	// Usage is the synopsis after the program name ("run MODEL [flags]").
	Usage string
	// Short is the one-line description in the parent's command list,
	// Long the text at the top of the command's own help.
	Short, Long string
	// Flags are the command's flags (nil: none but -h/--help).
	Flags *FlagSet
	// Args checks the positional arguments before Run; nil accepts any.
	Args func(args []string) error
	// Run runs the command with its positional arguments; nil for a
	// command that only groups subcommands.
	Run func(args []string) error
	// Commands are the subcommands, selected by the first argument.
	Commands []*Command

	parent *Command
}

// Add appends subcommands.
func (c *Command) Add(cmds ...*Command) {
	for _, s := range cmds {
		s.parent = c
		c.Commands = append(c.Commands, s)
	}
}

// Path is the command's name with its parents' ("tflrun run").
func (c *Command) Path() string {
	if c.parent == nil {
		return c.Name
	}
	return c.parent.Path() + " " + c.Name
}

// Execute runs the command tree on args (without the program name),
// writing help to stdout. It selects the subcommand named by the first
// argument (or "help NAME"), parses the flags, checks the positional
// arguments and runs the command. Errors in the call itself are
// UsageErrors; a request for help returns nil after printing it.
func (c *Command) Execute(args []string, stdout io.Writer) error {
	cmd := c
	for len(args) > 0 && len(cmd.Commands) > 0 {
		if args[0] == "help" && cmd == c {
			target := c
			for _, name := range args[1:] {
				sub := target.find(name)
				if sub == nil {
					return UsageErrorf("unknown help topic %q", strings.Join(args[1:], " "))
				}
				target = sub
			}
			target.WriteHelp(stdout)
			return nil
		}
		sub := cmd.find(args[0])
		if sub == nil {
			break
		}
		cmd, args = sub, args[1:]
	}
	fs := cmd.Flags
	if fs == nil {
		fs = NewFlagSet()
	}
	pos, err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		cmd.WriteHelp(stdout)
		return nil
	}
	if err != nil {
		return UsageError{err}
	}
	if cmd.Args != nil {
		if err := cmd.Args(pos); err != nil {
			return err
		}
	} else if len(cmd.Commands) > 0 && len(pos) > 0 {
		return UsageErrorf("unknown command %q for %q", pos[0], cmd.Path())
	}
	if cmd.Run == nil {
		cmd.WriteHelp(stdout)
		return nil
	}
	return cmd.Run(pos)
}

func (c *Command) find(name string) *Command {
	for _, s := range c.Commands {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// WriteHelp prints the command's help: its long description, usage,
// subcommands and flags.
func (c *Command) WriteHelp(w io.Writer) {
	text := c.Long
	if text == "" {
		text = c.Short
	}
	if text != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimRight(text, "\n"))
	}
	fmt.Fprintf(w, "Usage:\n")
	root := c
	for root.parent != nil {
		root = root.parent
	}
	if len(c.Commands) == 0 {
		usage := c.Usage
		if usage == "" {
			usage = c.Name + " [flags]"
		}
		if c.parent != nil {
			fmt.Fprintf(w, "  %s %s\n", root.Name, usage)
		} else {
			fmt.Fprintf(w, "  %s\n", usage)
		}
	}
	if len(c.Commands) > 0 {
		fmt.Fprintf(w, "  %s [command]\n\nAvailable Commands:\n", c.Path())
		subs := append([]*Command(nil), c.Commands...)
		sort.Slice(subs, func(i, j int) bool { return subs[i].Name < subs[j].Name })
		width := 0
		for _, s := range subs {
			width = max(width, len(s.Name))
		}
		for _, s := range subs {
			fmt.Fprintf(w, "  %-*s  %s\n", width, s.Name, s.Short)
		}
	}
	fs := c.Flags
	if fs == nil {
		fs = NewFlagSet()
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.writeDefaults(w, c.Name)
	if len(c.Commands) > 0 {
		fmt.Fprintf(w, "\nUse \"%s [command] --help\" for more information about a command.\n", c.Path())
	}
}
