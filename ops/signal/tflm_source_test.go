package signal_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tflmEnv names the folder holding TensorFlow Lite Micro's sources, for
// the tests that compare against its own test data: a checkout of
// tensorflow/tflite-micro, or a bare git repository of it (as the fetch
// tool leaves in /work/.mirror/tensorflow+tflite-micro/repo), whose HEAD
// is read with git show. Nothing of it is copied into this repository.
const tflmEnv = "TFLITE_MICRO_DIR"

// tflmFile returns the file path of TFLite Micro's tree, skipping the test
// when tflmEnv is unset.
func tflmFile(t testing.TB, path string) []byte {
	t.Helper()
	dir := os.Getenv(tflmEnv)
	if dir == "" {
		t.Skipf("%s is not set (a tflite-micro checkout or bare git repository, for %s)", tflmEnv, path)
	}
	if b, err := os.ReadFile(filepath.Join(dir, path)); err == nil {
		return b
	}
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		t.Fatalf("%s=%s: no %s in it, and it is not a git directory", tflmEnv, dir, path)
	}
	b, err := exec.Command("git", "--git-dir="+dir, "show", "HEAD:"+path).Output()
	if err != nil {
		t.Fatalf("git show HEAD:%s in %s: %v", path, dir, err)
	}
	return b
}
