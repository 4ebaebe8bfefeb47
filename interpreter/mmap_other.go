//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package interpreter

// mapsFiles reports whether Load memory-maps model files here.
const mapsFiles = false

// mapFile reads the whole file: this platform has no memory map we use.
func mapFile(path string) ([]byte, func() error, error) { return readFile(path) }

// dropPages does nothing here: model files are read, not mapped.
func dropPages(mapping, part []byte) {}
