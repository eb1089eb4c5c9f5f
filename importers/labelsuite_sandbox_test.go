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
	labelSuiteAll    = flag.Bool("label-suite-all", false, "TestLabelMutationSuite_Arena: every example of the runnable groups, not the first of each update")
	labelSuiteN      = flag.Int("label-suite-n", 24, "TestLabelMutationSuite_Arena: at most this many tasks, spread over the groups (0: no limit)")
	labelSuiteEnv    = flag.String("label-suite-env", "trixie-sci", "TestLabelMutationSuite_Arena: environment (trixie-arena runs every group, torch and sympy included)")
	labelSuiteTasks  = flag.String("label-suite-tasks", "", "TestLabelMutationSuite_Arena: comma-separated task ids to run (empty: all the pool's, see -label-suite-all)")
	labelSuitePool   = flag.String("label-suite-pool", "codeupdatearena", "TestLabelMutationSuite_Arena: pool of ../shared/data: codeupdatearena, or monkeyeval / beatnumeval with their spy from the keyword mapping (in bookworm-sci unless -label-suite-env names another)")
	labelSuiteGroups = flag.String("label-suite-groups", "", "TestLabelMutationSuite_Arena: comma-separated groups (CodeUpdateArena packages: math, itertools, re, numpy, sympy, torch) to keep; empty: all")
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
// the tasks of the groups trixie-sci can run (math, itertools, re, numpy),
// or of every group for trixie-arena: the first example of each update,
// or every example with all.
func arenaSuitePool(t *testing.T, all bool) ([]*pool.Task, map[string]*pool.ExpectedCalls) {
	return arenaSuitePoolIn(t, all, "trixie-sci")
}

