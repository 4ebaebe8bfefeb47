package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
)

func newVersionCmd(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "version",
		Short: "Print tflrun's version, the Go version and the target platform",
		Args:  exactArgs("tflrun version", 0, "no arguments"),
		Run: func(args []string) error {
			fmt.Fprintln(stdout, versionString())
			return nil
		},
	}
}

// versionString is "tflrun <module version> [(<vcs revision>[, modified])]
// <go version> <GOOS>/<GOARCH>", from the build information embedded in
// the binary. A build from a source tree reports the module version
// "(devel)" and, when built inside a VCS checkout, the revision.
func versionString() string {
	version, rev, modified := "(unknown)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	out := "tflrun " + version
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified {
			rev += ", modified"
		}
		out += " (" + rev + ")"
	}
	return fmt.Sprintf("%s %s %s/%s", out, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
