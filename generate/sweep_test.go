package generate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/generate"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestSweep_RealSandbox sweeps none and S+E over the oracle and hybrid
// sources with a fake model that answers with the reference only when the
// prompt's documentation starts with the target API (and with an empty
// answer otherwise), so oracle S+E passes everything and none nothing.
func TestSweep_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	fixture, _, err := bundles.ReadBundles(filepath.Join("testdata", "sweep-bundles.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, b := range fixture {
		have[b.APIName] = true
	}
	all, err := pool.LoadTasks(filepath.Join("..", "evalharness", "testdata", "tasks", "tasks.jsonl"), pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var tasks []*pool.Task
	for _, tk := range all {
		if have[tk.APIName] && tk.Library == "numpy" && len(tasks) < 3 {
			tasks = append(tasks, tk)
		}
	}
	if len(tasks) < 2 {
		t.Fatalf("only %d fixture tasks have a bundle", len(tasks))
	}
	expected, err := pool.LoadExpectedCalls(filepath.Join("..", "evalharness", "testdata", "tasks", "expected_calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ixDir := t.TempDir()
	if _, err := index.Build(t.Context(), ixDir, fixture, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ixDir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()

	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		for _, tk := range tasks {
			if strings.HasPrefix(r.Last(), "# Reference Documentation:\nAPI: "+tk.APIName+"\n") &&
				strings.Contains(r.Last(), tk.ContextCode+"\n\n# Task:\n"+tk.Description) {
				return []string{"```python\n" + tk.MaskedRegion + "\n```"}, 0
			}
		}
		return []string{""}, 0
	})
	client, err := llm.New(llm.Config{Endpoint: srv.URL, Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(sandboxtest.Home())})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cfg := generate.SweepConfig{
		Tasks: tasks, Expected: expected,
		Conditions: []bundles.Condition{"none", "S+E"},
		Sources:    []generate.KnowledgeSource{generate.NewOracle(fixture), &generate.Retrieved{Index: ix, Retriever: index.Hybrid}},
		Client:     client, Harness: h, Out: out,
	}
	sum, err := generate.Sweep(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	pass := map[string]float64{}
	for _, c := range sum.Cells {
		pass[c.Source+"/"+c.Condition] = c.Eval.PassAt1
		if c.Eval.N != len(tasks) {
			t.Errorf("cell %s/%s evaluated %d tasks, want %d", c.Source, c.Condition, c.Eval.N, len(tasks))
		}
	}
	t.Logf("pass@1: %v", pass)
	if len(sum.Cells) != 4 || pass["oracle/S+E"] != 1.0 || pass["oracle/none"] != 0 || pass["hybrid/none"] != 0 {
		t.Errorf("pass@1 per cell %v; want oracle/S+E 1.0 and none 0", pass)
	}
	md, err := os.ReadFile(sum.ReportMD)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"oracle", "retrieved", "S+E", "none", "100.0%"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if _, err := os.Stat(sum.ReportHTML); err != nil {
		t.Error(err)
	}
	// A rerun resumes everything: no new model calls.
	calls := srv.Calls.Load()
	if _, err := generate.Sweep(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if srv.Calls.Load() != calls {
		t.Errorf("rerun made %d model calls, want 0", srv.Calls.Load()-calls)
	}
}
