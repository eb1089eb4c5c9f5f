package construct_test

import (
	"testing"

	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// The error lines are real: the last stderr line of scripts run in
// bookworm-sci (numpy 1.24.2, pandas 1.5.3), the first from
// `novelapi tasks build --old-env bookworm-sci` on the numpy bundles.
func TestFailsElsewhere(t *testing.T) {
	tests := []struct {
		name, line string
		changed    []string
		wantName   string
		want       bool
	}{
		{"ModuleAttribute", "AttributeError: module 'numpy' has no attribute 'strings'. Did you mean: 'string_'?", []string{"count"}, "strings", true},
		{"ModuleAttributeNoHint", "AttributeError: module 'numpy' has no attribute 'dtypes'. Did you mean: 'dtype'?", nil, "dtypes", true},
		{"NoModule", "ModuleNotFoundError: No module named 'numpy.lib.array_utils'", []string{"axis"}, "numpy.lib.array_utils", true},
		{"CannotImport", "ImportError: cannot import name 'unstack' from 'numpy' (/usr/lib/python3/dist-packages/numpy/__init__.py)", nil, "unstack", true},
		{"ClassAttribute", "AttributeError: type object 'Series' has no attribute 'case_when'", []string{"by_row"}, "case_when", true},
		// The missing name is a changed parameter: the change itself.
		{"ChangedParamName", "AttributeError: module 'numpy' has no attribute 'strings'", []string{"strings"}, "", false},
		{"UnexpectedKeyword", "TypeError: trim_zeros() got an unexpected keyword argument 'axis'", []string{"axis"}, "", false},
		{"UnexpectedKeywordStable", "TypeError: sort() got an unexpected keyword argument 'stable'", []string{"stable"}, "", false},
		{"Assertion", "AssertionError: result check 1/2 failed", []string{"axis"}, "", false},
		// An instance lacking an attribute: the call returned something else.
		{"InstanceAttribute", "AttributeError: 'tuple' object has no attribute 'foo'", nil, "", false},
		{"Empty", "", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, ok := construct.FailsElsewhere(tt.line, tt.changed)
			if name != tt.wantName || ok != tt.want {
				t.Errorf("FailsElsewhere(%q, %q) = %q, %v; want %q, %v", tt.line, tt.changed, name, ok, tt.wantName, tt.want)
			}
		})
	}
}

// Three real numpy tasks checked in bookworm-sci (numpy 1.24.2) against
// trixie-sci (numpy 2.2.4): trim_zeros(axis=) fails on the new keyword
// (exercises the change), numpy.strings.replace fails because numpy 1.24
// has no numpy.strings (fails elsewhere: exercises_change keeps its static
// value, true here, false for the copy) and sort without stable= passes.
func TestCheckOldEnv_FailsElsewhere_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	cfg := construct.BuildConfig{Env: sandboxtest.Env(t, "trixie-sci"), OldEnv: sandboxtest.Env(t, "bookworm-sci"), Runner: runner, Workers: 2}
	task := func(id, ref, assertion string, changed []string, static bool) *pool.Task {
		return &pool.Task{
			TaskID: id, Library: "numpy", ReferenceSolution: "import numpy as np\n" + ref, ChangedParams: changed,
			TestHarness:     pool.TestHarness{ExecutionTest: "# check\n" + pool.EndCheckMarker + "\nassert " + assertion + "\n"},
			ExercisesChange: &static,
		}
	}
	tasks := []*pool.Task{
		task("trim", "result = np.trim_zeros(np.array([[0, 1], [0, 2]]), axis=1)", "result.shape == (2, 1)", []string{"axis"}, true),
		task("replace", "result = np.strings.replace(np.array(['aa']), 'a', 'b', count=1)", "result[0] == 'ba'", []string{"count"}, true),
		task("replace-static-false", "result = np.strings.replace(np.array(['aa']), 'a', 'b')", "result[0] == 'bb'", []string{"count"}, false),
		task("sort", "result = np.sort(np.array([3, 1, 2]))", "list(result) == [1, 2, 3]", []string{"stable"}, true),
	}
	counts := map[string]int{}
	if err := construct.CheckOldEnv(t.Context(), cfg, tasks, counts); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		check    string
		exercise bool
	}{
		{construct.OldEnvFails, true},
		{construct.OldEnvFailsElsewhere, true},
		{construct.OldEnvFailsElsewhere, false},
		{construct.OldEnvPasses, false},
	}
	for i, tk := range tasks {
		t.Logf("%s: %s %q", tk.TaskID, tk.OldEnvCheck, tk.OldEnvError)
		if tk.OldEnvCheck != want[i].check || *tk.ExercisesChange != want[i].exercise {
			t.Errorf("%s: old_env_check %q, exercises_change %v; want %q, %v", tk.TaskID, tk.OldEnvCheck, *tk.ExercisesChange, want[i].check, want[i].exercise)
		}
	}
	if counts[construct.OldEnvFails] != 1 || counts[construct.OldEnvFailsElsewhere] != 2 || counts[construct.OldEnvPasses] != 1 {
		t.Errorf("counts %v, want fails 1, fails_elsewhere 2, passes 1", counts)
	}
}
