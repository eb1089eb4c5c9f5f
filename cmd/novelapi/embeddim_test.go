package main

import (
	"strings"
	"testing"
)

// A negative --embed-dim is a usage error, not silently the default.
func TestEmbedDim_Negative(t *testing.T) {
	for _, args := range [][]string{
		{"search", "--index", t.TempDir(), "--embed-dim", "-5", "fft"},
		{"index", "build", "--bundles", "none.jsonl", "--index", t.TempDir(), "--embedder", "hash", "--embed-dim=-5"},
	} {
		code, _, stderr := runArgs(t, t.TempDir(), args...)
		if code != 2 || !strings.Contains(stderr, "--embed-dim -5") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming --embed-dim", args, code, stderr)
		}
	}
}
