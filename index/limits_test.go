package index_test

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// oversize returns a real bundle (numpy.unstack) whose implementation is
// its own source repeated to 4 MB and whose examples are its own repeated
// 2,000 times: the shape of a bundle that builds silently into gigabytes.
func oversize(t testing.TB) bundles.Bundle {
	t.Helper()
	for _, b := range readTestBundles(t) {
		if b.APIName == "numpy.unstack" && b.Implementation != "" && len(b.Examples) > 0 {
			b.Implementation = strings.Repeat(b.Implementation+"\n", 4<<20/len(b.Implementation))
			ex := b.Examples[0]
			b.Examples = nil
			for range 2000 {
				b.Examples = append(b.Examples, ex)
			}
			return b
		}
	}
	t.Fatal("no numpy.unstack bundle with source and examples in testdata")
	return bundles.Bundle{}
}

// A bundle over the limits is cut at build, with a marker in the text
// saying what was left out, and the manifest lists the cuts; the caller's
// bundle is not modified.
func TestBuild_CutsOversizeText(t *testing.T) {
	big := oversize(t)
	implBefore, examplesBefore := big.Implementation, len(big.Examples)
	dir := filepath.Join(t.TempDir(), "idx")
	m, err := index.Build(t.Context(), dir, []bundles.Bundle{big}, index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if big.Implementation != implBefore || len(big.Examples) != examplesBefore {
		t.Errorf("Build modified the caller's bundle")
	}
	if m.Cut == nil || m.Cut.Count != 2 || !strings.Contains(strings.Join(m.Cut.Items, "\n"), "numpy.unstack: C ") {
		t.Errorf("manifest Cut = %+v, want the C and E cuts of numpy.unstack", m.Cut)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	b, ok := ix.Bundle("numpy.unstack")
	if !ok {
		t.Fatal("numpy.unstack not indexed")
	}
	if n := utf8.RuneCountInString(b.Implementation); n > index.DefaultMaxC+200 || !strings.Contains(b.Implementation, "characters of the implementation source (C) omitted at index build (limit 16000)") {
		t.Errorf("stored C: %d characters, ending %q; want at most the limit and a marker", n, b.Implementation[max(0, len(b.Implementation)-200):])
	}
	code := 0
	for _, e := range b.Examples {
		code += utf8.RuneCountInString(e.Code)
	}
	if last := b.Examples[len(b.Examples)-1].Code; code > index.DefaultMaxE+400 || !strings.Contains(last, "more example(s) omitted at index build") {
		t.Errorf("stored E: %d examples, %d characters; last ends %q", len(b.Examples), code, last[max(0, len(last)-200):])
	}
}
