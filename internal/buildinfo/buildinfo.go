// Package buildinfo says which tflrun a binary is: the module version,
// VCS revision, commit time and dirty flag that the Go toolchain records
// (runtime/debug.ReadBuildInfo), for `tflrun version` and the header of
// `tflrun bench --json`.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Module is tflrun's module path.
const Module = "github.com/tflrun/tflrun"

// Info is what the build recorded. Fields the build did not record are
// empty: a `go build` inside a checkout records the VCS fields (unless
// -buildvcs=false), a `go install module@version` records the version
// but no VCS fields, `go run` and `go test` record neither.
type Info struct {
	// Version is the module version ("v1.2.0", or "(devel)" for a build
	// from a source tree).
	Version string `json:"version"`
	// Revision is the VCS commit, Time its commit time (RFC 3339), and
	// Modified reports uncommitted changes in the tree built.
	Revision string `json:"vcs_revision,omitempty"`
	Time     string `json:"vcs_time,omitempty"`
	Modified bool   `json:"vcs_modified,omitempty"`
	// GoVersion is the toolchain, GOOS and GOARCH the target.
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
}

// Read returns the build information of the running binary. tflrun's
// module is the main module of its own command; in another program that
// imports tflrun it is found among the dependencies.
func Read() Info {
	in := Info{Version: "(unknown)", GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	switch {
	case bi.Main.Path == Module:
		in.Version = bi.Main.Version
	default:
		for _, d := range bi.Deps {
			if d.Path == Module {
				in.Version = d.Version
				if d.Replace != nil {
					in.Version += " => " + d.Replace.Path + " " + d.Replace.Version
				}
				return in // the VCS settings are the main module's, not tflrun's
			}
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is "tflrun <version> [(<revision, 12 digits>[, <time>][, modified])]
// <go version> <GOOS>/<GOARCH>".
func (in Info) String() string {
	out := "tflrun " + in.Version
	if in.Revision != "" {
		rev := in.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if in.Time != "" {
			rev += ", " + in.Time
		}
		if in.Modified {
			rev += ", modified"
		}
		out += " (" + rev + ")"
	}
	return out + " " + in.GoVersion + " " + in.GOOS + "/" + in.GOARCH
}
