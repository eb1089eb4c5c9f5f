package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/pool"
)

func TestMCPGenerator_OracleAndRetrieved(t *testing.T) {
	bs, _, err := bundles.ReadBundles(filepath.Join("..", "..", "bundles", "testdata", "formats", "published.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := index.Build(t.Context(), dir, bs, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	var prompts []string
	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		prompts = append(prompts, r.Last())
		return []string{"```python\nresult = np.unstack(x)\n```"}, 0
	})
	client, _ := llm.New(llm.Config{Endpoint: srv.URL, Model: "fake"})
	gen := mcpGenerator(client, dir)
	tasks := []*pool.Task{{TaskID: "t1", APIName: "numpy.unstack", Library: "numpy",
		Description: "Split the rows of x into a tuple.", ContextCode: "import numpy as np\nx = np.eye(2)"}}
	for _, retrieval := range []string{"oracle", "retrieved"} {
		preds, err := gen(t.Context(), mcpserver.GenerateRequest{Tasks: tasks, Condition: "S", Retrieval: retrieval})
		if err != nil {
			t.Fatalf("%s: %v", retrieval, err)
		}
		if len(preds) != 1 || !strings.Contains(preds[0].Samples[0], "np.unstack") {
			t.Fatalf("%s: predictions = %+v", retrieval, preds)
		}
		last := prompts[len(prompts)-1]
		if !strings.HasPrefix(last, "# Reference Documentation:\n") || !strings.Contains(last, "API: numpy.unstack") {
			t.Errorf("%s: prompt lacks the bundle's knowledge:\n%s", retrieval, last)
		}
	}
	if _, err := gen(t.Context(), mcpserver.GenerateRequest{Tasks: tasks, Retrieval: "bogus"}); err == nil {
		t.Error("unknown retrieval: want an error")
	}
}
