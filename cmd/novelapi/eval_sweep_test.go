package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// numpyFixtureTasks returns the numpy tasks of evalharness's real task
// fixture that have a bundle in generate's sweep fixture (at most n).
func numpyFixtureTasks(t *testing.T, n int) ([]*pool.Task, []bundles.Bundle) {
	t.Helper()
	bs, _, err := bundles.ReadBundles(filepath.Join("..", "..", "generate", "testdata", "sweep-bundles.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, b := range bs {
		have[b.APIName] = true
	}
	all, err := pool.LoadTasks(filepath.Join("..", "..", "evalharness", "testdata", "tasks", "tasks.jsonl"), pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*pool.Task
	for _, tk := range all {
		if have[tk.APIName] && len(out) < n {
			out = append(out, tk)
		}
	}
	return out, bs
}

// referenceServer answers with the task's masked region when the prompt
// carries documentation (any), and with an empty answer otherwise.
func referenceServer(t *testing.T, tasks []*pool.Task, needDocs bool) *llmtest.Server {
	return llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		if needDocs && !strings.HasPrefix(r.Last(), "# Reference Documentation:\n") {
			return []string{""}, 0
		}
		for _, tk := range tasks {
			if strings.Contains(r.Last(), "# Task:\n"+tk.Description+"\n") {
				return []string{"```python\n" + tk.MaskedRegion + "\n```"}, 0
			}
		}
		return []string{""}, 0
	})
}

func backendArg() string {
	if b := os.Getenv(sandboxtest.BackendEnvVar); b != "" {
		return b
	}
	return "auto"
}

func TestEvalSweep_RealSandbox(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	tasks, bs := numpyFixtureTasks(t, 2)
	dir := t.TempDir()
	ixDir := filepath.Join(dir, "index")
	if _, err := index.Build(t.Context(), ixDir, bs, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	var ids []byte
	for _, tk := range tasks {
		ids = append(ids, tk.TaskID+"\n"...)
	}
	inst := filepath.Join(dir, "instance.txt")
	if err := os.WriteFile(inst, ids, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := referenceServer(t, tasks, true)
	out := filepath.Join(dir, "sweep")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"eval", "sweep", "-q",
		"--tasks", filepath.Join("..", "..", "evalharness", "testdata", "tasks", "tasks.jsonl"), "--instance", inst,
		"--bundles", filepath.Join("..", "..", "generate", "testdata", "sweep-bundles.jsonl"), "--index", ixDir,
		"--conditions", "none,S+E", "--knowledge", "oracle,hybrid", "--endpoint", srv.URL, "--model", "fake",
		"--backend", backendArg(), "--out", out, "--json"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("eval sweep exit %d\nstderr: %s", code, stderr.String())
	}
	var sum struct {
		Cells []struct {
			Knowledge, Condition string
			Eval                 evalharness.Summary
		}
		ReportMD string `json:"report_md"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("decode %s: %v", stdout.String(), err)
	}
	got := map[string]float64{}
	for _, c := range sum.Cells {
		got[c.Knowledge+"/"+c.Condition] = c.Eval.PassAt1
	}
	if len(got) != 4 || got["oracle/S+E"] != 1 || got["oracle/none"] != 0 {
		t.Errorf("pass@1 per cell %v; want 4 cells, oracle S+E 1.0, none 0", got)
	}
	md, err := os.ReadFile(filepath.Join(out, pool.ReportMDFile))
	if err != nil || !strings.Contains(string(md), "retrieved") || !strings.Contains(string(md), "oracle") {
		t.Errorf("report.md (%v):\n%s", err, md)
	}
	for _, cell := range []string{"oracle/none", "oracle/S+E", "hybrid/none", "hybrid/S+E"} {
		if _, err := os.Stat(filepath.Join(out, cell, pool.ResultsFile)); err != nil {
			t.Errorf("cell %s: %v", cell, err)
		}
	}
}

func TestTasksFilter_RealSandbox(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	tasks, _ := numpyFixtureTasks(t, 2)
	dir := t.TempDir()
	var recs []any
	for _, tk := range tasks {
		recs = append(recs, tk)
	}
	tasksPath := filepath.Join(dir, "tasks.jsonl")
	writeJSONL(t, tasksPath, recs...)
	weak := llmtest.NewServer(t, func(llmtest.Request) ([]string, int) { return []string{"```python\nresult = None\n```"}, 0 })
	strong := referenceServer(t, tasks, true)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"tasks", "filter", "-q", "--tasks", tasksPath,
		"--bundles", filepath.Join("..", "..", "generate", "testdata", "sweep-bundles.jsonl"),
		"--c2-model", "org/weak-7b", "--c3-model", "strong", "--endpoint", weak.URL, "--c3-endpoint", strong.URL,
		"--backend", backendArg(), "--json"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("tasks filter exit %d\nstderr: %s", code, stderr.String())
	}
	ids, err := pool.LoadInstance(filepath.Join(dir, "instances", "weak-7b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(tasks) {
		t.Errorf("instance holds %v, want all %d tasks\n%s", ids, len(tasks), stdout.String())
	}
	for _, f := range []string{"filters/c1.jsonl", "filters/c2/weak-7b.jsonl", "filters/c3/weak-7b.jsonl", "excluded_tasks.tsv", "expected_calls.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
