package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	in := Info{Version: "v1.2.3", Revision: "0123456789abcdef", Time: "2026-12-01T10:00:00Z", Modified: true, GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "arm64"}
	if got, want := in.String(), "tflrun v1.2.3 (0123456789ab, 2026-12-01T10:00:00Z, modified) go1.26.0 linux/arm64"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	in.Revision = ""
	if got, want := in.String(), "tflrun v1.2.3 go1.26.0 linux/arm64"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// A test binary has build information with the toolchain's version.
	r := Read()
	if r.GoVersion != runtime.Version() || r.GOARCH != runtime.GOARCH || !strings.HasPrefix(r.String(), "tflrun ") {
		t.Errorf("Read() = %+v", r)
	}
}
