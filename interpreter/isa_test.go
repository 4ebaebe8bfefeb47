package interpreter

import (
	"errors"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/arch"
)

// The golden and classification tests again at every instruction-set
// level this machine offers (arch.Levels: generic, avx2, avx512 on a
// Zen 4; generic, neon, neon-dotprod on a Pi 5), switching with
// Options.ISA. Nothing here runs in parallel, as arch.Use requires.
func TestGoldenAtEveryLevel(t *testing.T) {
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	m, err := LoadBytes(pack(fcModel())) // any valid model: New sets the level
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, l := range arch.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			if _, err := New(m, &Options{ISA: l.String()}); err != nil {
				t.Fatalf("Options.ISA=%s: %v", l, err)
			}
			if arch.Current() != l {
				t.Fatalf("level %v after Options.ISA=%s", arch.Current(), l)
			}
			t.Run("MNISTLSTM", TestGoldenMNISTLSTM)
			t.Run("DTLN", TestGoldenDTLN)
			t.Run("Recurrent", TestGoldenRecurrent)
			t.Run("Shared", TestGoldenShared)
			t.Run("MNISTSamples", TestMNISTSamplesClassify)
		})
	}
}

func TestOptionsISAErrors(t *testing.T) {
	saved := arch.Current()
	defer func() { _ = arch.Use(saved) }()
	m, err := LoadBytes(pack(fcModel()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := New(m, &Options{ISA: "sse9"}); err == nil || !strings.Contains(err.Error(), "Options.ISA") {
		t.Fatalf("ISA sse9: %v", err)
	}
	// A level of another architecture (or one this CPU lacks) is refused
	// with an *arch.LevelError and leaves the level alone.
	for _, l := range arch.AllLevels() {
		usable := false
		for _, u := range arch.Levels() {
			usable = usable || u == l
		}
		if usable {
			continue
		}
		_, err := New(m, &Options{ISA: l.String()})
		var le *arch.LevelError
		if !errors.As(err, &le) {
			t.Fatalf("ISA %s: %v, want *arch.LevelError", l, err)
		}
		if arch.Current() != saved {
			t.Fatalf("refused ISA %s changed the level to %v", l, arch.Current())
		}
	}
}
