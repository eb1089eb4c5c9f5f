package bundles_test

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// The aliases are learned from the examples of real bundles (numpy, scipy
// and pandas, extracted from Debian trixie's packages), not from a table.
func TestLearnAliases_Fixture(t *testing.T) {
	bs, _, err := bundles.ReadBundles("testdata/fixture/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := bundles.LearnAliases(bundles.ExampleCode(bs))
	for alias, mod := range map[string]string{"np": "numpy", "pd": "pandas"} {
		if a[alias] != mod {
			t.Errorf("alias %s = %q, want %q (learned %v)", alias, a[alias], mod, a)
		}
	}
	tests := []struct{ in, want string }{
		{"np.unstack", "numpy.unstack"},
		{"pd.DataFrame.map", "pandas.DataFrame.map"},
		{"numpy.unstack", "numpy.unstack"},
		{"npx.unstack", "npx.unstack"},
		{"np", "np"},
	}
	for _, tt := range tests {
		if got := a.Expand(tt.in); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
