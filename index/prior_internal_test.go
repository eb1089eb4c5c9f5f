package index

import (
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

func TestApplyLibraryHint(t *testing.T) {
	ix := &Index{byKey: map[string]*bundles.Bundle{
		"scipy.stats.skew@1":      {APIName: "scipy.stats.skew", Library: "scipy"},
		"pandas.DataFrame.skew@2": {APIName: "pandas.DataFrame.skew", Library: "pandas"},
		"numpy.exact@1":           {APIName: "numpy.exact", Library: "numpy"},
	}}
	fs := []fused{{key: "scipy.stats.skew@1", score: 1.0}, {key: "pandas.DataFrame.skew@2", score: 0.9}, {key: "numpy.exact@1", score: 0.5, exact: true}}
	ix.applyLibraryHint(fs, "asymmetry of each column of a pandas DataFrame")
	if fs[0].key != "pandas.DataFrame.skew@2" || fs[1].score != 1.0*libraryHintFactor || fs[2].score != 0.5 {
		t.Errorf("after the hint: %+v; want pandas first, scipy scaled, the exact name kept", fs)
	}
}
