//go:build unix

package main

import "syscall"

// mkfifo makes the named pipe qemu writes its log into.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
