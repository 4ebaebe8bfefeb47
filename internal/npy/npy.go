// Package npy forwards to the public package github.com/tflrun/tflrun/npy,
// where the .npy reader and writer moved. It exists only because the
// interpreter's tests (mnist_test.go, golden_test.go) still import this
// path; when they import github.com/tflrun/tflrun/npy, delete it.
package npy

import "github.com/tflrun/tflrun/npy"

// Array is npy.Array.
type Array = npy.Array

// ReadFile is npy.ReadFile.
func ReadFile(path string) (*Array, error) { return npy.ReadFile(path) }
