//go:build !convertcheck

package passes

// check verifies the incremental simplifier in builds tagged
// convertcheck (incremental_check.go); otherwise it does nothing.
func (e *Incremental) check() {}
