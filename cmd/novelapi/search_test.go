package main

import (
	"strings"
	"testing"
)

// --k outside 1…MaxK is a usage error, before any index is opened.
func TestSearchCmd_BadK(t *testing.T) {
	for _, k := range []string{"0", "-1"} {
		code, _, stderr := runArgs(t, t.TempDir(), "search", "--index", t.TempDir(), "-k", k, "fft")
		if code != 2 || !strings.Contains(stderr, "want 1 to 100") {
			t.Errorf("search -k %s: exit %d, stderr %q; want usage error naming 1 to 100", k, code, stderr)
		}
	}
}
