//go:build purego

package arch

// pureGo is true in a -tags purego build: no assembly is compiled in and
// only the Generic level is offered.
const pureGo = true
