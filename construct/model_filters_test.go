package construct_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func TestFirstBlock(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"Python", "text\n```python\nx = 1\n```\nmore ```python\ny```", "x = 1\n"},
		{"Untagged", "```\nx = 2\n```", "x = 2\n"},
		{"OtherTagIsBody", "```py\nx = 3\n```", "py\nx = 3\n"},
		{"NoFence", "x = 4", "x = 4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := construct.FirstBlock(tt.in); got != tt.want {
				t.Errorf("FirstBlock(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestC3Knowledge(t *testing.T) {
	bs, _, err := bundles.ReadBundles("testdata/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := construct.C3Knowledge(&bs[0])
	for _, want := range []string{
		"Import:\n    from numpy import unstack\n\nAPI: numpy.unstack\n\nParameters:\n",
		"\n\nExample 1:\n```python\n",
		"\n\nConceptual background:\nSplit an array",
		"\n\nImplementation source (M_code):\n```python\ndef unstack(",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("C3Knowledge lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Implementation source:\n") {
		t.Errorf("C3Knowledge has the evaluation header for C")
	}
}

func TestModelSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Qwen/Qwen2.5-Coder-7B-Instruct": "Qwen2.5-Coder-7B-Instruct",
		"gpt-5-mini":                     "gpt-5-mini",
		"a b:c":                          "a-b-c",
	} {
		if got := construct.ModelSlug(in); got != want {
			t.Errorf("ModelSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

// maskedAnswer answers each prompt with the masked region of the task whose
// description it contains; other prompts get wrong.
func maskedAnswer(tasks []*pool.Task, wrong string) llmtest.Answer {
	return func(r llmtest.Request) ([]string, int) {
		for _, t := range tasks {
			if strings.Contains(r.Last(), "# Task:\n"+t.Description+"\n") {
				return []string{"Here:\n```python\n" + t.MaskedRegion + "\n```\n"}, 0
			}
		}
		return []string{wrong}, 0
	}
}

func newClient(t testing.TB, fn llmtest.Answer, model string) (*llm.Client, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, fn)
	c, err := llm.New(llm.Config{Endpoint: srv.URL, Model: model, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// TestFilters_RealSandbox runs C1, C2 (a weak model answering with a wrong
// call: all novel; a model answering with the reference: none novel), C3 (a
// strong model answering with the masked region) and writes the instance.
func TestFilters_RealSandbox(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	bs, _, err := bundles.ReadBundles("testdata/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _, err := construct.BuildTasks(t.Context(), construct.BuildConfig{Bundles: bs[:1], Env: env, Runner: runner, Medium: true})
	if err != nil || len(tasks) == 0 {
		t.Fatalf("BuildTasks: %d tasks, %v", len(tasks), err)
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(sandboxtest.Home()), NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := construct.RecordAndFilterC1(t.Context(), tasks, construct.C1Config{Harness: h, Dir: dir}); err != nil {
		t.Fatal(err)
	}

	// A weak model that calls the wrong function: every sample fails.
	weak, weakSrv := newClient(t, func(llmtest.Request) ([]string, int) {
		return []string{"```python\nresult = np.split(arr, 3, axis=1)\n```"}, 0
	}, "weak/model-7b")
	sum, err := construct.FilterC2(t.Context(), tasks, construct.FilterConfig{Client: weak, Harness: h, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != len(tasks) {
		t.Errorf("C2 weak: %d of %d novel, want all", sum.Kept, len(tasks))
	}
	recs, _, err := jsonl.Read[construct.C2Record](construct.C2Path(dir, "weak/model-7b"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if !r.Novel || r.FailCount != 3 || len(r.SampleFails) != 3 || r.Model != "weak/model-7b" {
			t.Errorf("C2 record %+v, want novel with 3 fails", r)
		}
	}
	calls := weakSrv.Calls.Load()
	if sum, err := construct.FilterC2(t.Context(), tasks, construct.FilterConfig{Client: weak, Harness: h, Dir: dir}); err != nil || sum.Resumed != len(tasks) || weakSrv.Calls.Load() != calls {
		t.Errorf("C2 rerun: %+v, %v, %d new calls; want all resumed, none", sum, err, weakSrv.Calls.Load()-calls)
	}

	// A model that knows the API: nothing is novel for it.
	knows, _ := newClient(t, maskedAnswer(tasks, ""), "knows")
	sum, err = construct.FilterC2(t.Context(), tasks, construct.FilterConfig{Client: knows, Harness: h, Dir: dir})
	if err != nil || sum.Kept != 0 {
		t.Errorf("C2 with the reference: %+v, %v; want none novel", sum, err)
	}

	// C3: the strong model answers with the masked region; the prompt must
	// carry the C3 rendering.
	var sawC3 bool
	answer := maskedAnswer(tasks, "")
	strong, _ := newClient(t, func(r llmtest.Request) ([]string, int) {
		if strings.HasPrefix(r.Last(), "# Reference Documentation:\nImport:\n    from numpy import unstack\n") {
			sawC3 = true
		}
		return answer(r)
	}, "strong")
	exp, err := pool.LoadExpectedCalls(filepath.Join(dir, "expected_calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err = construct.FilterC3(t.Context(), tasks, construct.C3Config{
		FilterConfig: construct.FilterConfig{Client: strong, Harness: h, Dir: dir, Model: "weak/model-7b"},
		Bundles:      map[string]*bundles.Bundle{bs[0].APIName: &bs[0]}, Expected: exp,
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != len(tasks) || !sawC3 {
		t.Errorf("C3: %d of %d solvable (C3 prompt seen: %v), want all", sum.Kept, len(tasks), sawC3)
	}
	c3, _, _ := jsonl.Read[construct.C3Record](construct.C3Path(dir, "weak/model-7b"), jsonl.ReadOptions{})
	for _, r := range c3 {
		if r.NPassed != 3 || r.RecheckPassed == nil || *r.RecheckPassed != 3 || r.Solver != "strong" {
			t.Errorf("C3 record %+v, want 3 passed, recheck 3", r)
		}
	}

	inst, err := construct.WriteInstance(dir, "weak/model-7b", tasks, []construct.Exclusion{{TaskID: tasks[0].TaskID, Reason: "evaluation_unsafe"}})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pool.LoadInstance(inst.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(tasks)-1 || inst.Excluded != 1 || filepath.Base(inst.Path) != "model-7b.txt" {
		t.Errorf("instance %+v holds %v; want all tasks but the excluded one", inst, ids)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "excluded_tasks.tsv")); string(data) != tasks[0].TaskID+"\tevaluation_unsafe\n" {
		t.Errorf("excluded_tasks.tsv = %q", data)
	}
	// The model that knows the API has no C3 file yet: a clear error.
	if _, err := construct.WriteInstance(dir, "knows", tasks, nil); err == nil || !strings.Contains(err.Error(), "c3") {
		t.Errorf("WriteInstance without C3 records: %v, want an error naming the c3 file", err)
	}
}
