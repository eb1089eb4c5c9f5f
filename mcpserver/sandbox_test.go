package mcpserver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// Real tasks with recorded expected calls, owned by evalharness (read only).
const (
	evalTasks    = "../evalharness/testdata/tasks/tasks.jsonl"
	evalExpected = "../evalharness/testdata/tasks/expected_calls.jsonl"
)

// sandboxServer is a server whose check_code and evaluate run in the real
// sandbox on the trixie-sci environment (skipped locally without one,
// failing under NOVELAPI_REQUIRE_SANDBOX=1).
//
// The pool is copied into a temporary directory: evaluate records its
// check of the tests beside the pool (docs/mutants.md §3).
func sandboxServer(t *testing.T) *mcpserver.Server {
	tasks, expected := copyPool(t)
	return newServer(t, mcpserver.Config{
		Harness: sandboxHarness(t),
		Eval:    mcpserver.EvalConfig{TasksPath: tasks, ExpectedPath: expected, RunsDir: t.TempDir(), Workers: 2},
	})
}

// copyPool copies the real pool (evalTasks, evalExpected) into a
// temporary directory and returns the copies' paths: evaluate records its
// check of the tests beside the pool (docs/mutants.md §3).
func copyPool(t *testing.T) (tasks, expected string) {
	t.Helper()
	dir := t.TempDir()
	tasks, expected = filepath.Join(dir, "tasks.jsonl"), filepath.Join(dir, "expected_calls.jsonl")
	for from, to := range map[string]string{evalTasks: tasks, evalExpected: expected} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tasks, expected
}

// sandboxHarness builds the evaluation harness over the real sandbox and
// the trixie-sci environment (skipped locally without one, failing under
// NOVELAPI_REQUIRE_SANDBOX=1).
func sandboxHarness(t *testing.T) func(context.Context) (*evalharness.Harness, error) {
	r := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	return func(ctx context.Context) (*evalharness.Harness, error) {
		return evalharness.New(evalharness.Config{Runner: r,
			Envs: func(string) (*sandbox.Environment, error) { return env, nil }, Log: quietLog()})
	}
}

type checkOut struct {
	APIName       string `json:"api_name"`
	Library       string `json:"library"`
	Version       string `json:"version"`
	Ran           bool   `json:"ran"`
	TargetCalled  bool   `json:"target_called"`
	ExceptionType string `json:"exception_type"`
	Label         string `json:"label"`
	Where         string `json:"where"`
	Line          int    `json:"line"`
}

func TestCheckCode_Sandbox(t *testing.T) {
	c := inProcess(t, sandboxServer(t))
	tests := []struct {
		name, code  string
		ran, called bool
		label       string
	}{
		{"CallsTarget", "```python\nimport numpy as np\nparts = np.unstack(np.arange(6).reshape(2, 3), axis=0)\nprint(len(parts))\n```", true, true, "Pass"},
		{"NeverCallsTarget", "import numpy as np\nparts = np.split(np.arange(6), 2)\nprint(len(parts))", true, false, "WrongAPISelection"},
		{"WrongParam", "import numpy as np\nparts = np.unstack(np.arange(6).reshape(2, 3), dim=0)", false, true, "WrongParam"}, // the spy counts the rejected call,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, c, "check_code", map[string]any{"code": tt.code, "api_name": "numpy.unstack"})
			wantOK(t, res)
			var out checkOut
			structured(t, res, &out)
			if out.Ran != tt.ran || out.TargetCalled != tt.called || out.Library != "numpy" || out.Version != "2.2.4" {
				t.Errorf("check: %+v\n%s", out, text(res))
			}
			if tt.label != "" && out.Label != tt.label {
				t.Errorf("label %q, want %q\n%s", out.Label, tt.label, text(res))
			}
		})
	}
}

// check_code names the line of the agent's code, not of the assembled
// script with the hidden spy.
func TestCheckCode_SandboxUserLine(t *testing.T) {
	c := inProcess(t, sandboxServer(t))
	res := call(t, c, "check_code", map[string]any{"code": "import numpy as np\nx = np.arange(3)\nnp.unstack(x, axis=5)", "api_name": "numpy.unstack"})
	wantOK(t, res)
	var out checkOut
	structured(t, res, &out)
	txt := text(res)
	if out.Where != "line 3 of your code" || out.Line != 3 || !strings.Contains(txt, "raised at: line 3 of your code") || strings.Contains(txt, "_solution.py") {
		t.Errorf("check: where %q line %d\n%s", out.Where, out.Line, txt)
	}
}

