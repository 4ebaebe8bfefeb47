package arch

import (
	"fmt"
	"os"
	"strings"
)

// Dispatch: every primitive family X declares, in X.go, the function
// slots its exported functions call and their registry entries
// (newImpls, registry.go), with the portable implementation in
// X_generic.go; X_amd64.go and X_arm64.go add the assembly twins of
// X_<level>_<goarch>.s from package-level variables. Go initialises all
// of those before any init function, so init below sees every
// registration and sets each slot to the best implementation for the
// level in use; Use (registry.go) re-sets them later.

// init chooses the level: TFLRUN_ISA if set to a level this process can
// use, Best() otherwise. A bad TFLRUN_ISA does not stop the program; the
// problem is kept for ISAError.
func init() {
	lvl := Best()
	if s, ok := os.LookupEnv("TFLRUN_ISA"); ok && strings.TrimSpace(s) != "" {
		l, err := ParseLevel(s)
		if err == nil {
			err = checkLevel(l)
		}
		if err != nil {
			envError = fmt.Errorf("TFLRUN_ISA=%q ignored, using %s: %v", s, lvl, err)
		} else {
			lvl = l
		}
	}
	for _, p := range registry {
		p.selectFor(lvl)
	}
	current = lvl
}
