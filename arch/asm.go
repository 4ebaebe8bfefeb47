//go:build !purego

package arch

// pureGo is false in a normal build: the assembly implementations of this
// GOARCH (if any) are compiled in and chosen by CPU features.
const pureGo = false
