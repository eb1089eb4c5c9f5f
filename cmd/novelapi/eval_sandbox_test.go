package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// unstackTask is a real task on numpy.unstack (new in numpy 2.1), runnable
// in the trixie-sci environment (numpy 2.2).
func unstackTask(id string) *pool.Task {
	return &pool.Task{
		TaskID: id, APIName: "numpy.unstack", Library: "numpy", Domain: "data_science", Difficulty: "easy", Novelty: "new",
		Description:       "Split the 2-D array x into its rows as a tuple of 1-D arrays, assigned to parts.",
		ContextCode:       "import numpy as np\nx = np.arange(6).reshape(2, 3)",
		MaskedRegion:      "parts = np.unstack(x)",
		ReferenceSolution: "import numpy as np\nx = np.arange(6).reshape(2, 3)\nparts = np.unstack(x)",
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor("numpy.unstack"),
			ExecutionTest: "# --- target-API call check (auto-injected) ---\n" +
				"assert _target_api_spy_installed, \"target-API spy failed to install\"\n" +
				"assert _target_api_call_count[0] > 0, \"solution did not call target API\"\n" +
				"_target_api_call_count[0] = 0\n" + pool.EndCheckMarker + "\n" +
				"assert len(parts) == 2 and parts[1].tolist() == [3, 4, 5], parts\n",
			TargetAPI: "numpy.unstack", GenerationMethod: "execute_then_assert",
		},
	}
}