func arenaSuitePoolIn(t *testing.T, all bool, env string) ([]*pool.Task, map[string]*pool.ExpectedCalls) {
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
		if (env != importers.ArenaEnvironment && !slices.Contains([]string{"math", "itertools", "re", "numpy"}, tk.Group)) || tk.SpyScope != pool.SpyScopeEntryPoint {
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
	envName := *labelSuiteEnv
	var (
		tasks    []*pool.Task
		expected map[string]*pool.ExpectedCalls
	)
	switch *labelSuitePool {
	case "codeupdatearena":
		tasks, expected = arenaSuitePoolIn(t, *labelSuiteAll, envName)
	case "monkeyeval", "beatnumeval":
		// APICoder's renamed pools with the spy on the APIs each problem
		// is about (importers.SpyPool); the tasks the mapping names no
		// API for, or whose reference calls none, are left out.
		if envName == "trixie-sci" {
			envName = "bookworm-sci"
		}
		sandboxtest.Env(t, envName)
		all, exp := importShared(t, *labelSuitePool, envName, 0, taskIDs(*labelSuiteTasks))
		for _, tk := range all {
			if tk.SpyNeeded() {
				tasks = append(tasks, tk.Task)
			}
		}
		expected = exp
	default:
		t.Fatalf("-label-suite-pool %q: want codeupdatearena, monkeyeval or beatnumeval", *labelSuitePool)
	}
	if ids := taskIDs(*labelSuiteTasks); len(ids) > 0 {
		tasks = slices.DeleteFunc(tasks, func(tk *pool.Task) bool { return !slices.Contains(ids, tk.TaskID) })
	}
	if groups := taskIDs(*labelSuiteGroups); len(groups) > 0 {
		tasks = slices.DeleteFunc(tasks, func(tk *pool.Task) bool { return !slices.Contains(groups, tk.Group) })
	}
	// Every len/n-th task, so each group keeps its share.
	tasks = spread(tasks, *labelSuiteN)
	t.Logf("%d tasks", len(tasks))
	env := sandboxtest.Env(t, envName)
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
	// Reference verdicts with the spy on and off are reported (WriteReport)
	// and must agree (TestEvalRun_ArenaRegexPattern has the one case that
	// differed).
	for _, id := range rep.SpyDiffers {
		t.Errorf("%s: the reference's verdict differs between spy on and spy off", id)
	}
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

// The reference of CodeUpdateArena's re.compile update returns a dict
// holding a re.Pattern and a re.RegexFlag. With the spy on, re is a package
// whose classes cross to the judge as data, but a Pattern's pickle calls
// re._compile, which the judge's allow-list refuses; the whole dict then
// crossed as a handle and the test's isinstance(result, dict) failed, while
// with the spy off (re not admitted) the Pattern crossed as a handle inside
// a real dict. Now the refused part alone crosses as a handle: the
// reference passes with the spy on and off.
func TestEvalRun_ArenaRegexPattern(t *testing.T) {
	bwrapOnly(t)
	tasks, expected := arenaSuitePool(t, true)
	const id = "cua_re.compile_add-output-data_type_update-0_prog_syn-0"
	i := slices.IndexFunc(tasks, func(tk *pool.Task) bool { return tk.TaskID == id })
	if i < 0 {
		t.Fatalf("%s not in the imported pool", id)
	}
	env := sandboxtest.Env(t, "trixie-sci")
	h, err := evalharness.New(evalharness.Config{Runner: sandboxtest.Runner(t), Envs: func(string) (*sandbox.Environment, error) { return env, nil }})
	if err != nil {
		t.Fatal(err)
	}
	passesSpyOnAndOff(t, h, tasks[i], expected[id])
}

// The references of CodeUpdateArena's sympy updates pass with the spy off
// as with it on (trixie-arena). The judge's allow-list admitted the task's
// library only when the spy was on, so with it off the completion's sympy
// module crossed as an opaque handle (the test's sympy.sympify raised
// AttributeError on it) and its expressions as proxies that compare
// unequal: 9 of the 12 sympy references failed with the spy off.
func TestEvalRun_ArenaSpyOffLibraryValues(t *testing.T) {
	tasks, expected, h := arenaHarness(t)
	for _, id := range []string{
		"cua_sympy.factor_add-argument_update-0_prog_syn-0",
		"cua_sympy.diff_add-argument_update-0_prog_syn-2",
	} {
		t.Run(id, func(t *testing.T) {
			i := slices.IndexFunc(tasks, func(tk *pool.Task) bool { return tk.TaskID == id })
			if i < 0 {
				t.Fatalf("%s not in the imported pool", id)
			}
			task := evalharness.SpyOff(tasks[i])
			v, err := h.Evaluate(t.Context(), task, expected[id], task.MaskedRegion)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Passed {
				t.Errorf("spy off: passed %v status %s: %s", v.Passed, v.Status, v.Error)
			}
		})
	}
}

// The references of CodeUpdateArena's torch.cat updates pass with the spy
// on and off (trixie-arena). A tensor's own pickle calls
// torch.storage._load_from_bytes, which the judge's allow-list refuses (it
// runs torch.load), so tensors crossed as proxies or made the whole value
// refused (HARNESS_TAMPER): 100 of the 106 torch references failed through
// the harness. Dense CPU tensors now cross as their values
// (py/plaindata.py, "tensor" persistent ids).
func TestEvalRun_ArenaTorchTensors(t *testing.T) {
	tasks, expected, h := arenaHarness(t)
	const id = "cua_torch.cat_modify-output-semantics_update-0_prog_syn-0"
	i := slices.IndexFunc(tasks, func(tk *pool.Task) bool { return tk.TaskID == id })
	if i < 0 {
		t.Fatalf("%s not in the imported pool", id)
	}
	passesSpyOnAndOff(t, h, tasks[i], expected[id])
}

// passesSpyOnAndOff runs task's reference with the spy on (it must pass and
// count a call of the target) and off (it must pass).
func passesSpyOnAndOff(t *testing.T, h *evalharness.Harness, task *pool.Task, exp *pool.ExpectedCalls) {
	t.Helper()
	for _, tt := range []struct {
		name string
		task *pool.Task
	}{{"SpyOn", task}, {"SpyOff", evalharness.SpyOff(task)}} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Evaluate(t.Context(), tt.task, exp, tt.task.MaskedRegion)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Passed || (tt.name == "SpyOn" && v.SpyCalls == 0) {
				t.Errorf("passed %v status %s spy calls %d: %s", v.Passed, v.Status, v.SpyCalls, v.Error)
			}
		})
	}
}

// arenaHarness returns CodeUpdateArena's whole pool imported for
// importers.ArenaEnvironment, its expected calls and a harness over that
// environment (bubblewrap only).
func arenaHarness(t *testing.T) ([]*pool.Task, map[string]*pool.ExpectedCalls, *evalharness.Harness) {
	t.Helper()
	bwrapOnly(t)
	tasks, expected := arenaSuitePoolIn(t, true, importers.ArenaEnvironment)
	env := sandboxtest.Env(t, importers.ArenaEnvironment)
	h, err := evalharness.New(evalharness.Config{Runner: sandboxtest.Runner(t), Envs: func(string) (*sandbox.Environment, error) { return env, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return tasks, expected, h
}
