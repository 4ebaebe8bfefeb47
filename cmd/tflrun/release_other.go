//go:build !linux

package main

// releaseStartupPages is a no-op outside Linux (see release_linux.go).
func releaseStartupPages() {}
