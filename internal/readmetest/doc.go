// Package readmetest holds the test that the README's programs build and
// run as a user's own module would: outside the repository, with only a
// require and a replace of tflrun in go.mod.
package readmetest
