package construct_test

import (
	"path/filepath"

	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/stamp"
	"github.com/novelapi/novelapi/pool"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func TestRedactAndLeak(t *testing.T) {
	for _, tt := range []struct{ name, desc, leaf string }{
		{"Plain", "Split an array with unstack along an axis.", "unstack"},
		{"Inflected", "Returns the unstacked parts.", "unstack"},
		{"Qualified", "Like numpy.unstack but lazy.", "unstack"},
		{"Spaced", "Return the Cumulative sum. of the elements", "cumulative_sum"},
		{"SpacedInWords", "Return matrix rank of array using SVD method", "matrix_rank"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := construct.Redact(tt.desc, tt.leaf)
			spaced := strings.ReplaceAll(tt.leaf, "_", " ")
			if strings.Contains(strings.ToLower(got), tt.leaf) || strings.Contains(strings.ToLower(got), spaced) {
				t.Errorf("Redact(%q) = %q still contains %q", tt.desc, got, tt.leaf)
			}
		})
	}
}

func TestBuildTasks_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles("testdata/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, sum, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs, Env: env, Runner: runner, Medium: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("summary: %+v", sum)
	byAPI := map[string][]string{}
	for _, tk := range tasks {
		byAPI[tk.APIName] = append(byAPI[tk.APIName], tk.Difficulty)
		leaf := tk.Leaf()
		if strings.Contains(strings.ToLower(tk.Description), strings.ToLower(leaf)) {
			t.Errorf("%s: description leaks %q: %s", tk.TaskID, leaf, tk.Description)
		}
		if !strings.Contains(tk.TestHarness.ExecutionTest, "# --- end check ---") || !strings.Contains(tk.TestHarness.ExecutionTest, "assert ") {
			t.Errorf("%s: execution_test lacks the check block or assertions:\n%s", tk.TaskID, tk.TestHarness.ExecutionTest)
		}
		if err := tk.Validate(false); err != nil {
			t.Errorf("%s: invalid task: %v", tk.TaskID, err)
		}
	}
	if got := byAPI["numpy.unstack"]; len(got) != 2 {
		t.Errorf("numpy.unstack tasks = %v, want easy and medium", got)
	}
	if got := byAPI["numpy.cumulative_sum"]; len(got) == 0 {
		t.Errorf("numpy.cumulative_sum has no task")
	}
	for _, tk := range tasks {
		if tk.APIName == "numpy.cumulative_sum" && strings.Contains(tk.ContextCode, "import cumulative_sum") {
			t.Errorf("context imports the answer: %q", tk.ContextCode)
		}
	}
	if len(byAPI["numpy.ones"]) != 0 || sum.Skipped["no top-level statement calls ones"] != 1 {
		t.Errorf("numpy.ones example without a call: tasks %v, skipped %v", byAPI["numpy.ones"], sum.Skipped)
	}
	// The tests compare values, so each rejects every mutant of its
	// reference (docs/mutants.md).
	if m := sum.Mutants; m == nil || m.Checked != len(tasks) || m.Kept != len(tasks) || m.ValueAsserting != len(tasks) || m.Discriminating != len(tasks) {
		t.Errorf("mutant check %+v; want all %d tasks kept, with value assertions, discriminating", m, len(tasks))
	}
}

