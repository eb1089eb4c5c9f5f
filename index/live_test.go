package index_test

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// A Live index serves each generation a build makes live from the next
// Acquire, and keeps the previous one open for the readers that hold it:
// it is closed when the last of them releases it.
func TestLive_FollowsNewGeneration(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	all := readTestBundles(t)
	without := slices.DeleteFunc(slices.Clone(all), func(b bundles.Bundle) bool { return b.APIName == "numpy.unstack" })
	m1, err := index.Build(t.Context(), dir, without, index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := index.OpenLive(dir, index.LiveOptions{CheckEvery: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	old, releaseOld := l.Acquire() // a request in flight across the rebuild
	if _, ok := old.Bundle("numpy.unstack"); ok || old.Manifest().Generation != m1.Generation {
		t.Fatalf("first generation: %s, has numpy.unstack %v", old.Manifest().Generation, ok)
	}
	m2, err := index.Build(t.Context(), dir, all, index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cur, release := l.Acquire()
	if got := cur.Manifest().Generation; got != m2.Generation || l.Generation() != m2.Generation {
		t.Errorf("after the rebuild Acquire serves %s, want %s", got, m2.Generation)
	}
	if _, ok := cur.Bundle("numpy.unstack"); !ok {
		t.Errorf("the new generation lacks numpy.unstack")
	}
	release()
	if _, err := old.Search(t.Context(), index.Query{Text: "unstack"}); err != nil {
		t.Errorf("previous generation closed while still acquired: %v", err)
	}
	releaseOld()
	releaseOld() // a second release is a no-op
	if _, err := old.Search(t.Context(), index.Query{Text: "unstack"}); !errors.Is(err, index.ErrClosed) {
		t.Errorf("previous generation after its last release: Search error %v, want ErrClosed", err)
	}
	if _, err := cur.Search(t.Context(), index.Query{Text: "unstack"}); err != nil {
		t.Errorf("live generation: %v", err)
	}
}

// With CheckEvery negative, only Reload switches generations.
func TestLive_Reload(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	bs := readTestBundles(t)
	m1, err := index.Build(t.Context(), dir, bs[:len(bs)-1], index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := index.OpenLive(dir, index.LiveOptions{CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m2, err := index.Build(t.Context(), dir, bs, index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ix, release := l.Acquire()
	got := ix.Manifest().Generation
	release()
	if got != m1.Generation {
		t.Errorf("Acquire without checks serves %s, want %s", got, m1.Generation)
	}
	if switched, err := l.Reload(); !switched || err != nil || l.Generation() != m2.Generation {
		t.Errorf("Reload = %v, %v; serving %s, want %s", switched, err, l.Generation(), m2.Generation)
	}
	if switched, err := l.Reload(); switched || err != nil {
		t.Errorf("second Reload = %v, %v; want no switch", switched, err)
	}
}

// The manifest keeps what a build skipped, and an add to a partial index
// leaves it partial.
func TestBuild_RecordsSkipped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	bs := readTestBundles(t)
	sk := &index.Omitted{Count: 2, Items: []string{"numpy.foo (bundles.jsonl:3)", "bundles.jsonl:9"}}
	m, err := index.Build(t.Context(), dir, bs[1:], index.BuildConfig{Skipped: sk})
	if err != nil {
		t.Fatal(err)
	}
	if m.Skipped == nil || m.Skipped.Count != 2 || !slices.Equal(m.Skipped.Items, sk.Items) {
		t.Errorf("Build manifest Skipped = %+v, want %+v", m.Skipped, sk)
	}
	m, err = index.Add(t.Context(), dir, bs[:1], index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Skipped == nil || m.Skipped.Count != 2 {
		t.Errorf("Add over a partial index: Skipped = %+v, want the base's 2", m.Skipped)
	}
	m, err = index.Build(t.Context(), dir, bs, index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Skipped != nil {
		t.Errorf("complete rebuild: Skipped = %+v, want nil", m.Skipped)
	}
}
