package generate_test

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/generate"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/pool"
)

func testBundles(t testing.TB) []bundles.Bundle {
	t.Helper()
	bs, _, err := bundles.ReadBundles(filepath.Join("..", "bundles", "testdata", "formats", "published.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

func testTasks() []*pool.Task {
	return []*pool.Task{
		{TaskID: "t1", APIName: "numpy.unstack", Library: "numpy", Description: "Split a 2-D array into a tuple of its rows along axis 0.",
			ContextCode: "import numpy as np\nx = np.arange(6).reshape(2, 3)", MaskedRegion: "result = np.unstack(x)"},
		{TaskID: "t2", APIName: "scipy.stats.quantile", Library: "scipy", Description: "Compute the 10th and 90th percentile of the samples.",
			ContextCode: "import numpy as np\nimport scipy.stats\nx = np.arange(10.0)", MaskedRegion: "result = scipy.stats.quantile(x, [0.1, 0.9])"},
		{TaskID: "t3", APIName: "numpy.unstack", Library: "numpy", Description: "Turn the columns of a matrix into a tuple of vectors.",
			ContextCode: "import numpy as np\nm = np.eye(3)", MaskedRegion: "result = np.unstack(m, axis=1)"},
	}
}

// referenceAnswer answers each prompt with the masked region of the task
// whose context code the prompt contains, in a fenced block.
func referenceAnswer(tasks []*pool.Task) llmtest.Answer {
	return func(r llmtest.Request) ([]string, int) {
		for _, t := range tasks {
			if strings.Contains(r.Last(), t.ContextCode+"\n\n# Task:\n"+t.Description) {
				return []string{"```python\n" + t.MaskedRegion + "\n```"}, 0
			}
		}
		return []string{""}, 0
	}
}

func TestRun_OracleWritesPromptsAndResumes(t *testing.T) {
	tasks := testTasks()
	var sawKnowledge atomic.Int64
	answer := referenceAnswer(tasks)
	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		if strings.HasPrefix(r.Last(), "# Reference Documentation:\nAPI: ") {
			sawKnowledge.Add(1)
		}
		return answer(r)
	})
	client, err := llm.New(llm.Config{Endpoint: srv.URL, Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "predictions.jsonl")
	cfg := generate.Config{Tasks: tasks[:2], Condition: "S+E", Source: generate.NewOracle(testBundles(t)), Client: client, Out: out}
	sum, err := generate.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Generated != 2 || sawKnowledge.Load() != 2 {
		t.Fatalf("first run: generated %d, prompts with knowledge %d; want 2, 2", sum.Generated, sawKnowledge.Load())
	}
	cfg.Tasks = tasks
	sum, err = generate.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Generated != 1 || sum.Resumed != 2 {
		t.Errorf("rerun: generated %d resumed %d; want 1, 2", sum.Generated, sum.Resumed)
	}
	preds, err := pool.LoadPredictions(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != 3 {
		t.Fatalf("%d predictions, want 3", len(preds))
	}
	for _, p := range preds {
		if !strings.Contains(p.Samples[0], "result = ") || p.Cell != "S+E" {
			t.Errorf("prediction %s = %q (cell %q), want the reference in a fence", p.TaskID, p.Samples[0], p.Cell)
		}
	}
}

func TestRun_FailuresAreRetriedOnRerun(t *testing.T) {
	tasks := testTasks()
	var fail atomic.Bool
	fail.Store(true)
	answer := referenceAnswer(tasks)
	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		if fail.Load() && strings.Contains(r.Last(), "percentile") {
			return nil, 400
		}
		return answer(r)
	})
	client, _ := llm.New(llm.Config{Endpoint: srv.URL, Model: "fake"})
	out := filepath.Join(t.TempDir(), "p.jsonl")
	cfg := generate.Config{Tasks: tasks, Source: generate.None{}, Client: client, Out: out}
	sum, err := generate.Run(t.Context(), cfg)
	if err == nil || sum.Failed != 1 || sum.Generated != 2 {
		t.Fatalf("Run = %+v, %v; want 1 failure reported as an error and 2 generated", sum, err)
	}
	fail.Store(false)
	sum, err = generate.Run(t.Context(), cfg)
	if err != nil || sum.Generated != 1 || sum.Resumed != 2 {
		t.Fatalf("rerun = %+v, %v; want the failed task generated", sum, err)
	}
}

func TestRun_HybridRecordsHits(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	if _, err := index.Build(t.Context(), dir, testBundles(t), index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	tasks := testTasks()
	srv := llmtest.NewServer(t, referenceAnswer(tasks))
	client, _ := llm.New(llm.Config{Endpoint: srv.URL, Model: "fake"})
	out := filepath.Join(t.TempDir(), "p.jsonl")
	src := &generate.Retrieved{Index: ix, Retriever: index.Hybrid}
	sum, err := generate.Run(t.Context(), generate.Config{Tasks: tasks, Condition: "S", Source: src, Client: client, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := jsonl.Read[generate.Record](out, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if len(r.Hits) == 0 || r.Source != "hybrid" || r.KnowledgeChars == 0 {
			t.Errorf("record %s: hits %v source %q knowledge %d; want retrieved knowledge", r.TaskID, r.Hits, r.Source, r.KnowledgeChars)
		}
	}
	if sum.HitRate < 0 {
		t.Errorf("HitRate = %v, want a share", sum.HitRate)
	}
}

func TestRun_OracleSkipsTasksWithoutBundle(t *testing.T) {
	tasks := append(testTasks(), &pool.Task{TaskID: "t9", APIName: "numpy.nope", Library: "numpy", Description: "x", ContextCode: "y"})
	srv := llmtest.NewServer(t, referenceAnswer(tasks))
	client, _ := llm.New(llm.Config{Endpoint: srv.URL, Model: "fake"})
	out := filepath.Join(t.TempDir(), "sub", "dir", "p.jsonl") // missing directories are created
	sum, err := generate.Run(t.Context(), generate.Config{Tasks: tasks, Condition: "S", Source: generate.NewOracle(testBundles(t)), Client: client, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.NoBundle != 1 || sum.Generated != 3 || sum.Failed != 0 {
		t.Errorf("summary = %+v; want 3 generated and 1 skipped for lack of a bundle", sum)
	}
}
