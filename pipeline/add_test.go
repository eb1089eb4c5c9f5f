package pipeline_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pipeline"
	"github.com/novelapi/novelapi/private"
	"github.com/novelapi/novelapi/private/privatetest"
	"github.com/novelapi/novelapi/sandbox"
)

// addFixture returns a store of the test's own over the CI environment
// trixie-sci (privatetest.Store: the layers the test adds and removes are
// never a user's) and a bwrap runner, skipping (failing in CI) when either
// is missing.
func addFixture(t *testing.T) (*debenv.Store, sandbox.Runner) {
	t.Helper()
	st := privatetest.Store(t, "trixie-sci")
	r, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return st, r
}

// TestAdd_PrivateDependency adds Debian's jsonlines 4.0.0 (a wheel) and
// attrs 25.3.0 (an installed tree), which jsonlines depends on, as private
// libraries over trixie-sci, which has neither: jsonlines alone is refused
// and leaves nothing behind; attrs first, then jsonlines, are served, each
// by one new index generation, with their source and novelty private; the
// task pool is built from jsonlines' executed examples; rm of attrs is
// refused while jsonlines needs it, and rm of jsonlines takes it out of the
// index.
func TestAdd_PrivateDependency(t *testing.T) {
	st, runner := addFixture(t)
	home := t.TempDir()
	jsonlinesSite := privatetest.Installed(t, "trixie", "python3-jsonlines")
	wheel := privatetest.Wheel(t, jsonlinesSite, t.TempDir(), "py3-none-any")
	attrs := privatetest.Installed(t, "trixie", "python3-attr")
	idx := filepath.Join(home, "index")
	add := func(path string, tasks bool) (*pipeline.AddResult, error) {
		return pipeline.Add(t.Context(), pipeline.AddConfig{Home: home, Store: st, Path: path, Env: "trixie-sci",
			Runner: runner, Workers: 2, SkipTasks: !tasks})
	}

	_, err := add(wheel, false)
	if err == nil || !strings.Contains(err.Error(), "jsonlines needs python3-attr, which environment trixie-sci lacks") {
		t.Fatalf("add jsonlines before attrs: %v", err)
	}
	if _, gerr := index.Generation(idx); !errors.Is(gerr, index.ErrNoIndex) {
		t.Errorf("a failed add left an index: %v", gerr)
	}
	if es, _ := private.OpenRegistry(filepath.Join(home, "private")).Entries(); len(es) != 0 {
		t.Errorf("a failed add left registry entries %v", es)
	}

	ra, err := add(attrs, false)
	if err != nil {
		t.Fatal(err)
	}
	if ra.Library != "attrs" || ra.Version != "25.3.0" || ra.Kind != private.KindInstalled || ra.Bundles == 0 || ra.Generation != "gen-000001" {
		t.Errorf("add attrs: %+v", ra)
	}
	rj, err := add(wheel, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("jsonlines: %d candidates, %d bundles, %d with an executed example, %d tasks, %d pass C1, %.1fs",
		rj.Candidates, rj.Bundles, rj.Executed, rj.TasksBuilt, rj.C1Passed, rj.Seconds)
	if !slices.Equal(rj.Private, []string{"attrs 25.3.0"}) || rj.Generation != "gen-000002" || rj.Kind != private.KindWheel {
		t.Errorf("add jsonlines: %+v", rj)
	}

	ix, err := index.Open(idx, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if libs := ix.Libraries(); !slices.Equal(libs, []string{"attrs", "jsonlines"}) {
		t.Errorf("indexed libraries %v", libs)
	}
	b, ok := ix.Bundle("jsonlines.Reader")
	if !ok || !b.Private() || b.Provenance.Source != wheel || b.Provenance.Novelty != bundles.NoveltyPrivate || b.Provenance.Environment != rj.Env {
		t.Errorf("jsonlines.Reader: found %v, provenance %+v", ok, b.Provenance)
	}
	ix.Close()

	if _, err := pipeline.Remove(t.Context(), pipeline.RemoveConfig{Home: home, Store: st, Library: "attrs", KeepEnvs: true}); err == nil ||
		!strings.Contains(err.Error(), "jsonlines 4.0.0 depends on attrs 25.3.0") {
		t.Errorf("rm attrs while jsonlines needs it: %v", err)
	}
	rm, err := pipeline.Remove(t.Context(), pipeline.RemoveConfig{Home: home, Store: st, Library: "jsonlines"})
	if err != nil {
		t.Fatal(err)
	}
	if rm.Bundles != rj.Bundles || rm.Generation != "gen-000003" || !slices.Equal(rm.Envs, []string{rj.Env}) {
		t.Errorf("rm jsonlines: %+v (added %d bundles in %s)", rm, rj.Bundles, rj.Env)
	}
	gen, _ := index.Generation(idx)
	bs, _, err := bundles.ReadBundles(filepath.Join(idx, gen, "bundles.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if b.Library != "attrs" {
			t.Errorf("after rm jsonlines the index still serves %s", b.APIName)
		}
	}
	if _, err := st.Get(rj.Env); err == nil {
		t.Errorf("rm left the environment %s", rj.Env)
	}
	if _, err := os.Stat(filepath.Join(home, "private", "jsonlines")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rm left %s/private/jsonlines: %v", home, err)
	}
	t.Cleanup(func() { st.Remove(t.Context(), ra.Env) })
}

// TestAdd_Diff adds boltons 25.0.0 (trixie's) with its 21.0.0 (bookworm's,
// an egg-info tree) as the old version: only what is new or changed since
// 21.0.0 is served, modified APIs with their old signature, and tasks are
// built from the executed doctest examples (run with their module's
// globals, as doctest runs them) and pass C1.
func TestAdd_Diff(t *testing.T) {
	st, runner := addFixture(t)
	home := t.TempDir()
	old := privatetest.Tree(t, privatetest.Installed(t, "bookworm", "python3-boltons"))
	cur := privatetest.Installed(t, "trixie", "python3-boltons")
	r, err := pipeline.Add(t.Context(), pipeline.AddConfig{Home: home, Store: st, Path: cur, OldPath: old, Env: "trixie-sci",
		Runner: runner, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Remove(t.Context(), r.Env)
		st.Remove(t.Context(), private.EnvName("boltons", "21.0.0", "trixie-sci"))
	})
	t.Logf("boltons 21.0.0 -> 25.0.0: %d candidates, %d bundles, %d executed, %d tasks, %d pass C1, %.1fs",
		r.Candidates, r.Bundles, r.Executed, r.TasksBuilt, r.C1Passed, r.Seconds)
	if r.OldVersion != "21.0.0" || r.Bundles == 0 || r.Executed == 0 {
		t.Fatalf("add with --old: %+v", r)
	}
	if r.TasksBuilt == 0 || r.C1Passed == 0 {
		t.Errorf("built %d tasks, %d pass C1; want some from the executed examples", r.TasksBuilt, r.C1Passed)
	}
	ix, err := index.Open(filepath.Join(home, "index"), index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	modified := 0
	for _, b := range ix.Bundles() {
		if b.Provenance.Novelty != "" || b.Provenance.OldVersion != "21.0.0" {
			t.Errorf("%s: novelty %q, old version %q; want a diff against 21.0.0", b.APIName, b.Provenance.Novelty, b.Provenance.OldVersion)
		}
		if b.IsModified {
			modified++
			if b.OldSignature == nil {
				t.Errorf("%s is modified but has no old signature", b.APIName)
			}
		}
	}
	if modified == 0 || modified == len(ix.Bundles()) {
		t.Errorf("%d of %d bundles modified; want some new and some modified", modified, len(ix.Bundles()))
	}
}

// TestAdd_ProjectDocsAndTests adds toolz 1.0.0 as its project is laid out
// (privatetest.Project: trixie's python3-toolz with its tests in tests/ at
// the top, not installed, and the reST sources of python-toolz-doc in
// docs/): Stage 2 mines the project's docs/ and tests/ as it mines a -doc
// package and an installed test suite, runs their examples in the layer,
// and names their origins by the project's paths.
func TestAdd_ProjectDocsAndTests(t *testing.T) {
	st, runner := addFixture(t)
	home := t.TempDir()
	site := privatetest.Installed(t, "trixie", "python3-toolz")
	tree := privatetest.Project(t, site, filepath.Join(privatetest.Unpacked(t, "trixie", "python-toolz-doc"), "usr/share/doc/python-toolz-doc"))
	res, err := pipeline.Add(t.Context(), pipeline.AddConfig{Home: home, Store: st, Path: tree, Env: "trixie-sci",
		Runner: runner, Workers: 2, SkipTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Remove(t.Context(), res.Env) })
	reg := private.OpenRegistry(filepath.Join(home, "private"))
	bs, _, err := bundles.ReadBundles(filepath.Join(reg.WorkDir("toolz", "1.0.0"), "bundles.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]int{}  // source → executed examples
	gained := map[string]bool{} // APIs whose every executed example is from the project's docs or tests
	for _, b := range bs {
		own := 0
		exec := 0
		for _, e := range b.Examples {
			if e.Status != bundles.StatusExecuted {
				continue
			}
			exec++
			served[e.Source]++
			switch e.Source {
			case bundles.SourceDocs:
				own++
				if e.Origin == nil || !strings.HasPrefix(e.Origin.File, tree+"/docs/") || !strings.HasSuffix(e.Origin.File, ".rst") ||
					e.Origin.Line == 0 || e.Origin.Package != "toolz" {
					t.Errorf("%s: docs example from %+v", b.APIName, e.Origin)
				}
			case bundles.SourceTests:
				own++
				if e.Origin == nil || !strings.HasPrefix(e.Origin.File, tree+"/tests/test_") || e.Origin.Line == 0 || e.Origin.Test == "" {
					t.Errorf("%s: tests example from %+v", b.APIName, e.Origin)
				}
			}
		}
		if exec > 0 && own == exec {
			gained[b.APIName] = true
		}
	}
	t.Logf("toolz: %d candidates, %d bundles, %d with an executed example (%d of them only from the project's docs/ or tests/: %v); executed examples by source %v; %.0fs",
		res.Candidates, res.Bundles, res.Executed, len(gained), slices.Sorted(maps.Keys(gained)), served, res.Seconds)
	if served[bundles.SourceDocs] == 0 || served[bundles.SourceTests] == 0 {
		t.Errorf("executed examples by source %v; want some from the project's docs/ and its tests/", served)
	}
}
