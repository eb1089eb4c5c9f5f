package bundles

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// The real pandas 1.5.3 -> 2.2.3 candidates of testdata/fixture and sid's
// pandas release notes (testdata/docs): an old name written relative to
// the new one ("Deprecated :meth:`Series.pad` in favor of :meth:`Series.ffill`")
// is read beside the candidate's api_name and its shortest alias that end
// in the new name, not beside each of the 44 modules that import Series.
func TestNoteProposals_Relative(t *testing.T) {
	cs, _, err := ReadCandidates("testdata/fixture/candidates-pandas.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadDocs("testdata/docs/python-pandas-doc-sid", "/usr/share/doc", "python-pandas-doc", "2.3.3+dfsg-6")
	if err != nil {
		t.Fatal(err)
	}
	props := noteProposals(cs, d.Replacements(), LearnAliases(aliasTexts(cs, d)))
	paths := func(api string) []string {
		var out []string
		for _, p := range props[api] {
			if p.full {
				t.Errorf("%s: %s read as written whole", api, p.path)
			}
			out = append(out, p.path)
		}
		return out
	}
	want := map[string][]string{
		"pandas.DataFrame.map":            {"pandas.DataFrame.applymap"},
		"pandas.core.frame.NDFrame.ffill": {"pandas.Series.pad", "pandas.DataFrame.pad"},
	}
	for api, w := range want {
		if got := paths(api); !slices.Equal(got, w) {
			t.Errorf("%s: proposals %v; want %v", api, got, w)
		}
	}
	for api := range props {
		if want[api] == nil {
			t.Errorf("%s: proposals %v; want none", api, paths(api))
		}
	}
}
