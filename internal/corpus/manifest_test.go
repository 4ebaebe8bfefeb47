package corpus

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestManifests checks both manifests without the models: every row
// parses, names its source as owner/repo@commit:path, carries a licence
// and a SHA-256, and expects an outcome of its kind.
func TestManifests(t *testing.T) {
	source := regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{40}:\S.*$`)
	sha := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for _, f := range []struct {
		path string
		tf   bool
	}{{"tflite.tsv", false}, {"tf.tsv", true}} {
		m, err := ReadManifest(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Rows) == 0 {
			t.Errorf("%s: no rows", f.path)
		}
		seen := map[string]bool{}
		for r := range m.Rows {
			file := m.Get(r, "file")
			if seen[file] {
				t.Errorf("%s: %s listed twice", f.path, file)
			}
			seen[file] = true
			if !source.MatchString(m.Get(r, "source")) {
				t.Errorf("%s: %s: source %q is not owner/repo@commit:path", f.path, file, m.Get(r, "source"))
			}
			if m.Get(r, "licence") == "" {
				t.Errorf("%s: %s: no licence", f.path, file)
			}
			if !sha.MatchString(m.Get(r, "sha256")) {
				t.Errorf("%s: %s: sha256 %q", f.path, file, m.Get(r, "sha256"))
			}
			if _, err := ParseOutcome(m.Get(r, "expect"), f.tf); err != nil {
				t.Errorf("%s: %s: %v", f.path, file, err)
			}
		}
	}
}

// TestReferenceManifest checks tfref.tsv without the files: every row
// names a model of tf.tsv once, a source owner/repo@commit:path, a
// licence, a SHA-256 and a .tflite outcome.
func TestReferenceManifest(t *testing.T) {
	source := regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{40}:\S.*$`)
	sha := regexp.MustCompile(`^[0-9a-f]{64}$`)
	tf, err := ReadManifest("tf.tsv")
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]bool{}
	for r := range tf.Rows {
		models[tf.Get(r, "file")] = true
	}
	m, err := ReadManifest("tfref.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rows) == 0 {
		t.Error("tfref.tsv: no rows")
	}
	seen := map[string]bool{}
	for r := range m.Rows {
		model := m.Get(r, "model")
		if !models[model] || seen[model] {
			t.Errorf("tfref.tsv: model %q is not in tf.tsv or is listed twice", model)
		}
		seen[model] = true
		if !source.MatchString(m.Get(r, "source")) || m.Get(r, "licence") == "" || !sha.MatchString(m.Get(r, "sha256")) || m.Get(r, "file") == "" {
			t.Errorf("tfref.tsv: %s: bad file, source, licence or sha256", model)
		}
		if _, err := ParseOutcome(m.Get(r, "expect"), false); err != nil {
			t.Errorf("tfref.tsv: %s: %v", model, err)
		}
	}
}

// TestDigest checks the folder digest against a value computed by hand:
// sha256 over "a\x00"+sha256("x") + "d/b\x00"+sha256("y").
func TestDigest(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "d", "b"), []byte("y"), 0o644)
	got, err := digest(dir)
	if err != nil {
		t.Fatal(err)
	}
	const want = "3f3051abaa2d5db911aea46b8d4312d52ba3ffebbe37cd3d07c121887347e98d" // python3 hashlib, by the rule above
	if got != want {
		t.Errorf("folder digest %s, want %s", got, want)
	}
	got, err = digest(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if got != "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" {
		t.Errorf("file digest %s", got)
	}
}

func TestParseManifestErrors(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"no expect column": "file\tsource\tlicence\tsha256\nx\ty\tz\tw\n",
		"short row":        "file\tsource\tlicence\tsha256\texpect\nx\ty\n",
	} {
		p := filepath.Join(dir, "m.tsv")
		os.WriteFile(p, []byte(text), 0o644)
		if _, err := ReadManifest(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ParseOutcome("fused", false); err == nil {
		t.Error(`"fused" accepted for a .tflite`)
	}
	if _, err := ParseOutcome("-", true); err == nil {
		t.Error(`"-" accepted`)
	}
}
