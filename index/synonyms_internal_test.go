package index

import (
	"strings"
	"testing"
)

// TestExpandQuery checks phrase matching of the vocabulary table: whole
// words only, case-insensitive, hyphens read as spaces, and a query with no
// phrase left as it is.
func TestExpandQuery(t *testing.T) {
	for _, tt := range []struct {
		q         string
		want      []string // terms the expansion must add
		unchanged bool
	}{
		{q: "Moving-window standard deviation", want: []string{"rolling"}},
		{q: "largest value in a Series", want: []string{"maximum", "max"}},
		{q: "a running total of deposits", want: []string{"cumulative sum"}},
		{q: "p-value of a t test", want: []string{"pvalue"}},
		{q: "shift the flag column", unchanged: true}, // "lag" inside "flag"
		{q: "outermost layer", unchanged: true},       // "most recent" needs both words
	} {
		got := expandQuery(tt.q)
		if tt.unchanged {
			if got != tt.q {
				t.Errorf("expandQuery(%q) = %q; want it unchanged", tt.q, got)
			}
			continue
		}
		head, extra, ok := strings.Cut(got, "\n")
		if !ok || head != tt.q {
			t.Errorf("expandQuery(%q) = %q; want the query, a newline and the added terms", tt.q, got)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(extra, w) {
				t.Errorf("expandQuery(%q) adds %q; want %q among them", tt.q, extra, w)
			}
		}
	}
}
