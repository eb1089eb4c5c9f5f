package main

import (
	"path/filepath"
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

// An unknown retriever or an empty query is a usage error found before the
// index is opened (the index directory here is empty: opening it would fail
// with another error, after the index's load time).
func TestSearchCmd_BadArgsBeforeOpen(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--retriever", "foo", "fft"}, "want one of hybrid, bm25, vector, paper"},
		{[]string{"  "}, "empty query"},
		{[]string{strings.Repeat("x ", 9000)}, "the limit is 16384"},
	} {
		args := append([]string{"search", "--index", t.TempDir()}, tt.args...)
		code, _, stderr := runArgs(t, t.TempDir(), args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error containing %q", tt.args, code, stderr, tt.want)
		}
	}
}

// A query no indexed word matches prints "no results" and the API names
// nearest to its words (a typo of a name finds it).
func TestSearchCmd_NoResultsSuggestsNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	bundlesFile := filepath.Join("..", "..", "index", "testdata", "bundles.jsonl")
	if code, _, stderr := runArgs(t, t.TempDir(), "index", "build", "--bundles", bundlesFile, "--index", dir); code != 0 {
		t.Fatalf("index build: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runArgs(t, t.TempDir(), "search", "--index", dir, "cumulativ_summ")
	if code != 0 || !strings.Contains(stdout, "no results") || !strings.Contains(stdout, "near names: numpy.cumulative_sum") {
		t.Errorf("exit %d, stdout %q, stderr %q; want no results and numpy.cumulative_sum among the near names", code, stdout, stderr)
	}
}
