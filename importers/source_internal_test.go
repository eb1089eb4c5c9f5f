package importers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// statementStarts finds the top-level statements of real modules where
// Python's parser does: the package sources of pandas and numpy in a Debian
// environment (multi-line imports in parentheses, decorators, docstrings,
// continued lines), checked against ast in the sandbox.
func TestStatementStarts_RealModules(t *testing.T) {
	env := sandboxtest.Env(t, "bookworm-sci")
	files := []string{
		"/usr/lib/python3/dist-packages/pandas/__init__.py",
		"/usr/lib/python3/dist-packages/pandas/core/api.py",
		"/usr/lib/python3/dist-packages/pandas/core/reshape/merge.py",
		"/usr/lib/python3/dist-packages/numpy/__init__.py",
		"/usr/lib/python3/dist-packages/numpy/lib/function_base.py",
		"/usr/lib/python3/dist-packages/numpy/core/numeric.py",
	}
	script, err := os.ReadFile("testdata/source/statement_lines.py")
	if err != nil {
		t.Fatal(err)
	}
	list, _ := json.Marshal(files)
	if os.Getenv(sandboxtest.BackendEnvVar) == "" {
		t.Setenv(sandboxtest.BackendEnvVar, "bwrap")
	}
	r, err := sandboxtest.Runner(t).Run(t.Context(), sandbox.Spec{
		Environment: env,
		Files:       []sandbox.File{{Path: "main.py", Data: script}, {Path: "files.json", Data: list}},
	})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("ast run: %v, exit %d: %s", err, r.ExitCode, r.Stderr)
	}
	var want map[string][]int
	if err := json.Unmarshal(r.Stdout, &want); err != nil {
		t.Fatalf("ast run printed %q: %v", r.Stdout, err)
	}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(env.Root, f))
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, off := range statementStarts(string(src)) {
			got = append(got, strings.Count(string(src[:off]), "\n")+1)
		}
		if !slices.Equal(got, want[f]) {
			t.Errorf("%s: statement lines\n got %v\nwant %v", f, got, want[f])
		}
	}
}

// splitPrompt keeps a multi-line import whole: the context of a prompt
// whose imports are parenthesised (pandas/core/api.py's first lines, then
// the entry point) is everything before the def.
func TestSplitPrompt_MultiLineImport(t *testing.T) {
	env := sandboxtest.Env(t, "bookworm-sci")
	src, err := os.ReadFile(filepath.Join(env.Root, "/usr/lib/python3/dist-packages/pandas/core/api.py"))
	if err != nil {
		t.Fatal(err)
	}
	head, _, ok := strings.Cut(string(src), "\n__all__")
	if !ok || !strings.Contains(head, "import (\n") {
		t.Fatalf("pandas/core/api.py has no parenthesised import before __all__")
	}
	prompt := head + "\n\ndef nunique_rows(df):\n    \"\"\"Count the distinct rows of df.\"\"\"\n    return "
	ctx, rest := splitPrompt(prompt, "nunique_rows")
	if ctx != head+"\n\n" || !strings.HasPrefix(rest, "def nunique_rows(df):") {
		t.Errorf("context ends %q, rest starts %q", ctx[max(0, len(ctx)-60):], rest[:min(len(rest), 30)])
	}
}
