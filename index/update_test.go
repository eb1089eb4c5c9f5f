package index_test

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// TestUpdatePartial serves the test bundles library by library, as up does
// while it extracts (docs/serving.md §7): the first library into a new
// index, the next into a copy of the live generation, then the whole set
// by Update, which a second Update reuses. A partial generation made over
// that index makes the next Update build again, although its stamp was
// written for the same bundles file.
func TestUpdatePartial(t *testing.T) {
	bs := readTestBundles(t)
	tmp := t.TempDir()
	dir, file := filepath.Join(tmp, "idx"), filepath.Join(tmp, "bundles.jsonl")
	if err := bundles.WriteBundles(file, bs); err != nil {
		t.Fatal(err)
	}
	partial := func(lib string) []string {
		t.Helper()
		var of []bundles.Bundle
		for _, b := range bs {
			if b.Library == lib {
				of = append(of, b)
			}
		}
		m, err := index.UpdatePartial(t.Context(), dir, func(b *bundles.Bundle) bool { return b.Library == lib }, of, index.BuildConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(maps.Keys(m.Libraries))
	}
	update := func(wantBuild bool) {
		t.Helper()
		why, err := index.Update(t.Context(), dir, file, bs, index.BuildConfig{})
		if err != nil || (why != "") != wantBuild {
			t.Fatalf("Update: why %q, err %v; want a build: %v", why, err, wantBuild)
		}
	}

	if got := partial("numpy"); !slices.Equal(got, []string{"numpy"}) {
		t.Errorf("numpy into no index: libraries %v", got)
	}
	if got := partial("scipy"); !slices.Equal(got, []string{"numpy", "scipy"}) {
		t.Errorf("then scipy: libraries %v", got)
	}
	update(true)
	if m, err := index.LiveManifest(dir); err != nil || m.Bundles != len(bs) {
		t.Fatalf("after Update: manifest %+v, %v; want %d bundles", m, err, len(bs))
	}
	update(false)
	if got := partial("pandas"); !slices.Equal(got, []string{"numpy", "pandas", "scipy"}) {
		t.Errorf("pandas over the whole index: libraries %v", got)
	}
	update(true)
}
