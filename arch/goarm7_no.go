//go:build !arm || !arm.7

package arch

import "runtime"

// neonBuilt: see goarm7.go. A GOARM=5 or 6 build has no NEON kernels,
// so its neon level would run portable code under another name.
const neonBuilt = runtime.GOARCH != "arm"
