package importers_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

const arenaSample = "testdata/codeupdatearena/arena-sample.jsonl"

func importArena(t testing.TB) (string, []*importers.Task, []bundles.Bundle) {
	t.Helper()
	out := t.TempDir()
	st, err := importers.ImportCodeUpdateArena(arenaSample, out, importers.ArenaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bundles != 4 || st.Tasks != 8 || st.Skipped != 0 {
		t.Fatalf("stats = %+v; want 4 bundles, 8 tasks, 0 skipped", st)
	}
	tasks, err := importers.LoadPool(out)
	if err != nil {
		t.Fatal(err)
	}
	bs, _, err := bundles.ReadBundles(filepath.Join(out, importers.BundlesFile), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out, tasks, bs
}

func TestImportCodeUpdateArena_Bundles(t *testing.T) {
	_, _, bs := importArena(t)
	byVersion := map[string]bundles.Bundle{}
	for _, b := range bs {
		if b.Library != importers.ArenaLibrary || b.Provenance == nil || b.Provenance.Origin != importers.ArenaOrigin {
			t.Errorf("%s: library %q provenance %+v; want the codeupdatearena set", b.APIName, b.Library, b.Provenance)
			continue
		}
		if b.Mechanism.Grounding != bundles.GroundingDocstring || b.Implementation == "" || len(b.Examples) != 0 {
			t.Errorf("%s: grounding %q, C %d chars, %d examples; want docstring, C, no E", b.APIName, b.Mechanism.Grounding, len(b.Implementation), len(b.Examples))
		}
		byVersion[b.Provenance.Version] = b
	}
	sin := byVersion["[math.sin]:[modify-output-semantics]:[update-0]"]
	if sin.APIName != "math.sin" || len(sin.SParam) != 2 || sin.SParam[1].Name != "unit" || sin.SParam[1].Default == nil || *sin.SParam[1].Default != "'radians'" {
		t.Errorf("math.sin bundle S = %s %+v", sin.APIName, sin.SParam)
	}
	if !sin.IsModified {
		t.Error("math.sin: is_modified = false; want true (in-place update)")
	}
	rename := byVersion["[numpy.zeros]:[modify-function-name]:[update-0]"]
	if rename.APIName == "numpy.zeros" || !strings.HasPrefix(rename.APIName, "numpy.") || rename.IsModified {
		t.Errorf("rename bundle = %s (is_modified %v); want the new numpy name, new", rename.APIName, rename.IsModified)
	}
}

func TestImportCodeUpdateArena_Tasks(t *testing.T) {
	_, tasks, _ := importArena(t)
	for _, tk := range tasks {
		if !strings.HasPrefix(tk.TaskID, "cua_") || tk.Environment != importers.ArenaEnvironment || tk.Origin != importers.ArenaOrigin {
			t.Errorf("%s: environment %q origin %q", tk.TaskID, tk.Environment, tk.Origin)
		}
		// The update installation is hidden from the prompt: no
		// implementation and no old_<name> capture in the context.
		if strings.Contains(tk.ContextCode, "def ") || strings.Contains(tk.ContextCode, "old_") {
			t.Errorf("%s: context_code leaks the installation:\n%s", tk.TaskID, tk.ContextCode)
		}
		if !strings.Contains(tk.HiddenSetup, "old_") || !strings.Contains(tk.HiddenSetup, "def ") {
			t.Errorf("%s: hidden_setup lacks the installation:\n%s", tk.TaskID, tk.HiddenSetup)
		}
		ex := tk.TestHarness.ExecutionTest
		if !strings.HasPrefix(ex, importers.CheckHead(tk.APIName)) {
			t.Errorf("%s: execution_test does not open with the check head:\n%s", tk.TaskID, ex)
		}
		// The harness counts the calls made inside the entry point.
		if len(tk.UnitTests) == 0 || tk.EntryPoint == "" || tk.SpyScope != pool.SpyScopeEntryPoint {
			t.Errorf("%s: %d unit tests, entry point %q, spy scope %q", tk.TaskID, len(tk.UnitTests), tk.EntryPoint, tk.SpyScope)
		}
		// Task format (docs/protocol.md §1.3); the leaf rule exempts imported
		// pools, whose problem texts name the updated function by design.
		if err := tk.Validate(false); err != nil {
			t.Error(err)
		}
		// Nothing of the installation reaches a prompt.
		p := bundles.Prompt(bundles.PromptInput{TaskID: tk.TaskID, APIName: tk.APIName, Description: tk.Description, ContextCode: tk.ContextCode}, "")
		if strings.Contains(p, "CodeUpdateArena update") || strings.Contains(p, "old_") {
			t.Errorf("%s: prompt shows the hidden setup:\n%s", tk.TaskID, p)
		}
	}
	got := map[string]string{}
	for _, tk := range tasks {
		got[tk.TaskID] = tk.HiddenSetup
	}
	sin := got["cua_math.sin_modify-output-semantics_update-0_prog_syn-0"]
	if !strings.HasSuffix(strings.TrimSpace(sin), "math.sin = sin") {
		t.Errorf("math.sin installation ends with %q; want \"math.sin = sin\"", lastLine(sin))
	}
	rename := got["cua_numpy.zeros_modify-function-name_update-0_prog_syn-0"]
	if !strings.Contains(rename, "del numpy.zeros\nsetattr(numpy, '") {
		t.Errorf("rename installation:\n%s", rename)
	}
}

func TestReferencePredictions(t *testing.T) {
	_, tasks, _ := importArena(t)
	plain := make([]*pool.Task, len(tasks))
	for i, tk := range tasks {
		plain[i] = tk.Task
	}
	preds := importers.ReferencePredictions(plain)
	if len(preds) != len(tasks) {
		t.Fatalf("%d predictions for %d tasks", len(preds), len(tasks))
	}
	for i, p := range preds {
		if p.TaskID != tasks[i].TaskID || len(p.Samples) != 1 || !strings.Contains(p.Samples[0], strings.TrimSpace(tasks[i].MaskedRegion)) {
			t.Errorf("prediction %d = %+v", i, p)
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
