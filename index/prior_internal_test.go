package index

import (
	"math"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

func TestNamedLibrary(t *testing.T) {
	for q, want := range map[string]string{
		"largest value of each column in a DataFrame":     "pandas",
		"np.cumsum with an initial zero":                  "numpy",
		"sparse array from a dense numpy matrix in scipy": "",
		"Lorentzian distribution pdf":                     "",
		"rolling mean in pandas\nimport numpy as np":      "pandas", // context lines do not count
	} {
		if got := namedLibrary(q); got != want {
			t.Errorf("namedLibrary(%q) = %q; want %q", q, got, want)
		}
	}
}

// TestRerankLibraryHint checks the ranker's library feature: of two APIs
// the legs found equally, the one in the library the question names comes
// first; an API the query names stays first.
func TestRerankLibraryHint(t *testing.T) {
	ix := &Index{byKey: map[string]*bundles.Bundle{
		"scipy.stats.skew@1":      {APIName: "scipy.stats.skew", Library: "scipy"},
		"pandas.DataFrame.skew@2": {APIName: "pandas.DataFrame.skew", Library: "pandas"},
		"numpy.exact@1":           {APIName: "numpy.exact", Library: "numpy"},
	}, public: map[string]bool{"scipy.stats.skew@1": true, "pandas.DataFrame.skew@2": true, "numpy.exact@1": true}}
	fs := []fused{
		{key: "numpy.exact@1", score: exactBonus + 0.1, bonus: exactBonus},
		{key: "scipy.stats.skew@1", score: 0.2},
		{key: "pandas.DataFrame.skew@2", score: 0.2},
	}
	ix.rerank(fs, &candidates{fs: fs}, "asymmetry of each column of a pandas DataFrame")
	if fs[0].key != "numpy.exact@1" || fs[1].key != "pandas.DataFrame.skew@2" {
		t.Errorf("order after the ranker: %v, %v, %v; want the exact name, then pandas", fs[0].key, fs[1].key, fs[2].key)
	}
	if d := fs[1].score - fs[2].score; math.Abs(d+rankerWeights[featOtherLibrary]) > 1e-9 {
		t.Errorf("pandas − scipy score = %v; want the library weight %v", d, -rankerWeights[featOtherLibrary])
	}
}
