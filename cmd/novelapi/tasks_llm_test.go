package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestTasksBuildLLM_RealSandbox runs `tasks build --generator llm` with a
// fake model answering one numpy.unstack task, then C1.
func TestTasksBuildLLM_RealSandbox(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles(filepath.Join("..", "..", "construct", "testdata", "bundles.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bpath := filepath.Join(dir, "bundles.jsonl")
	if err := bundles.WriteBundles(bpath, bs[:1]); err != nil {
		t.Fatal(err)
	}
	scen := func(x string) string { return "import numpy as np\nresult = np.unstack(" + x + ")" }
	answer, _ := json.Marshal(map[string]any{"tasks": []map[string]any{{
		"difficulty": "easy", "description": "Split the matrix `m` into a tuple of its rows, stored in `result`.",
		"context_code": "import numpy as np\nm = np.arange(1, 7).reshape(2, 3)", "masked_region": "result = np.unstack(m)",
		"scenarios": map[string]string{
			"basic_1": scen("np.arange(1, 7).reshape(2, 3)"), "basic_2": scen("np.ones((2, 2))"),
			"changed_input_1": scen("np.arange(7, 13).reshape(2, 3)"), "changed_input_2": scen("np.eye(2)"),
			"edge_1": scen("np.array([[5.0]])"), "edge_2": scen("np.zeros((0, 2))"),
		},
	}}})
	srv := llmtest.NewServer(t, func(llmtest.Request) ([]string, int) { return []string{string(answer)}, 0 })
	out := filepath.Join(dir, "pool", "tasks.jsonl")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"tasks", "build", "-q", "--bundles", bpath, "--generator", "llm",
		"--endpoint", srv.URL, "--model", "gen", "--backend", backendArg(), "--out", out, "--json"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("tasks build --generator llm: exit %d\n%s", code, stderr.String())
	}
	var sum struct {
		C1 struct{ Passed, Tasks int }
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	tasks, err := pool.LoadTasks(out, pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || sum.C1.Passed != 1 {
		t.Fatalf("tasks %d, C1 %+v; want one task passing C1", len(tasks), sum.C1)
	}
	if tasks[0].Generator != "llm:gen" {
		t.Errorf("generator %q, want llm:gen", tasks[0].Generator)
	}
}