func TestRecordAndFilterC1_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles("testdata/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs[:1], Env: env, Runner: runner, Medium: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(sandboxtest.Home())})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := construct.RecordAndFilterC1(t.Context(), tasks, construct.C1Config{Harness: h, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("C1: %+v", sum)
	if sum.Passed != len(tasks) {
		recs, _, _ := jsonl.Read[construct.C1Record](filepath.Join(dir, "filters", "c1.jsonl"), jsonl.ReadOptions{})
		for _, r := range recs {
			if !r.Passed {
				t.Errorf("C1 failed for %s (%s): %v", r.TaskID, r.APIName, *r.Error)
			}
		}
	}
	// Rerun resumes: nothing is appended twice.
	if _, err := construct.RecordAndFilterC1(t.Context(), tasks, construct.C1Config{Harness: h, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	c1Path := filepath.Join(dir, "filters", "c1.jsonl")
	recs, _, err := jsonl.Read[construct.C1Record](c1Path, jsonl.ReadOptions{})
	if err != nil || len(recs) != len(tasks) {
		t.Errorf("c1.jsonl has %d records after a rerun (err %v), want %d", len(recs), err, len(tasks))
	}
	// The records are reused while the harness's scripts are the ones
	// that made them (the stamp's digest), and made again, call records
	// included, once they differ.
	forged := "made by another harness"
	for _, tt := range []struct {
		name, harness string
		reused        bool
	}{
		{"SameHarness", evalharness.ScriptsDigest(), true},
		{"OtherHarness", "0123456789abcdef", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs[0].Passed, recs[0].Error = false, &forged
			if err := jsonl.Write(c1Path, recs); err != nil {
				t.Fatal(err)
			}
			if err := stamp.Write(c1Path, construct.C1Stamp().WithInput("harness", tt.harness)); err != nil {
				t.Fatal(err)
			}
			if _, err := construct.RecordAndFilterC1(t.Context(), tasks, construct.C1Config{Harness: h, Dir: dir}); err != nil {
				t.Fatal(err)
			}
			got, _, err := jsonl.Read[construct.C1Record](c1Path, jsonl.ReadOptions{})
			if err != nil || len(got) != len(tasks) {
				t.Fatalf("c1.jsonl has %d records (err %v), want %d", len(got), err, len(tasks))
			}
			byID := map[string]construct.C1Record{}
			for _, r := range got {
				byID[r.TaskID] = r
			}
			r := byID[recs[0].TaskID]
			if reused := r.Error != nil && *r.Error == forged; reused != tt.reused || (!tt.reused && !r.Passed) {
				t.Errorf("%s: passed %v, error %v; want the forged record reused %v", r.TaskID, r.Passed, r.Error, tt.reused)
			}
			if exp, err := pool.LoadExpectedCalls(filepath.Join(dir, "expected_calls.jsonl")); err != nil || len(exp) != len(tasks) {
				t.Errorf("expected_calls.jsonl: %d records, %v; want %d", len(exp), err, len(tasks))
			}
			if why := stamp.Stale(c1Path, construct.C1Stamp()); why != "" {
				t.Errorf("stamp after the run: %s", why)
			}
		})
	}
}

// The examples numpy's own test suite gives numpy.astype and
// numpy.cumulative_sum (extracted in trixie-sci) keep their checks as an
// extra layer of the task's test, rewritten onto `result` with the
// statements they need, and the references still pass C1
// (docs/protocol.md §7 Stage 3).
func TestBuildTasks_ExampleAssertions_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles("testdata/test_examples.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, bsum, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs, Env: env, Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	if bsum.ExampleChecked < 2 {
		t.Errorf("ExampleChecked = %d, want at least the two tasks of the test-suite examples", bsum.ExampleChecked)
	}
	want := map[string][]string{
		// actual = np.astype(...); expected = np.array(...); assert_array_equal(actual, expected)
		"numpy.astype": {"expected = np.array(data, dtype=np.uint32)\nassert_array_equal(result, expected)\nassert_equal(result.dtype, expected.dtype)\n"},
		// assert_array_equal(np.cumulative_sum(arr, axis=1, include_initial=True), expected)
		"numpy.cumulative_sum": {"assert_array_equal(result, expected)\n"},
	}
	found := map[string]bool{}
	for _, tk := range tasks {
		test := tk.TestHarness.ExecutionTest
		ws, ok := want[tk.APIName]
		if !ok || !strings.Contains(test, ws[0]) {
			continue
		}
		found[tk.APIName] = true
		for _, w := range ws[1:] {
			if !strings.Contains(test, w) {
				t.Errorf("%s: test lacks %q:\n%s", tk.TaskID, w, test)
			}
		}
		_, checks, _ := strings.Cut(test, "# --- end check ---")
		if strings.Contains(checks, tk.Leaf()+"(") {
			t.Errorf("%s: the test calls the target itself:\n%s", tk.TaskID, checks)
		}
	}
	for api := range want {
		if !found[api] {
			t.Errorf("no %s task keeps its test's checks; tasks:", api)
			for _, tk := range tasks {
				t.Logf("%s %s:\n%s\n%s", tk.TaskID, tk.APIName, tk.ReferenceSolution, tk.TestHarness.ExecutionTest)
			}
		}
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(sandboxtest.Home())})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := construct.RecordAndFilterC1(t.Context(), tasks, construct.C1Config{Harness: h, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Passed != len(tasks) {
		t.Errorf("C1 passed %d of %d tasks, want all", sum.Passed, len(tasks))
	}
}

// numpy.ma.MaskedArray.sort sorts in place and returns None, as a null
// stub does: numpy's own docstring and test-suite examples of it
// (extracted in trixie-sci) give tasks only through the assertions on
// what the call changes, the array `a` it is a method of; their
// descriptions say so and their references pass C1 (docs/protocol.md §7
// Stage 3).
func TestBuildTasks_InPlace_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles("testdata/in_place.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, bsum, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs, Env: env, Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	if bsum.InPlace < 2 || bsum.InPlace != len(tasks) {
		t.Errorf("InPlace = %d of %d tasks, want every task (at least the easy tasks of both examples)", bsum.InPlace, len(tasks))
	}
	for _, tk := range tasks {
		if !strings.Contains(tk.Description, "The call changes `a` in place.") {
			t.Errorf("%s: description does not say what the call changes: %s", tk.TaskID, tk.Description)
		}
		_, checks, _ := strings.Cut(tk.TestHarness.ExecutionTest, "# --- end check ---")
		if !strings.Contains(checks, "asarray(a)") || strings.Contains(checks, "(result") || !strings.Contains(checks, "in-place check") {
			t.Errorf("%s: test does not check `a` alone:\n%s", tk.TaskID, checks)
		}
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(sandboxtest.Home())})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := construct.RecordAndFilterC1(t.Context(), tasks, construct.C1Config{Harness: h, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Passed != len(tasks) {
		t.Errorf("C1 passed %d of %d tasks, want all", sum.Passed, len(tasks))
	}
}
