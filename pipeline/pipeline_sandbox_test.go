package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/pipeline"
	"github.com/novelapi/novelapi/private/privatetest"
	"github.com/novelapi/novelapi/sandbox"
)

// upFixture returns a home of the test's own whose store holds the real
// trixie-boltons-more-itertools and sid-boltons-more-itertools (the
// environments up names for boltons and more-itertools, built by .ci/run;
// read-only to the test) and a bwrap runner, skipping (failing in CI) when
// either is missing. The suites' Packages indexes and documentation
// packages are fetched into the test's home.
func upFixture(t *testing.T) (home string, runner sandbox.Runner) {
	t.Helper()
	st := privatetest.Store(t, "trixie-boltons-more-itertools", "sid-boltons-more-itertools")
	r, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return filepath.Dir(st.Dir), r
}

// servedLibraries returns the libraries of the index generation live in
// dir.
func servedLibraries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := index.LiveManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var libs []string
	for l := range m.Libraries {
		libs = append(libs, l)
	}
	slices.Sort(libs)
	return libs
}

// TestUp_LeftOutServedEarlyResumed runs up over boltons, acres and
// more-itertools from trixie to sid (issue 15, "Bad input" and "Serving
// comes first"). Debian trixie has no acres: it is left out, with the
// suite and the nearest names, and boltons and more-itertools go on in
// environments named after them. The index is served as soon as boltons'
// bundles exist, while more-itertools is still to be extracted; the first
// run is interrupted there. The rerun resumes at more-itertools (boltons'
// candidates and bundles reused), serves the index of boltons at once and
// ends serving both libraries from an index built over all bundles. A
// third run reuses everything, the index too.
func TestUp_LeftOutServedEarlyResumed(t *testing.T) {
	home, runner := upFixture(t)
	var (
		mu     sync.Mutex
		served [][]string // libraries live when IndexReady was called, per run
	)
	up := func(ctx context.Context, onReady func()) (*pipeline.Summary, error) {
		return pipeline.Up(ctx, pipeline.Config{Home: home, Libraries: []string{"boltons", "acres", "more-itertools"},
			Runner: runner, Workers: 2, SkipTasks: true,
			IndexReady: func(dir string) {
				mu.Lock()
				served = append(served, servedLibraries(t, dir))
				mu.Unlock()
				onReady()
			}})
	}
	checkLeftOut := func(run string, sum *pipeline.Summary) {
		t.Helper()
		why := sum.LeftOut["acres"]
		if len(sum.LeftOut) != 1 || !strings.Contains(why, `Debian trixie has no package for "acres"`) || !strings.Contains(why, "nearest: ") {
			t.Errorf("%s: left out %v; want acres, which Debian trixie lacks, with the nearest names", run, sum.LeftOut)
		}
		if sum.Libraries["acres"].Skipped != why {
			t.Errorf("%s: acres skipped %q; want %q", run, sum.Libraries["acres"].Skipped, why)
		}
		if sum.Envs["trixie"] != "trixie-boltons-more-itertools" || sum.Envs["sid"] != "sid-boltons-more-itertools" {
			t.Errorf("%s: environments %v; want trixie-boltons-more-itertools and sid-boltons-more-itertools", run, sum.Envs)
		}
	}

	// Run 1: interrupted once boltons is served.
	ctx, cancel := context.WithCancel(t.Context())
	sum, err := up(ctx, cancel)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run 1 (interrupted when the index was first served): %v", err)
	}
	checkLeftOut("run 1", sum)
	if len(served) != 1 || !slices.Equal(served[0], []string{"boltons"}) {
		t.Fatalf("run 1 served %v when the index was ready; want boltons alone, before more-itertools's extraction", served)
	}
	if sum.Libraries["boltons"].Bundles == 0 {
		t.Fatalf("run 1: boltons %+v; want bundles", sum.Libraries["boltons"])
	}

	// Run 2: resumes at more-itertools.
	sum, err = up(t.Context(), func() {})
	if err != nil {
		t.Fatal(err)
	}
	checkLeftOut("run 2", sum)
	for _, l := range []string{"boltons", "more-itertools"} {
		ls := sum.Libraries[l]
		t.Logf("%s %s -> %s: %d new, %d modified, %d bundles, %d with an executed example", l, ls.OldVersion, ls.NewVersion, ls.New, ls.Modified, ls.Bundles, ls.Executed)
		if ls.Bundles == 0 {
			t.Errorf("run 2: %s has no bundles", l)
		}
	}
	for stage, want := range map[string]string{"discover boltons": "reused", "extract boltons": "reused",
		"discover more-itertools": "built", "extract more-itertools": "built", "index": "built"} {
		if got := sum.Stages[stage]; got != want {
			t.Errorf("run 2: stage %s %q; want %q (stages %v)", stage, got, want, sum.Stages)
		}
	}
	if len(served) != 2 || !slices.Equal(served[1], []string{"boltons"}) {
		t.Errorf("run 2 served %v when the index was ready; want boltons alone", served[1:])
	}
	if got := servedLibraries(t, sum.Paths.Index); !slices.Equal(got, []string{"boltons", "more-itertools"}) {
		t.Errorf("run 2 ends serving %v; want boltons and more-itertools", got)
	}
	gen, _ := index.Generation(sum.Paths.Index)

	// Run 3: everything is current.
	sum, err = up(t.Context(), func() {})
	if err != nil {
		t.Fatal(err)
	}
	checkLeftOut("run 3", sum)
	if sum.Stages["index"] != "reused" || sum.Stages["extract more-itertools"] != "reused" {
		t.Errorf("run 3: stages %v; want the index and the bundles reused", sum.Stages)
	}
	if g, _ := index.Generation(sum.Paths.Index); g != gen {
		t.Errorf("run 3 made generation %s; want %s served as it was", g, gen)
	}
	if len(served) != 3 || !slices.Equal(served[2], []string{"boltons", "more-itertools"}) {
		t.Errorf("run 3 served %v when the index was ready; want the whole index at once", served[2:])
	}
}
