//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package interpreter

// mapFile reads the whole file: this platform has no memory map we use.
func mapFile(path string) ([]byte, func() error, error) { return readFile(path) }
