package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestTasksBuildChangeOnly_RealSandbox runs `tasks build --change-only` on
// six real signature-modified numpy/pandas APIs (construct's
// testdata/modified.jsonl): the three whose examples call them as the old
// release allows (numpy.std, numpy.argsort, numpy.reshape(a, (3, 2))) lose
// their tasks, the others keep only tasks that exercise the change.
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
	if b := sum.Build; b.ModifiedAPIs != 6 || b.ExercisedAPIs != 3 || b.ModifiedTasks != 6 || b.ExercisingTasks != 3 {
		t.Errorf("summary %+v; want 6 modified APIs, 3 exercised, 6 modified tasks, 3 exercising", b)
	}
	tasks, err := pool.LoadTasks(out, pool.LoadOptions{})
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
	if want := []string{"numpy.nanstd", "numpy.sort", "pandas.Series.apply"}; !slices.Equal(apis, want) {
		t.Errorf("tasks for %v, want %v", apis, want)
	}
}

// TestTasksBuildReuseOptions_RealSandbox reruns `tasks build` into the same
// --out: the same options reuse the pool, changed ones (--change-only,
// then --old-env) rebuild it and say why on stderr.
func TestTasksBuildReuseOptions_RealSandbox(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	sandboxtest.Env(t, "bookworm-sci")
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	build := func(extra ...string) (stdout, stderr string) {
		t.Helper()
		var o, e bytes.Buffer
		args := append([]string{"tasks", "build", "--bundles", filepath.Join("..", "..", "construct", "testdata", "modified.jsonl"),
			"--no-c1", "--no-medium", "--max-examples", "1", "--backend", backendArg(), "--out", out}, extra...)
		if code := run(t.Context(), args, nil, &o, &e); code != 0 {
			t.Fatalf("tasks build %q: exit %d\n%s", extra, code, e.String())
		}
		return o.String(), e.String()
	}
	steps := []struct {
		name      string
		args      []string
		reused    bool
		why       string // in stderr when rebuilt over an existing pool
		wantTasks int
	}{
		{"First", nil, false, "", 6},
		{"Same", nil, true, "", 6},
		{"ChangeOnly", []string{"--change-only"}, false, "change_only false → true", 3},
		{"ChangeOnlyAgain", []string{"--change-only"}, true, "", 3},
		{"OldEnv", []string{"--change-only", "--old-env", "bookworm-sci"}, false, `old_env \"\" → \"bookworm-sci\"`, 3},
	}
	for _, s := range steps {
		stdout, stderr := build(s.args...)
		if got := strings.Contains(stdout, "reused "); got != s.reused {
			t.Errorf("%s: reused %v, want %v\n%s", s.name, got, s.reused, stdout)
		}
		if s.why != "" && !strings.Contains(stderr, s.why) {
			t.Errorf("%s: stderr does not say %q:\n%s", s.name, s.why, stderr)
		}
		tasks, err := pool.LoadTasks(out, pool.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != s.wantTasks {
			t.Errorf("%s: %d tasks, want %d", s.name, len(tasks), s.wantTasks)
		}
		for _, tk := range tasks {
			if checked := tk.OldEnvCheck != ""; checked != (s.name == "OldEnv") {
				t.Errorf("%s: %s old_env_check %q", s.name, tk.APIName, tk.OldEnvCheck)
			}
		}
	}
}
