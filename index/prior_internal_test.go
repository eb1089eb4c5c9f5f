package index

import (
	"math"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

func TestNamedLibrary(t *testing.T) {
	bs := []bundles.Bundle{
		{APIName: "numpy.unstack", Library: "numpy", Examples: []bundles.Example{{Code: "import numpy as np"}, {Code: "import numpy as np\nimport matplotlib.pyplot as plt"}}},
		{APIName: "scipy.stats.skew", Library: "scipy"},
		{APIName: "pandas.DataFrame.skew", Library: "pandas"},
		{APIName: "sklearn.callback.ScoringMonitor", Library: "scikit-learn"},
		{APIName: "torch.onnx.export", Library: "torch", Examples: []bundles.Example{{Code: "import torch.nn.functional as F"}, {Code: "import torch.nn.functional as F"}}},
		{APIName: "matplotlib.pyplot.plot", Library: "matplotlib", Examples: []bundles.Example{{Code: "import matplotlib.pyplot as plt"}}},
	}
	lw := newLibraryWords(bs, newAliases(bs))
	for q, want := range map[string]string{
		"largest value of each column in a DataFrame":     "pandas",
		"np.cumsum with an initial zero":                  "numpy",
		"sparse array from a dense numpy matrix in scipy": "",
		"Lorentzian distribution pdf":                     "",
		"rolling mean in pandas\nimport numpy as np":      "pandas", // context lines do not count
		"sklearn callback that logs a score":              "scikit-learn",
		"scikit-learn callback that logs a score":         "scikit-learn",
		"In PyTorch, cut the learning rate by 10x":        "torch",
		"F.relu of a tensor":                              "", // an alias of a submodule is not the library's name
		"plt.plot of two lines":                           "",
	} {
		if got := lw.named(q); got != want {
			t.Errorf("named(%q) = %q; want %q", q, got, want)
		}
	}
	if lw := newLibraryWords(bs[:1], nil); lw.named("a DataFrame of numbers") != "" {
		t.Errorf("DataFrame names pandas in an index without pandas")
	}
}

// newAliases returns the lowercased import aliases of bs's examples, as
// the name table learns them.
func newAliases(bs []bundles.Bundle) bundles.Aliases {
	t := newNameTable()
	t.learnAliases(bs)
	return t.aliases
}

// TestRerankLibraryHint checks the ranker's library feature: of two APIs
// the legs found equally, the one in the library the question names comes
// first; an API the query names stays first.
func TestRerankLibraryHint(t *testing.T) {
	ix := &Index{byKey: map[string]*bundles.Bundle{
		"scipy.stats.skew@1":      {APIName: "scipy.stats.skew", Library: "scipy"},
		"pandas.DataFrame.skew@2": {APIName: "pandas.DataFrame.skew", Library: "pandas"},
		"numpy.exact@1":           {APIName: "numpy.exact", Library: "numpy"},
	}, public: map[string]bool{"scipy.stats.skew@1": true, "pandas.DataFrame.skew@2": true, "numpy.exact@1": true},
		libWords: libraryWords{"pandas": "pandas", "scipy": "scipy", "numpy": "numpy", "dataframe": "pandas"}}
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
