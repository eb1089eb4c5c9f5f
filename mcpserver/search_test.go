package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/mcpserver"
)

// A query that is one identifier no indexed API has answers with a note
// first: no novel API has that name, the results match its words only, and
// the nearest names. A name that is indexed, a bare leaf or words get no
// such note.
func TestSearch_UnknownNameNote(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tests := []struct {
		name, query, library string
		wantNote             bool
	}{
		{"ImportAlias", "np.cumulative_max", "", true},
		{"OtherClass", "pandas.DataFrame.case_when", "", true},
		{"ClassMethod", "DataFrame.applymap", "", true},
		{"Qualified", "numpy.linalg.matrix_rank", "", true},
		{"Call", "cumulative_max()", "", true},
		{"InLibrary", "np.cumulative_max", "numpy", true},
		{"Indexed", "numpy.linalg.matrix_norm", "", false},
		{"IndexedImportAlias", "np.unique_counts", "", false},
		{"IndexedLeaf", "unstack", "", false},
		{"Words", "cumulative sum of an array", "", false},
		{"PlainWord", "cumulative", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"query": tt.query}
			if tt.library != "" {
				args["library"] = tt.library
			}
			out, txt := search(t, c, args)
			if len(out.Results) == 0 {
				t.Fatalf("%q: no results; the test needs a query that matches by words", tt.query)
			}
			first, _, _ := strings.Cut(txt, "\n")
			note := "no novel API named"
			if !tt.wantNote {
				if strings.Contains(txt, note) {
					t.Errorf("%q: unexpected note:\n%s", tt.query, first)
				}
				return
			}
			name := strings.TrimSuffix(tt.query, "()")
			for _, want := range []string{"NOTE: " + note + ` "` + name + `" is indexed`, "not novel", "removed or renamed", "match its words only"} {
				if !strings.Contains(first, want) {
					t.Errorf("%q: first line lacks %q:\n%s", tt.query, want, first)
				}
			}
			if tt.library != "" && !strings.Contains(first, "is indexed in "+tt.library) {
				t.Errorf("%q: the note does not say it was looked up in %s: %s", tt.query, tt.library, first)
			}
			if len(out.Notes) == 0 || !strings.HasPrefix(out.Notes[0], note) {
				t.Errorf("%q: structured notes %q do not start with the note", tt.query, out.Notes)
			}
			for _, s := range out.Suggestions {
				if !strings.Contains(first, s) {
					t.Errorf("%q: suggestion %s not in the note: %s", tt.query, s, first)
				}
			}
		})
	}
}
