// Package arch holds the vector primitives tflrun's kernels spend their
// time in (matrix × vector products, dot products, elementwise vector
// arithmetic, vector activations), each as a portable Go function and, on
// CPUs where it pays, assembly twins chosen once at start-up.
//
// Kernels call the package-level functions (MatVecMulAcc, DotInt8, …);
// those dispatch through function variables set at init to the best
// implementation the CPU supports. Build with -tags purego to use the
// portable versions only.
//
// Layouts: matrices are row-major; a matrix of rows×cols occupies
// m[r*cols+c]. Batches of vectors are stored back to back.
package arch
