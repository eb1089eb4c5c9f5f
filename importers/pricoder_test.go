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

func TestImport_BadLine(t *testing.T) {
	_, err := importers.ImportHumanEval("testdata/pricoder/docs.jsonl", t.TempDir(), importers.HumanEvalConfig{})
	pe, ok := errorsAsParse(err)
	if !ok || pe.Line != 1 || !strings.HasSuffix(pe.Path, "docs.jsonl") {
		t.Errorf("err = %v; want a ParseError naming docs.jsonl line 1", err)
	}
}

// importPriCoderModule imports NumpyEval/28 (APICoder), a task without a
// function whose module code calls numpy.setxor1d, as a PriCoder-style
// record requiring numpy.setxor1d.
func importPriCoderModule(t testing.TB) (string, *importers.Task) {
	t.Helper()
	recs, _, err := jsonl.Read[importers.HumanEvalRecord]("testdata/apicoder/numpy_eval.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(recs, func(r importers.HumanEvalRecord) bool { return r.TaskID == "NumpyEval/28" })
	if i < 0 {
		t.Fatal("NumpyEval/28 is not in the sample")
	}
	r := recs[i]
	in := t.TempDir()
	tasks := filepath.Join(in, "tasks.jsonl")
	docs := filepath.Join(in, "docs.jsonl")
	if err := jsonl.Write(tasks, []importers.PriCoderRecord{{
		ID: r.TaskID, Prompt: r.Prompt, CanonicalSolution: r.CanonicalSolution[0], Test: r.Test, APIList: []string{"numpy.setxor1d"},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := jsonl.Write(docs, []importers.PriCoderDoc{{
		Qualname: "numpy.setxor1d", Signature: "(ar1, ar2, assume_unique=False)",
		Docstring: "Find the set exclusive-or of two arrays.",
	}}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := importers.ImportPriCoder(out, importers.PriCoderConfig{TasksPath: tasks, DocsPath: docs, Library: "numpyeval", Environment: "trixie-sci"}); err != nil {
		t.Fatal(err)
	}
	got, err := importers.LoadPool(out)
	if err != nil || len(got) != 1 {
		t.Fatalf("pool = %v, %v; want one task", got, err)
	}
	return out, got[0]
}

// A PriCoder-style prompt without a function is a module: the task is
// valid (the spy counts the completion's own calls, the protocol's check
// block), and its program is the module as written, then the test and
// check().
func TestImportPriCoder_Module(t *testing.T) {
	_, tk := importPriCoderModule(t)
	if err := tk.Validate(false); err != nil {
		t.Fatalf("task format: %v", err)
	}
	if tk.SpyScope != "" || tk.EntryPoint != "" || !strings.Contains(tk.TestHarness.ExecutionTest, "assert _target_api_call_count[0] > 0") {
		t.Errorf("scope %q entry %q test %q; want the completion scope and the check block", tk.SpyScope, tk.EntryPoint, head(tk.TestHarness.ExecutionTest, 200))
	}
	if !strings.HasPrefix(tk.MaskedRegion, "diff_arr = np.setxor1d(a, b)") || !strings.HasSuffix(tk.TestHarness.ExecutionTest, "\ncheck()") {
		t.Errorf("masked %q, test ends %q", head(tk.MaskedRegion, 40), tail(tk.TestHarness.ExecutionTest, 20))
	}
}
