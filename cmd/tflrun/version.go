package main

import (
	"fmt"
	"io"

	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
	"github.com/tflrun/tflrun/internal/buildinfo"
)

func newVersionCmd(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "version",
		Short: "Print tflrun's version, the Go version and the target platform",
		Long: `Version prints the module version, the VCS revision, commit time and
"modified" flag the Go toolchain recorded at build time (a go build inside a
checkout records them; go install module@version records the version), the Go
version and the target GOOS/GOARCH.`,
		Args: exactArgs("tflrun version", 0, "no arguments"),
		Run: func(args []string) error {
			fmt.Fprintln(stdout, versionString())
			return nil
		},
	}
}

// versionString is buildinfo's "tflrun <module version> [(<vcs revision>,
// <time>[, modified])] <go version> <GOOS>/<GOARCH>".
func versionString() string { return buildinfo.Read().String() }
