package importers_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/internal/jsonl"
)

func importPriCoder(t testing.TB) (string, []*importers.Task) {
	t.Helper()
	out := t.TempDir()
	st, err := importers.ImportPriCoder(out, importers.PriCoderConfig{
		TasksPath: "testdata/pricoder/tasks.jsonl", DocsPath: "testdata/pricoder/docs.jsonl",
		Library: "toy", Environment: "trixie-sci", Domain: "data_science",
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bundles != 3 || st.Tasks != 2 || st.Skipped != 1 {
		t.Fatalf("stats = %+v; want 3 bundles, 2 tasks, 1 skipped", st)
	}
	tasks, err := importers.LoadPool(out)
	if err != nil {
		t.Fatal(err)
	}
	return out, tasks
}

func TestImportPriCoder(t *testing.T) {
	out, tasks := importPriCoder(t)
	bs, _, err := bundles.ReadBundles(filepath.Join(out, importers.BundlesFile), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if b.Provenance.Origin != importers.PriCoderOrigin || b.Mechanism.Text == "" || b.Implementation == "" || len(b.SParam) == 0 {
			t.Errorf("%s: bundle lacks S, M or C: %+v", b.APIName, b)
		}
	}
	t1 := tasks[0]
	if t1.APIName != "numpy.linalg.norm" || !slices.Equal(t1.SpyAPIs, []string{"numpy.clip"}) {
		t.Errorf("t1 targets = %s + %v; want numpy.linalg.norm + [numpy.clip]", t1.APIName, t1.SpyAPIs)
	}
	if t1.EntryPoint != "unit_rows" || !strings.Contains(t1.TestHarness.ExecutionTest, "check(unit_rows)") {
		t.Errorf("t1 entry %q, test:\n%s", t1.EntryPoint, t1.TestHarness.ExecutionTest)
	}
	for _, tk := range tasks {
		if err := tk.Validate(false); err != nil {
			t.Errorf("task format: %v", err)
		}
	}
	skipped, _, err := jsonl.Read[importers.Skipped](filepath.Join(out, importers.SkippedFile), jsonl.ReadOptions{})
	if err != nil || len(skipped) != 1 || !strings.Contains(skipped[0].Reason, "pandas.no_such_api") {
		t.Errorf("skipped = %+v, %v", skipped, err)
	}
}

func TestImportHumanEval(t *testing.T) {
	out := t.TempDir()
	st, err := importers.ImportHumanEval("testdata/humaneval/pool.jsonl", out, importers.HumanEvalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks != 2 || st.Bundles != 0 {
		t.Fatalf("stats = %+v", st)
	}
	tasks, err := importers.LoadPool(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		if tk.SpyNeeded() || tk.APIName != "" {
			t.Errorf("%s: spy required %v api %q; want the spy off", tk.TaskID, tk.SpyNeeded(), tk.APIName)
		}
		if err := tk.Validate(false); err != nil {
			t.Errorf("task format: %v", err)
		}
	}
	if got := tasks[1].ContextCode; got != "import math" {
		t.Errorf("Toy/1 context = %q; want the prompt's imports", got)
	}
	if !strings.Contains(tasks[1].MaskedRegion, "def _half(") {
		t.Errorf("Toy/1 reference lacks the prompt's helper:\n%s", tasks[1].MaskedRegion)
	}
}

func TestImport_BadLine(t *testing.T) {
	_, err := importers.ImportHumanEval("testdata/pricoder/docs.jsonl", t.TempDir(), importers.HumanEvalConfig{})
	pe, ok := errorsAsParse(err)
	if !ok || pe.Line != 1 || !strings.HasSuffix(pe.Path, "docs.jsonl") {
		t.Errorf("err = %v; want a ParseError naming docs.jsonl line 1", err)
	}
}
