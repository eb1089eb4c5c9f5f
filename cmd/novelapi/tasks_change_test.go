package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestTasksBuildChangeOnly_RealSandbox runs `tasks build --change-only` on
// six real signature-modified numpy/pandas APIs (construct's
// testdata/modified.jsonl): the two whose examples never pass a changed
// parameter (numpy.std, numpy.argsort) lose their tasks, the others keep
// only tasks that exercise the change.
func TestTasksBuildChangeOnly_RealSandbox(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"tasks", "build", "-q", "--bundles", filepath.Join("..", "..", "construct", "testdata", "modified.jsonl"),
		"--change-only", "--no-c1", "--no-medium", "--max-examples", "1", "--backend", backendArg(), "--out", out, "--json"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("tasks build --change-only: exit %d\n%s", code, stderr.String())
	}
	var sum struct {
		Build struct {
			ModifiedAPIs    int `json:"modified_apis"`
			ExercisedAPIs   int `json:"exercised_apis"`
			ModifiedTasks   int `json:"modified_tasks"`
			ExercisingTasks int `json:"exercising_tasks"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if b := sum.Build; b.ModifiedAPIs != 6 || b.ExercisedAPIs != 4 || b.ModifiedTasks != 6 || b.ExercisingTasks != 4 {
		t.Errorf("summary %+v; want 6 modified APIs, 4 exercised, 6 modified tasks, 4 exercising", b)
	}
	tasks, err := evalharness.LoadTasks(out, evalharness.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var apis []string
	for _, tk := range tasks {
		apis = append(apis, tk.APIName)
		if tk.ExercisesChange == nil || !*tk.ExercisesChange {
			t.Errorf("%s (%s) kept but does not exercise the change", tk.TaskID, tk.APIName)
		}
	}
	slices.Sort(apis)
	if want := []string{"numpy.nanstd", "numpy.reshape", "numpy.sort", "pandas.Series.apply"}; !slices.Equal(apis, want) {
		t.Errorf("tasks for %v, want %v", apis, want)
	}
}
