package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An --embed-dim outside minEmbedDim…maxEmbedDim is a usage error, not
// silently the default (negative) or a model of gigabytes (100000).
func TestEmbedDim_OutOfRange(t *testing.T) {
	for _, dim := range []string{"-5", "1", "100000"} {
		for _, args := range [][]string{
			{"search", "--index", t.TempDir(), "--embed-dim", dim, "fft"},
			{"index", "build", "--bundles", "none.jsonl", "--index", t.TempDir(), "--embedder", "hash", "--embed-dim=" + dim},
			{"index", "build", "--bundles", "none.jsonl", "--index", t.TempDir(), "--embed-dim=" + dim},
		} {
			code, _, stderr := runArgs(t, t.TempDir(), args...)
			if code != 2 || !strings.Contains(stderr, "--embed-dim "+dim) {
				t.Errorf("%v: exit %d, stderr %q; want a usage error naming --embed-dim", args, code, stderr)
			}
		}
	}
}

// A bundles file with no bundles builds nothing and says so.
func TestIndexBuild_NoBundles(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "idx")
	code, _, stderr := runArgs(t, t.TempDir(), "index", "build", "--bundles", empty, "--index", dir)
	if code == 0 || !strings.Contains(stderr, "no bundles in "+empty) {
		t.Errorf("exit %d, stderr %q; want an error naming the file", code, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("an index was written to %s", dir)
	}
}
