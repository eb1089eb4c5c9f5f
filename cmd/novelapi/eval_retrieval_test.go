package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eval retrieval: bad flag values are usage errors (exit 2) before any
// index is opened; an empty queries file and a record without api_name
// are errors naming the file and line; a run over the four shared-hit
// conditions prints the shared row and its count.
func TestEvalRetrieval(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "idx")
	if code, _, stderr := runArgs(t, home, "index", "build", "--bundles", "../../index/testdata/bundles.jsonl", "--index", dir); code != 0 {
		t.Fatalf("index build: exit %d: %s", code, stderr)
	}
	write := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("q.jsonl", `{"query":"split an array into a tuple of arrays along an axis","api_name":"numpy.unstack"}`+"\n"+
		`{"query":"choose values by conditions like CASE WHEN","api_name":"pandas.Series.case_when"}`+"\n")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--queries", good, "--index", filepath.Join(home, "none")}, 1, "none"},
		{[]string{"--queries", good, "--index", dir, "--retrievers", "foo"}, 2, `unknown retriever "foo"; want one of hybrid`},
		{[]string{"--queries", good, "--index", dir, "--conditions", "none"}, 2, "--conditions"},
		{[]string{"--queries", write("empty.jsonl", "\n"), "--index", dir}, 1, "no queries"},
		{[]string{"--queries", write("blank.jsonl", `{"query":"a","api_name":"numpy.unstack"}`+"\n\n\n"+`{"query":"b"}`+"\n"), "--index", dir}, 1, "blank.jsonl:4: needs api_name"},
	} {
		code, _, stderr := runArgs(t, home, append([]string{"eval", "retrieval"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("eval retrieval %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
	code, stdout, stderr := runArgs(t, home, "eval", "retrieval", "--queries", good, "--index", dir, "--conditions", "S,S+M,S+E,Full")
	if code != 0 || !strings.Contains(stdout, "paper     shared all") || !strings.Contains(stdout, "of 2 queries in the top five under each of S, S+M, S+E and Full") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant the shared row and its count", code, stdout, stderr)
	}
	code, stdout, _ = runArgs(t, home, "eval", "retrieval", "--queries", good, "--index", dir, "--conditions", "Full")
	if code != 0 || !strings.Contains(stdout, "no paper shared row: it needs the conditions S, S+M, S+E and Full") {
		t.Errorf("exit %d, stdout:\n%s\nwant the note that the shared row needs four conditions", code, stdout)
	}
}
