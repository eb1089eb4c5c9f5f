package evalharness

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// importedTask is an imported-pool task in the shape package importers
// writes for CodeUpdateArena: a hidden setup that patches math.hypot with a
// keyword the real one lacks, a completion that defines the entry point, and
// tests that call both the entry point and the target.
func importedTask(id string, spyAPIs ...string) *pool.Task {
	head := "assert _target_api_spy_installed, \"target-API spy failed to install\"\n" +
		"_target_api_call_count[0] = 0\n" + pool.EndCheckMarker + "\n"
	return &pool.Task{
		TaskID: id, APIName: "math.hypot", Library: "codeupdatearena", Group: "math",
		Description: "Scale a hypot (the leaf is allowed in imported pools).",
		ContextCode: "import math",
		HiddenSetup: "import math\nold_hypot = math.hypot\n\ndef hypot(*a, scale=1.0):\n    return old_hypot(*a) * scale\n\nmath.hypot = hypot",
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor("math.hypot"), TargetAPI: "math.hypot",
			ExecutionTest: head + "\ndef test_scaled():\n    assert scaled(3, 4, 2.0) == math.hypot(3, 4, scale=2.0)\n\ntest_scaled()\n",
		},
		EntryPoint: "scaled", SpyScope: pool.SpyScopeEntryPoint, SpyAPIs: spyAPIs,
		Origin: "codeupdatearena", Generator: "import:codeupdatearena",
	}
}