// evaluate over the real sandbox: progress notifications, summary and
// report path.
func TestEvaluate_SandboxProgressAndReport(t *testing.T) {
	c := inProcess(t, sandboxServer(t))
	tasks, err := pool.LoadTasks(evalTasks, pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var preds []any
	for _, tk := range tasks {
		if tk.Library == "numpy" && len(preds) < 2 {
			preds = append(preds, map[string]any{"task_id": tk.TaskID, "completion": tk.MaskedRegion})
		}
	}
	var mu sync.Mutex
	var progress []float64
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			mu.Lock()
			defer mu.Unlock()
			switch p := n.Params.AdditionalFields["progress"].(type) {
			case int:
				progress = append(progress, float64(p))
			case float64:
				progress = append(progress, p)
			}
		}
	})
	var req mcp.CallToolRequest
	req.Params.Name = "evaluate"
	req.Params.Arguments = map[string]any{"predictions": preds, "library": "numpy", "condition": "S+E"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "eval-1"}
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantOK(t, res)
	var out struct {
		RunDir   string `json:"run_dir"`
		ReportMD string `json:"report_md"`
		Tasks    int    `json:"tasks"`
		Summary  struct {
			N      int `json:"n_tasks"`
			Passed int `json:"passed"`
		} `json:"summary"`
	}
	structured(t, res, &out)
	if out.Tasks != 2 || out.Summary.N != 2 || out.Summary.Passed != 2 || out.ReportMD != filepath.Join(out.RunDir, pool.ReportMDFile) {
		t.Errorf("evaluate: %+v\n%s", out, text(res))
	}
	if !strings.Contains(text(res), "pass@1 100.0%") {
		t.Errorf("evaluate text: %s", text(res))
	}
	// The fixture's tests never read the completion's output: the report
	// flags both tasks before the score.
	txt := text(res)
	if i, j := strings.Index(txt, "test check: 0 of 2 tasks have tests that reject every mutant"), strings.Index(txt, "Evaluated 2 tasks"); i < 0 || j < i || strings.Count(txt, "weak: accepts wrong answers") != 2 {
		t.Errorf("evaluate text lacks the test check before the score:\n%s", txt)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) < 2 || progress[len(progress)-1] != 2 {
		t.Errorf("progress notifications: %v, want ... 2", progress)
	}
}

// evaluate over the real sandbox when no task can be judged (the tasks'
// environment is absent, as for a pool whose environment was never
// built): an error result whose nothing_judged says why and names the
// first task, with the run's summary beside it; 'eval run' exits non-zero
// for the same run.
func TestEvaluate_SandboxNothingJudged(t *testing.T) {
	r := sandboxtest.Runner(t)
	tasks, expected := copyPool(t)
	harness := func(context.Context) (*evalharness.Harness, error) {
		return evalharness.New(evalharness.Config{Runner: r, Log: quietLog(),
			Envs: func(lib string) (*sandbox.Environment, error) {
				return nil, errors.New("environment novelapi-test-never-built for " + lib + " is not built")
			}})
	}
	c := inProcess(t, newServer(t, mcpserver.Config{Harness: harness,
		Eval: mcpserver.EvalConfig{TasksPath: tasks, ExpectedPath: expected, RunsDir: t.TempDir(), Workers: 2}}))
	all, err := pool.LoadTasks(evalTasks, pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var preds []any
	for _, tk := range all {
		if tk.Library == "numpy" && len(preds) < 2 {
			preds = append(preds, map[string]any{"task_id": tk.TaskID, "completion": tk.MaskedRegion})
		}
	}
	res := call(t, c, "evaluate", map[string]any{"predictions": preds, "library": "numpy"})
	var out struct {
		NothingJudged string `json:"nothing_judged"`
		Summary       struct {
			N           int      `json:"n_tasks"`
			InfraErrors []string `json:"infra_errors"`
		} `json:"summary"`
	}
	structured(t, res, &out)
	txt := text(res)
	if !res.IsError || !strings.Contains(out.NothingJudged, "no task could be judged: all 2 predicted tasks hit infrastructure errors") ||
		!strings.Contains(out.NothingJudged, "novelapi-test-never-built") || !strings.HasPrefix(txt, "evaluate: no task could be judged") {
		t.Errorf("evaluate with no task judged: error %v, nothing_judged %q\n%s", res.IsError, out.NothingJudged, txt)
	}
	if out.Summary.N != 0 || len(out.Summary.InfraErrors) != 2 {
		t.Errorf("summary: N %d, infra errors %v; want 0 and both tasks", out.Summary.N, out.Summary.InfraErrors)
	}
}
