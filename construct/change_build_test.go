package construct_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// testdata/modified.jsonl holds six APIs whose signature changed between
// numpy 1.24.2 / pandas 1.5.3 (bookworm) and numpy 2.2.4 / pandas 2.2.3
// (trixie), with their real old and new signatures:
//   - numpy.sort gained keyword-only stable; example 0 sorts by axis,
//     example 1 passes stable=True;
//   - numpy.reshape renamed newshape to shape at the same position, and
//     its example passes it positionally: the old release binds the same
//     call the same way, so it does not exercise;
//   - numpy.std gained mean and correction, which its example does not pass;
//   - pandas.Series.apply gained by_row; example 0 calls it unbound,
//     pd.Series.apply(s, f), whose second positional argument is func,
//     not the changed convert_dtype, but it relies on convert_dtype's
//     changed default (True → <no_default>; the static rule counts that,
//     the old environment does not: it behaves the same); example 1
//     passes by_row=False;
//   - numpy.nanstd (as std) is called by two print lines, then with mean=:
//     the task is the third call and the context drops the other two;
//   - numpy.argsort (as sort) is first called in an assignment, then with
//     stable=True: the assignment stays the task, which does not exercise.
func TestBuildTasks_Modified_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles("testdata/modified.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exercises := func(tasks []*pool.Task) map[string][]bool {
		got := map[string][]bool{}
		for _, tk := range tasks {
			if tk.Difficulty != "easy" {
				continue
			}
			if tk.ExercisesChange == nil {
				t.Errorf("%s (%s): exercises_change is unset", tk.TaskID, tk.APIName)
				continue
			}
			got[tk.APIName] = append(got[tk.APIName], *tk.ExercisesChange)
		}
		for _, v := range got {
			slices.SortFunc(v, func(a, b bool) int { return cmpBool(a) - cmpBool(b) }) // false before true
		}
		return got
	}
	// wantExercises checks got (from exercises) against want, saying what
	// was compared.
	wantExercises := func(got, want map[string][]bool, what string) {
		t.Helper()
		for api, w := range want {
			if !slices.Equal(got[api], w) {
				t.Errorf("%s: %s %v, want %v", api, what, got[api], w)
			}
		}
	}

	t.Run("KeepAll", func(t *testing.T) {
		tasks, sum, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs, Env: env, Runner: runner, Medium: true, MaxExamples: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("summary: %+v", sum)
		want := map[string][]bool{
			"numpy.sort": {false, true}, "numpy.reshape": {false}, "numpy.std": {false}, "pandas.Series.apply": {true, true},
			"numpy.nanstd": {true}, "numpy.argsort": {false},
		}
		wantExercises(exercises(tasks), want, "easy tasks exercise the change")
		if sum.ModifiedAPIs != 6 || sum.ExercisedAPIs != 3 || sum.ModifiedTasks != len(tasks) {
			t.Errorf("summary: modified APIs %d, exercised %d, modified tasks %d; want 6, 3, %d",
				sum.ModifiedAPIs, sum.ExercisedAPIs, sum.ModifiedTasks, len(tasks))
		}
		n := 0
		for _, tk := range tasks {
			if *tk.ExercisesChange {
				n++
			}
			if tk.Novelty != "modified" {
				t.Errorf("%s: novelty %q, want modified", tk.TaskID, tk.Novelty)
			}
			if strings.Contains(strings.ToLower(tk.Description), strings.ToLower(tk.Leaf())) {
				t.Errorf("%s: description leaks %q: %s", tk.TaskID, tk.Leaf(), tk.Description)
			}
			if err := tk.Validate(false); err != nil {
				t.Errorf("%s: invalid task: %v", tk.TaskID, err)
			}
			switch tk.APIName {
			case "numpy.std":
				if !slices.Equal(tk.ChangedParams, []string{"mean", "correction"}) {
					t.Errorf("numpy.std changed_params = %q, want mean, correction", tk.ChangedParams)
				}
			case "numpy.nanstd":
				if strings.Contains(tk.ContextCode, "nanstd(") || !strings.Contains(tk.ContextCode, "mean = ") {
					t.Errorf("%s: context keeps the display calls or lost mean: %q", tk.TaskID, tk.ContextCode)
				}
			case "numpy.sort":
				if *tk.ExercisesChange && !strings.Contains(tk.Description, "`stable` is a new parameter") {
					t.Errorf("%s: exercising description does not name the change: %s", tk.TaskID, tk.Description)
				}
			}
		}
		if sum.ExercisingTasks != n {
			t.Errorf("summary: exercising tasks %d, want %d", sum.ExercisingTasks, n)
		}
		// The extension fields survive tasks.jsonl.
		path := filepath.Join(t.TempDir(), "tasks.jsonl")
		if err := pool.WriteTasks(path, tasks); err != nil {
			t.Fatal(err)
		}
		back, err := pool.LoadTasks(path, pool.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := exercises(back); !slices.Equal(got["numpy.sort"], want["numpy.sort"]) {
			t.Errorf("after a tasks.jsonl round trip numpy.sort exercises %v, want %v", got["numpy.sort"], want["numpy.sort"])
		}
	})

	t.Run("ChangeOnly", func(t *testing.T) {
		tasks, sum, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs, Env: env, Runner: runner, MaxExamples: 1, ChangeOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("summary: %+v", sum)
		want := map[string][]bool{"numpy.sort": {true}, "pandas.Series.apply": {true}, "numpy.nanstd": {true}}
		got := exercises(tasks)
		if len(got) != len(want) {
			t.Errorf("APIs with tasks: %v, want %v (numpy.std, numpy.argsort, numpy.reshape dropped)", got, want)
		}
		wantExercises(got, want, "easy tasks exercise the change")
		// With one example per API the stable= example is picked although
		// it comes second; the other one is surplus.
		if sum.Skipped[construct.SkipSurplus] != 2 || sum.Skipped[construct.SkipUnexercised] != 3 {
			t.Errorf("skipped %v, want %d %q (numpy.sort, pandas.Series.apply) and 3 %q (numpy.std, numpy.argsort, numpy.reshape)",
				sum.Skipped, 2, construct.SkipSurplus, construct.SkipUnexercised)
		}
		if sum.Tasks != 3 || sum.ExercisingTasks != 3 || sum.ModifiedTasks != 6 {
			t.Errorf("tasks %d, exercising %d, modified %d; want 3, 3, 6", sum.Tasks, sum.ExercisingTasks, sum.ModifiedTasks)
		}
	})

	// The old environment decides: a task exercises the change when its
	// reference and assertions fail under numpy 1.24 / pandas 1.5 (sort's
	// stable=, apply's by_row=, nanstd's mean=) and not when they pass
	// (reshape(a, 6), the unbound apply relying on convert_dtype's default).
	t.Run("OldEnv", func(t *testing.T) {
		old := sandboxtest.Env(t, "bookworm-sci")
		tasks, sum, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs, Env: env, OldEnv: old, Runner: runner, MaxExamples: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("summary: %+v", sum)
		for _, tk := range tasks {
			t.Logf("%s %s: %s %s", tk.APIName, tk.MaskedRegion, tk.OldEnvCheck, tk.OldEnvError)
		}
		want := map[string][]bool{
			"numpy.sort": {false, true}, "numpy.reshape": {false}, "numpy.std": {false}, "pandas.Series.apply": {false, true},
			"numpy.nanstd": {true}, "numpy.argsort": {false},
		}
		wantExercises(exercises(tasks), want, "old-env check says the easy tasks exercise the change")
		for _, tk := range tasks {
			if wantCheck := map[bool]string{true: construct.OldEnvFails, false: construct.OldEnvPasses}[*tk.ExercisesChange]; tk.OldEnvCheck != wantCheck {
				t.Errorf("%s (%s): old_env_check %q, want %q", tk.TaskID, tk.APIName, tk.OldEnvCheck, wantCheck)
			}
			if tk.OldEnvCheck == construct.OldEnvFails && tk.OldEnvError == "" {
				t.Errorf("%s: fails without an error line", tk.TaskID)
			}
		}
		if sum.OldEnvCheck[construct.OldEnvFails] != 3 || sum.OldEnvCheck[construct.OldEnvPasses] != 5 || sum.ExercisingTasks != 3 || sum.StaticExercising != 4 {
			t.Errorf("old-env outcomes %v, exercising %d, static %d; want 3 fails, 5 passes, 3, 4",
				sum.OldEnvCheck, sum.ExercisingTasks, sum.StaticExercising)
		}
	})
}

func cmpBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestPlanExamples_ModifiedMentionsFirst(t *testing.T) {
	b := modified(t, sortOld, sortNew)
	b.Examples = []bundles.Example{
		{Code: "np.sort(a, axis=0)", Status: bundles.StatusExecuted},
		{Code: "np.sort(a)", Status: bundles.StatusStatic},
		{Code: "np.sort(a)", Status: bundles.StatusExecuted},
		{Code: "np.sort(a, stable=True)", Status: bundles.StatusExecuted},
		{Code: "assert stable == True; np.sort(a)", Status: bundles.StatusExecuted},
	}
	if got, want := construct.PlanExamples(b, 1), []int{2, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("modified, max 1: tried %v, want %v (the stable= example first, then file order, up to %d)", got, want, construct.ModifiedTries)
	}
	b.IsModified = false
	if got, want := construct.PlanExamples(b, 2), []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("new API, max 2: tried %v, want %v", got, want)
	}
}
