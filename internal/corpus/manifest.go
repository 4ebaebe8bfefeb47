package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// A Manifest is one of the tab-separated tables tflite.tsv and tf.tsv: a
// header row naming the columns, then one row per model.
type Manifest struct {
	Path    string
	Columns []string
	Rows    [][]string
}

// ReadManifest reads a manifest; every row must have as many fields as the
// header, and the header must have the columns file, source, licence,
// sha256 and expect.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Path: path}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		if m.Columns == nil {
			m.Columns = f
			for _, c := range []string{"file", "source", "licence", "sha256", "expect"} {
				if m.col(c) < 0 {
					return nil, fmt.Errorf("%s: header has no %q column", path, c)
				}
			}
			continue
		}
		if len(f) != len(m.Columns) {
			return nil, fmt.Errorf("%s:%d: %d fields, the header has %d", path, line, len(f), len(m.Columns))
		}
		m.Rows = append(m.Rows, f)
	}
	return m, sc.Err()
}

func (m *Manifest) col(name string) int {
	for i, c := range m.Columns {
		if c == name {
			return i
		}
	}
	return -1
}

// Get returns row r's value in column name ("" if there is no such column).
func (m *Manifest) Get(r int, name string) string {
	if c := m.col(name); c >= 0 {
		return m.Rows[r][c]
	}
	return ""
}

// Set sets row r's value in column name, which must exist.
func (m *Manifest) Set(r int, name, v string) { m.Rows[r][m.col(name)] = v }

// Write writes the manifest back to its path.
func (m *Manifest) Write() error {
	var b strings.Builder
	b.WriteString(strings.Join(m.Columns, "\t") + "\n")
	for _, r := range m.Rows {
		b.WriteString(strings.Join(r, "\t") + "\n")
	}
	return os.WriteFile(m.Path, []byte(b.String()), 0o644)
}

// Outcome is what tflrun reached on a model; higher is better. The names
// are those of the expect column.
type Outcome int

// The outcomes of a .tflite model, then those of a TensorFlow model (see
// the package comment).
const (
	Refused Outcome = iota
	Fails
	Differs
	Runs
	Match

	Converts = Fails // a converted model that does not run
	Fused    = Match
)

var tfliteNames = []string{"refused", "fails", "differs", "runs", "match"}
var tfNames = []string{"refused", "converts", "-", "runs", "fused"}

// ParseOutcome parses an expect value; tf selects the TensorFlow names.
func ParseOutcome(s string, tf bool) (Outcome, error) {
	names := tfliteNames
	if tf {
		names = tfNames
	}
	for i, n := range names {
		if n == s && n != "-" {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("expect %q: want one of %s", s, strings.Join(names, ", "))
}

// Name returns the outcome's expect value.
func (o Outcome) Name(tf bool) string {
	if tf {
		return tfNames[o]
	}
	return tfliteNames[o]
}