func writeJSONL(t *testing.T, path string, recs ...any) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvalRun_RealSandbox runs `novelapi eval run` end to end in the real
// sandbox: extraction, the recording monitor, the call-record check, the
// taxonomy, results.jsonl, summary.json, then `eval report`.
func TestEvalRun_RealSandbox(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	dir := t.TempDir()
	responses := map[string]string{
		"pass":      "```python\nparts = np.unstack(x)\n```",
		"wrongapi":  "```python\nparts = tuple(x)\n```",
		"wrongkw":   "```python\nparts = np.unstack(x, dim=0)\n```",
		"assertion": "```python\nparts = np.unstack(x, axis=1)\n```",
	}
	var tasks, expected, preds []any
	for _, id := range []string{"pass", "wrongapi", "wrongkw", "assertion"} {
		tasks = append(tasks, unstackTask(id))
		expected = append(expected, map[string]any{"task_id": id, "api_name": "numpy.unstack", "status": "ok",
			"expected": []any{map[string]any{"kind": "call"}}, "reference_source": "masked_region", "n_runs": 4})
		preds = append(preds, map[string]any{"task_id": id, "samples": []string{responses[id]}})
	}
	writeJSONL(t, filepath.Join(dir, "tasks.jsonl"), tasks...)
	writeJSONL(t, filepath.Join(dir, "expected_calls.jsonl"), expected...)
	writeJSONL(t, filepath.Join(dir, "predictions.jsonl"), preds...)
	out := filepath.Join(dir, "run")
	backend := os.Getenv(sandboxtest.BackendEnvVar)
	if backend == "" {
		backend = "auto"
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--home", sandboxtest.Home(), "eval", "run", "--tasks", filepath.Join(dir, "tasks.jsonl"),
		"--predictions", filepath.Join(dir, "predictions.jsonl"), "--out", out, "--condition", "S_E", "--backend", backend, "--json"},
		strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("eval run: exit %d; stderr:\n%s", code, stderr.String())
	}
	var s evalharness.Summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("eval run --json: %v\n%s", err, stdout.String())
	}
	results, _, err := pool.ReadResults(filepath.Join(out, pool.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pool.TaskResult{}
	for _, r := range results {
		got[r.TaskID] = r
	}
	want := map[string]struct {
		passed bool
		label  string
	}{
		"pass":      {true, "Pass"},
		"wrongapi":  {false, "WrongAPISelection"},
		"wrongkw":   {false, "WrongParam"},
		"assertion": {false, "WrongLogic"},
	}
	for id, w := range want {
		r, ok := got[id]
		if !ok {
			t.Errorf("no result for %s", id)
			continue
		}
		if r.Passed != w.passed || r.Label != w.label {
			t.Errorf("%s: passed %v label %q (rule %s, %s; error %q); want %v %q", id, r.Passed, r.Label, r.Rule, r.Rationale, r.Error, w.passed, w.label)
		}
		if r.Condition != "S+E" {
			t.Errorf("%s: condition %q; want S+E", id, r.Condition)
		}
	}
	if s.N != 4 || s.Passed != 1 || len(s.InfraErrors) != 0 {
		t.Errorf("summary: N %d passed %d infra %v; want 4, 1, none", s.N, s.Passed, s.InfraErrors)
	}
	if r := got["pass"]; !r.TargetCalled || !r.Executed {
		t.Errorf("pass: target_called %v executed %v; want both", r.TargetCalled, r.Executed)
	}

	// A rerun resumes: nothing left to do, same summary.
	stdout.Reset()
	if code := run(t.Context(), []string{"--home", sandboxtest.Home(), "eval", "run", "--tasks", filepath.Join(dir, "tasks.jsonl"),
		"--predictions", filepath.Join(dir, "predictions.jsonl"), "--out", out, "--condition", "S+E", "--backend", backend, "--json"},
		strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("rerun: exit %d; stderr:\n%s", code, stderr.String())
	}
	if rs, _, _ := pool.ReadResults(filepath.Join(out, pool.ResultsFile)); len(rs) != 4 {
		t.Errorf("after rerun results.jsonl has %d records; want 4", len(rs))
	}

	if code := run(t.Context(), []string{"eval", "report", out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("eval report: exit %d; stderr:\n%s", code, stderr.String())
	}
	for _, f := range []string{pool.ReportMDFile, pool.ReportHTML} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// With --skip-invalid, the predictions of the tasks left out are dropped
// with them (the reference predictions an importer writes name every task
// it wrote), while the valid tasks are scored.
func TestEvalRun_SkipInvalidDropsTheirPredictions(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	dir := t.TempDir()
	good, bad := unstackTask("good"), unstackTask("bad")
	bad.SpyScope = pool.SpyScopeEntryPoint // no entry_point: invalid
	var expected []any
	for _, id := range []string{"good", "bad"} {
		expected = append(expected, map[string]any{"task_id": id, "api_name": "numpy.unstack", "status": "ok",
			"expected": []any{map[string]any{"kind": "call"}}, "reference_source": "masked_region", "n_runs": 4})
	}
	writeJSONL(t, filepath.Join(dir, "tasks.jsonl"), good, bad)
	writeJSONL(t, filepath.Join(dir, "expected_calls.jsonl"), expected...)
	sample := []string{"```python\nparts = np.unstack(x)\n```"}
	writeJSONL(t, filepath.Join(dir, "predictions.jsonl"),
		map[string]any{"task_id": "good", "samples": sample}, map[string]any{"task_id": "bad", "samples": sample})
	backend := os.Getenv(sandboxtest.BackendEnvVar)
	if backend == "" {
		backend = "auto"
	}
	args := []string{"--home", sandboxtest.Home(), "eval", "run", "--tasks", filepath.Join(dir, "tasks.jsonl"),
		"--predictions", filepath.Join(dir, "predictions.jsonl"), "--out", filepath.Join(dir, "run"), "--backend", backend, "--json"}
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code == 0 {
		t.Errorf("eval run without --skip-invalid: exit 0; want the invalid task refused")
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(t.Context(), append(args, "--skip-invalid"), strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("eval run --skip-invalid: exit %d; stderr:\n%s", code, stderr.String())
	}
	var s evalharness.Summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || s.N != 1 || s.Passed != 1 {
		t.Errorf("summary N %d passed %d (%v); want the valid task alone, passed", s.N, s.Passed, err)
	}
	if !strings.Contains(stderr.String(), "dropping the predictions of skipped tasks") {
		t.Errorf("stderr lacks the dropped predictions:\n%s", stderr.String())
	}
}

// TestEvalRun_NothingJudged: a run in which every predicted task hits an
// infrastructure error (here: its environment was never built) writes its
// results and summary but exits non-zero, naming the first error.
func TestEvalRun_NothingJudged(t *testing.T) {
	sandboxtest.Runner(t)
	dir := t.TempDir()
	task := unstackTask("absent-env")
	task.Environment = "novelapi-test-never-built"
	writeJSONL(t, filepath.Join(dir, "tasks.jsonl"), task)
	writeJSONL(t, filepath.Join(dir, "expected_calls.jsonl"), map[string]any{"task_id": task.TaskID, "api_name": "numpy.unstack",
		"status": "ok", "expected": []any{map[string]any{"kind": "call"}}, "reference_source": "masked_region", "n_runs": 4})
	writeJSONL(t, filepath.Join(dir, "predictions.jsonl"), map[string]any{"task_id": task.TaskID, "samples": []string{"parts = np.unstack(x)"}})
	backend := os.Getenv(sandboxtest.BackendEnvVar)
	if backend == "" {
		backend = "auto"
	}
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--home", t.TempDir(), "eval", "run", "--tasks", filepath.Join(dir, "tasks.jsonl"),
		"--predictions", filepath.Join(dir, "predictions.jsonl"), "--out", out, "--backend", backend, "--no-test-check"},
		strings.NewReader(""), &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "no task could be judged") || !strings.Contains(stderr.String(), "novelapi-test-never-built") {
		t.Errorf("eval run with no task judged: exit %d; stderr:\n%s\nwant non-zero and the reason", code, stderr.String())
	}
	if s, err := evalharness.ReadSummary(out); err != nil || len(s.InfraErrors) != 1 || s.N != 0 {
		t.Errorf("summary.json: N %d, infra errors %v (%v); want 0 and the task", s.N, s.InfraErrors, err)
	}
}

// TestEvalRun_HumanEvalNoMutant: the tasks of APICoder's PandasEval sample
// whose completions define a function (importers/testdata/apicoder) name
// no API and assign no output, so no mutant applies to any of them; eval
// run's test check says so and flags none of them as untrustworthy.
func TestEvalRun_HumanEvalNoMutant(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	dir := t.TempDir()
	pl := filepath.Join(dir, "pandaseval")
	if code, _, stderr := runArgs(t, sandboxtest.Home(), "import", "humaneval", "../../importers/testdata/apicoder/pandas_eval.jsonl",
		"--out", pl, "--library", "pandaseval", "--env", "trixie-sci"); code != 0 {
		t.Fatalf("import humaneval: exit %d\n%s", code, stderr)
	}
	tasks, err := pool.LoadTasks(filepath.Join(pl, "tasks.jsonl"), pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	refs, err := pool.LoadPredictions(filepath.Join(pl, "reference_predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defines := map[string]bool{}
	for _, tk := range tasks {
		defines[tk.TaskID] = tk.EntryPoint != ""
	}
	var preds []any
	for _, p := range refs {
		if defines[p.TaskID] {
			preds = append(preds, p)
		}
	}
	if len(preds) < 2 {
		t.Fatalf("%d tasks of the sample define a function; want several", len(preds))
	}
	writeJSONL(t, filepath.Join(dir, "predictions.jsonl"), preds...)
	backend := cmp.Or(os.Getenv(sandboxtest.BackendEnvVar), "auto")
	code, stdout, stderr := runArgs(t, sandboxtest.Home(), "eval", "run", "--tasks", filepath.Join(pl, "tasks.jsonl"),
		"--predictions", filepath.Join(dir, "predictions.jsonl"), "--out", filepath.Join(dir, "run"), "--workers", "2", "--backend", backend)
	if code != 0 {
		t.Fatalf("eval run: exit %d\n%s", code, stderr)
	}
	want := fmt.Sprintf("test check: no mutant applies to any of the %d tasks", len(preds))
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, "the task names no API: no call-level mutant") ||
		strings.Contains(stdout, "cannot be trusted") {
		t.Errorf("eval run:\n%s\nwant %q, why, and no task flagged", stdout, want)
	}
}
