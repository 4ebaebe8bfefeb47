//go:build !convertcheck

package ir

// checkUses checks the use index in builds tagged convertcheck
// (uses_check.go); otherwise it does nothing.
func checkUses(*Function) {}
