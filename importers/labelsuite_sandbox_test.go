package importers_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

var (
	labelSuiteAll = flag.Bool("label-suite-all", false, "TestLabelMutationSuite_Arena: every example of the runnable groups, not the first of each update")
	labelSuiteN   = flag.Int("label-suite-n", 24, "TestLabelMutationSuite_Arena: at most this many tasks, spread over the groups (0: no limit)")
)

// sharedArena finds ../shared/data/codeupdatearena/arena.jsonl beside the
// repository (or a worktree's repository); "" when absent.
func sharedArena() string {
	dir, _ := filepath.Abs("..")
	for range 4 {
		p := filepath.Join(dir, "..", "shared", "data", "codeupdatearena", "arena.jsonl")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// arenaSuitePool imports CodeUpdateArena from the shared data and keeps
// the tasks of the groups trixie-sci can run (math, itertools, re, numpy):
// the first example of each update, or every example with all.
func arenaSuitePool(t *testing.T, all bool) ([]*pool.Task, map[string]*pool.ExpectedCalls) {
	t.Helper()
	src := sharedArena()
	if src == "" {
		if sandboxtest.Required() {
			t.Fatal("../shared/data/codeupdatearena/arena.jsonl not found beside the repository")
		}
		t.Skip("SKIPPING: ../shared/data/codeupdatearena/arena.jsonl not found beside the repository")
	}
	out := t.TempDir()
	if _, err := importers.ImportCodeUpdateArena(src, out, importers.ArenaConfig{}); err != nil {
		t.Fatal(err)
	}
	tasks, err := pool.LoadTasks(filepath.Join(out, importers.TasksFile), pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expected, err := pool.LoadExpectedCalls(filepath.Join(out, importers.ExpectedFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	tasks = slices.DeleteFunc(tasks, func(tk *pool.Task) bool {
		if !slices.Contains([]string{"math", "itertools", "re", "numpy"}, tk.Group) || tk.SpyScope != pool.SpyScopeEntryPoint {
			return true
		}
		if all {
			return false
		}
		if seen[tk.BundleVersion] {
			return true
		}
		seen[tk.BundleVersion] = true
		return false
	})
	return tasks, expected
}

// TestLabelMutationSuite_Arena is the taxonomy's mutation suite on a real
// pool nobody here wrote: for CodeUpdateArena's examples that trixie-sci
// runs, each reference is broken in the nine ways of
// evalharness.LabelMutantKinds, and the runtime taxonomy must give the
// intended label to at least 90% of the failing mutants of every label.
// The protocol taxonomy's agreement is reported beside it. bench/labels.sh
// runs it over every example (-label-suite-all).
func TestLabelMutationSuite_Arena(t *testing.T) {
	bwrapOnly(t)
	tasks, expected := arenaSuitePool(t, *labelSuiteAll)
	if n := *labelSuiteN; n > 0 && len(tasks) > n {
		// Every len/n-th task, so each group keeps its share.
		step := float64(len(tasks)) / float64(n)
		var keep []*pool.Task
		for i := range n {
			keep = append(keep, tasks[int(float64(i)*step)])
		}
		tasks = keep
	}
	t.Logf("%d tasks", len(tasks))
	env := sandboxtest.Env(t, "trixie-sci")
	h, err := evalharness.New(evalharness.Config{Runner: sandboxtest.Runner(t), Envs: func(string) (*sandbox.Environment, error) { return env, nil }})
	if err != nil {
		t.Fatal(err)
	}
	var apis []string
	for _, tk := range tasks {
		if !slices.Contains(apis, tk.APIName) {
			apis = append(apis, tk.APIName)
		}
	}
	sib, err := h.Siblings(t.Context(), "numpy", apis)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := evalharness.MutationSuite(t.Context(), evalharness.SuiteConfig{Harness: h, Tasks: tasks, Expected: expected, Siblings: sib})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteReport(&b)
	t.Log("\n" + b.String())
	if rep.ReferencesPassed < len(tasks)*3/4 {
		t.Errorf("only %d of %d references pass", rep.ReferencesPassed, len(tasks))
	}
	// Reference verdicts with the spy on and off are reported (WriteReport),
	// not asserted: cua_re.compile_add-output-data_type_update-0_prog_syn-0
	// passes only with the spy off (docs/mutants.md §6).
	for _, want := range pool.Labels {
		a, n := rep.Agreement(evalharness.TaxonomyRuntime, want)
		if n == 0 {
			t.Errorf("%s: no failing mutant with that intended label", want)
			continue
		}
		if float64(a) < 0.9*float64(n) {
			t.Errorf("%s: runtime taxonomy agrees on %d of %d (< 90%%)", want, a, n)
		}
	}
}