func TestRun_ImportedPoolInSandbox(t *testing.T) {
	h := newTestHarness(t)
	off := false
	tasks := []*pool.Task{
		importedTask("good"),
		importedTask("cheat"),
		importedTask("forge"),
		importedTask("multi", "math.dist"),
		// A rename that deletes itertools.product, which tokenize needs at
		// import: the monitor (inspect) and traceback printing still work.
		{
			TaskID: "rename", APIName: "itertools.cartesian", Library: "codeupdatearena", Origin: "codeupdatearena",
			Description: "All pairs.", ContextCode: "import itertools", EntryPoint: "pairs", SpyScope: pool.SpyScopeEntryPoint,
			HiddenSetup: "import itertools\nold_product = itertools.product\n\ndef cartesian(*a, **kw):\n    return old_product(*a, **kw)\n\n" +
				"del itertools.product\nsetattr(itertools, 'cartesian', cartesian)",
			TestHarness: pool.TestHarness{
				SetupCode: pool.StockMonitor("itertools.cartesian"), TargetAPI: "itertools.cartesian",
				ExecutionTest: "assert _target_api_spy_installed\n" + pool.EndCheckMarker + "\nassert pairs([1, 2]) == [(1, 1), (1, 2), (2, 1), (2, 2)]\n",
			},
		},
		{
			TaskID: "he", Library: "he", Description: "Square.", SpyRequired: &off, EntryPoint: "square",
			TestHarness: pool.TestHarness{ExecutionTest: "assert square(3) == 9\n"}, Origin: "humaneval", Group: "he",
		},
	}
	for _, tk := range tasks {
		if err := tk.Validate(false); err != nil {
			t.Fatalf("Validate: %v", err)
		}
	}
	fence := func(s string) []string { return []string{"```python\n" + s + "\n```"} }
	good := "def scaled(x, y, s):\n    return math.hypot(x, y, scale=s)"
	preds := []*pool.Prediction{
		{TaskID: "good", Samples: fence(good)},
		{TaskID: "cheat", Samples: fence("def scaled(x, y, s):\n    return (x * x + y * y) ** 0.5 * s")},
		{TaskID: "multi", Samples: fence(good)},
		// Writes the public counters instead of calling the target.
		{TaskID: "forge", Samples: fence("def scaled(x, y, s):\n    _target_api_call_count[0] += 1\n    _target_api_counts['math.hypot'] += 1\n    return (x * x + y * y) ** 0.5 * s")},
		{TaskID: "he", Samples: fence("def square(x):\n    return x * x")},
		{TaskID: "rename", Samples: fence("def pairs(xs):\n    return list(itertools.cartesian(xs, repeat=2))")},
	}
	expected := map[string]*pool.ExpectedCalls{}
	for _, id := range []string{"good", "cheat", "forge", "multi", "rename"} {
		expected[id] = &pool.ExpectedCalls{TaskID: id, Status: pool.CallsOK}
	}
	dir := t.TempDir()
	sum, err := Run(t.Context(), RunConfig{Tasks: tasks, Expected: expected, Predictions: preds, OutDir: dir, Workers: 2, Harness: h})
	if err != nil {
		t.Fatal(err)
	}
	results, _, err := pool.ReadResults(filepath.Join(dir, pool.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]pool.TaskResult{}
	for _, r := range results {
		by[r.TaskID] = r
	}
	tests := []struct {
		id                 string
		passed, called     bool
		status             string
		calls              int
		calledAPIs, reqAPI []string
		spyOff             bool
	}{
		// The test's own math.hypot call is not the solution's: one call.
		{"good", true, true, pool.StatusPass, 1, []string{"math.hypot"}, []string{"math.hypot"}, false},
		{"cheat", false, false, pool.StatusAPINotCalled, 0, nil, []string{"math.hypot"}, false},
		{"forge", false, false, pool.StatusAPINotCalled, 0, nil, []string{"math.hypot"}, false},
		{"multi", true, true, pool.StatusPass, 1, []string{"math.hypot"}, []string{"math.hypot", "math.dist"}, false},
		{"he", true, false, pool.StatusPass, 0, nil, nil, true},
		{"rename", true, true, pool.StatusPass, 1, []string{"itertools.cartesian"}, []string{"itertools.cartesian"}, false},
	}
	for _, tt := range tests {
		r, ok := by[tt.id]
		if !ok {
			t.Errorf("%s: no result", tt.id)
			continue
		}
		if r.Passed != tt.passed || r.TargetCalled != tt.called || r.Status != tt.status || r.SpyCalls != tt.calls ||
			!slices.Equal(r.CalledAPIs, tt.calledAPIs) || !slices.Equal(r.RequiredAPIs, tt.reqAPI) || r.SpyOff != tt.spyOff {
			t.Errorf("%s: passed %v called %v status %s calls %d called_apis %v required %v spy_off %v; want %+v\n%s",
				tt.id, r.Passed, r.TargetCalled, r.Status, r.SpyCalls, r.CalledAPIs, r.RequiredAPIs, r.SpyOff, tt, r.Error)
		}
	}
	if by["cheat"].Label != pool.LabelWrongAPISelection {
		t.Errorf("cheat label %q, want %s", by["cheat"].Label, pool.LabelWrongAPISelection)
	}
	if sum.SpyOffTasks != 1 || sum.MultiAPITasks != 1 || sum.RequiredAPIRecall == nil || *sum.RequiredAPIRecall != 0.5 {
		t.Errorf("summary spy_off %d multi %d recall %v; want 1, 1, 0.5", sum.SpyOffTasks, sum.MultiAPITasks, sum.RequiredAPIRecall)
	}
	if r := sum.TargetInvocationRate; r == nil || *r != 3.0/5 {
		t.Errorf("invocation rate %v, want 3/5 (spy-off task excluded)", r)
	}
	if _, ok := sum.Group["math"]; !ok {
		t.Errorf("summary has no by_group math: %v", sum.Group)
	}
}

// TestEvaluate_EntryPointAcrossProcesses runs completions whose function
// the test calls: the call runs in the completion's process, its result
// and the test's mutable arguments cross back as data (docs/threat-model.md
// §6).
func TestEvaluate_EntryPointAcrossProcesses(t *testing.T) {
	h := newTestHarness(t)
	off := false
	he := func(id, entry, test string) *pool.Task {
		return &pool.Task{TaskID: id, Library: "he", Description: "HumanEval-style.", SpyRequired: &off, EntryPoint: entry,
			TestHarness: pool.TestHarness{ExecutionTest: test}, Origin: "humaneval"}
	}
	arena := &pool.ExpectedCalls{TaskID: "arena", Status: pool.CallsOK}
	tests := []struct {
		name   string
		task   *pool.Task
		exp    *pool.ExpectedCalls
		code   string
		passed bool
		status string
	}{
		{"Honest", importedTask("arena"), arena, "def scaled(x, y, s):\n    return math.hypot(x, y, scale=s)", true, pool.StatusPass},
		// Calls the target, then answers with an object equal to everything.
		{"EqualsEverything", importedTask("arena"), arena, "def scaled(x, y, s):\n    math.hypot(x, y, scale=s)\n" +
			"    class E:\n        def __eq__(self, o):\n            return True\n    return E()", false, pool.StatusWrongAnswer},
		{"SortsInPlace", he("inplace", "sort_in_place", "def check(candidate):\n    xs = [3, 1, 2]\n    candidate(xs)\n"+
			"    assert xs == [1, 2, 3], xs\n\ncheck(sort_in_place)\n"), nil, "def sort_in_place(xs):\n    xs.sort()", true, pool.StatusPass},
		{"RaisesExpected", he("raises", "root", "def check(candidate):\n    try:\n        candidate(-1.0)\n    except ValueError:\n        pass\n"+
			"    else:\n        raise AssertionError('no ValueError')\n    assert candidate(4.0) == 2.0\n\ncheck(root)\n"), nil,
			"import math\ndef root(x):\n    if x < 0:\n        raise ValueError('negative')\n    return math.sqrt(x)", true, pool.StatusPass},
		{"NamedTuple", he("named", "pair", "def check(candidate):\n    assert candidate(1, 2) == (1, 2)\n    assert candidate(1, 2).x == 1\n\ncheck(pair)\n"),
			nil, "import collections\nP = collections.namedtuple('P', 'x y')\ndef pair(a, b):\n    return P(a, b)", true, pool.StatusPass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Evaluate(t.Context(), tt.task, tt.exp, "```python\n"+tt.code+"\n```")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s: %s", v.Status, v.Error)
			if v.Passed != tt.passed || v.Status != tt.status {
				t.Errorf("Evaluate = passed %v status %s (%s) %s; want %v, %s", v.Passed, v.Status, v.Rationale, v.Error, tt.passed, tt.status)
			}
		})
	}
}
