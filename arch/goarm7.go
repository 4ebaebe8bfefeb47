//go:build arm && arm.7

package arch

// neonBuilt reports whether this binary holds NEON kernels for its
// architecture: always on arm64; on 32-bit arm only in GOARM=7 builds
// (the *_neon_arm.s files need the arm.7 build tag).
const neonBuilt = true
