package construct_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// unstackTaskSet is a canned model answer for numpy.unstack: a good easy
// task, a good medium task, a hard task whose description leaks the name,
// and a task whose scenarios mostly crash.
func unstackTaskSet(t testing.TB) string {
	t.Helper()
	scen := func(a, b, e string) map[string]string {
		return map[string]string{
			"basic_1":         "import numpy as np\nresult = np.unstack(" + a + ")",
			"basic_2":         "import numpy as np\nresult = np.unstack(" + a + ", axis=0)",
			"changed_input_1": "import numpy as np\nresult = np.unstack(" + b + ")",
			"changed_input_2": "import numpy as np\nresult = np.unstack(" + b + ", axis=1)",
			"edge_1":          "import numpy as np\nresult = np.unstack(" + e + ")",
			"edge_2":          "import numpy as np\nresult = np.unstack(np.zeros((0, 3)))",
		}
	}
	set := map[string]any{"tasks": []map[string]any{
		{
			"difficulty":         "easy",
			"description":        "Split the 2-D array `grid` into a tuple holding its rows and store it in `result`.",
			"context_code":       "import numpy as np\ngrid = np.arange(1, 13).reshape(3, 4)",
			"masked_region":      "result = np.unstack(grid)",
			"reference_solution": "import numpy as np\ngrid = np.arange(1, 13).reshape(3, 4)\nresult = np.unstack(grid)",
			"scenarios":          scen("np.arange(1, 13).reshape(3, 4)", "np.arange(13, 25).reshape(3, 4)", "np.array([[7.0]])"),
		},
		{
			"difficulty":    "medium",
			"description":   "Normalise each column of `readings` to unit maximum, then split the result into a tuple of its columns and store it in `result`.",
			"context_code":  "import numpy as np\nreadings = np.array([[1.0, 2.0], [3.0, 8.0], [2.0, 4.0]])",
			"masked_region": "scaled = readings / readings.max(axis=0)\nresult = np.unstack(scaled, axis=1)",
			"scenarios":     scen("np.array([[1.0, 2.0], [3.0, 8.0]]) / 8.0", "np.array([[5.0, 1.0], [2.0, 3.0]])", "np.ones((1, 1))"),
		},
		{
			"difficulty":    "hard",
			"description":   "Use unstack to split a batch of images.",
			"context_code":  "import numpy as np\nimgs = np.ones((2, 4, 4))",
			"masked_region": "result = np.unstack(imgs)",
			"scenarios":     scen("np.ones((2, 2, 2))", "np.ones((3, 2, 2))", "np.ones((1, 1, 1))"),
		},
		{
			"difficulty":    "hard",
			"description":   "Split a batch of images into separate images.",
			"context_code":  "import numpy as np\nimgs = np.ones((2, 4, 4))",
			"masked_region": "result = np.unstack(imgs)",
			"scenarios":     map[string]string{"basic_1": "raise ValueError('x')", "edge_1": "import numpy as np\nresult = np.unstack(np.ones((2, 2)))"},
		},
	}}
	data, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return "Here are the tasks:\n```json\n" + string(data) + "\n```"
}

func TestGenerateTasks_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles("testdata/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	answer := unstackTaskSet(t)
	var sawDocs bool
	client, srv := newClient(t, func(r llmtest.Request) ([]string, int) {
		sawDocs = sawDocs || strings.Contains(r.Last(), "API: numpy.unstack")
		return []string{answer}, 0
	}, "gen-model")
	tasks, sum, err := construct.GenerateTasks(t.Context(), construct.LLMConfig{Bundles: bs[:1], Env: env, Runner: runner, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("summary %+v", sum)
	if srv.Calls.Load() != 1 || !sawDocs {
		t.Errorf("calls %d (docs in prompt: %v), want one call with the bundle", srv.Calls.Load(), sawDocs)
	}
	if len(tasks) != 2 || sum.Skipped["description leaks the leaf name"] != 1 || sum.Skipped["only 1 of 6 scenarios ran"] != 1 {
		t.Fatalf("got %d tasks, skipped %v; want easy and medium kept, one leak and one scenario failure", len(tasks), sum.Skipped)
	}
	for _, tk := range tasks {
		th := tk.TestHarness
		if tk.Generator != "llm:gen-model" || th.GenerationMethod != "execute_then_assert" || th.ScenariosSucceeded != 6 || th.ScenariosTotal != 6 {
			t.Errorf("%s: generator %q method %q scenarios %d/%d", tk.TaskID, tk.Generator, th.GenerationMethod, th.ScenariosSucceeded, th.ScenariosTotal)
		}
		if !strings.HasPrefix(tk.TaskID, "llm_") || !strings.Contains(th.ExecutionTest, "assert len(result) == ") {
			t.Errorf("%s: execution_test lacks the structural layer:\n%s", tk.TaskID, th.ExecutionTest)
		}
		if !strings.Contains(th.ShapeTypeTest, "_nv_differ") {
			t.Errorf("%s: shape_type_test lacks the comparison layer:\n%s", tk.TaskID, th.ShapeTypeTest)
		}
		for _, l := range []string{th.ExecutionTest, th.ShapeTypeTest, th.MockTest} {
			if l != "" && !strings.HasPrefix(l, pool.CheckBlock(tk.APIName)) {
				t.Errorf("%s: layer without the check block:\n%s", tk.TaskID, l)
			}
		}
		if err := tk.Validate(false); err != nil {
			t.Errorf("%s: %v", tk.TaskID, err)
		}
	}
	// The generated tasks pass C1.
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(sandboxtest.Home()), NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	c1, err := construct.RecordAndFilterC1(t.Context(), tasks, construct.C1Config{Harness: h, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if c1.Passed != len(tasks) {
		t.Errorf("C1: %d of %d generated tasks pass (%v)", c1.Passed, len(tasks), c1.CallStatus)
	}
}
