//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFileKB is the RssFile line of /proc/self/status: the resident pages
// of file mappings, the executable's among them.
func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("RssFile line %q: %v", l, err)
			}
			return n
		}
	}
	t.Skip("/proc/self/status has no RssFile line")
	return 0
}

// TestReleaseStartupPages checks that the release drops resident pages of
// the executable (the test binary links every package the command does,
// and starting it touched several MB of them) and that the process goes
// on running code afterwards.
func TestReleaseStartupPages(t *testing.T) {
	before := rssFileKB(t)
	releaseStartupPages()
	after := rssFileKB(t)
	t.Logf("RssFile %d kB -> %d kB", before, after)
	if after >= before-512 {
		t.Fatalf("RssFile %d kB after the release, %d kB before: want at least 512 kB fewer", after, before)
	}
	var out strings.Builder
	if code := execute([]string{"version"}, &out, &out); code != 0 {
		t.Fatalf("tflrun version after the release: exit %d, %s", code, out.String())
	}
}
