package index

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// TestNameTable_Lookup checks which identifiers in a query name an API
// exactly (the exact-name rule: an API named exactly in the query ranks
// first) and which do not.
func TestNameTable_Lookup(t *testing.T) {
	nt := newNameTable()
	// np is learned from the examples of the real bundles of the fixture.
	fixture, _, err := bundles.ReadBundles("../bundles/testdata/fixture/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nt.learnAliases(fixture)
	nt.add("scipy.linalg.solve@1", []string{"scipy.linalg.solve"})
	nt.add("numpy.fft.fft@2", []string{"numpy.fft.fft"})
	nt.add("numpy.linalg.matrix_norm@2", []string{"numpy.linalg.matrix_norm"})
	nt.add("pandas.Series.case_when@2", []string{"pandas.Series.case_when"})
	nt.add("pandas.core.series.ListAccessor.len@2", []string{"pandas.core.series.ListAccessor.len"})
	nt.add("pandas.read_csv@2", []string{"pandas.read_csv", "pandas.io.parsers.read_csv"})
	nt.add("pandas.DataFrame.groupby@2", []string{"pandas.DataFrame.groupby"})
	nt.add("numpy.linalg.svdvals@2", []string{"numpy.linalg.svdvals"})
	nt.add("pandas.api.typing.SeriesGroupBy.unique@2", []string{"pandas.api.typing.SeriesGroupBy.unique"})
	nt.add("numpy.unstack@2", []string{"numpy.unstack"})
	nt.add("pandas.DataFrame.unstack@2", []string{"pandas.DataFrame.unstack"})
	nt.add("pandas.MultiIndex.copy@2", []string{"pandas.MultiIndex.copy"})
	nt.add("numpy.ones@2", []string{"numpy.ones"})
	nt.add("scipy.stats.sampling.FastGeneratorInversion@1", []string{"scipy.stats.sampling.FastGeneratorInversion"})
	nt.add("scipy.stats.sampling.FastGeneratorInversion.rvs@1", []string{"scipy.stats.sampling.FastGeneratorInversion.rvs"})
	nt.add("scipy.stats.Normal@1", []string{"scipy.stats.Normal"})
	nt.addNames("django.db.models.fields.DurationField@5", []string{"django.db.models.fields.DurationField", "django.db.models.DurationField", "django.db.models.expressions.result"})
	nt.addNames("sklearn.linear_model.enet_path@1", []string{"sklearn.linear_model.enet_path", "sklearn.linear_model.Lasso.path"})
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"read_csv dtype_backend", []string{"pandas.read_csv@2"}},
		{"how does Series.case_when work", []string{"pandas.Series.case_when@2"}},
		{"np.linalg.matrix_norm of a stack", []string{"numpy.linalg.matrix_norm@2"}},
		{"call `solve(a, b)` on the system", []string{"scipy.linalg.solve@1"}},
		{"solve", []string{"scipy.linalg.solve@1"}},
		// The query defines solve: the user's function, not scipy's.
		{"Write a function `solve(a)` that returns the FFT; set `result = solve(a)`", nil},
		{"def solve(x): return x", nil},
		{"call the function solve(a, b)", []string{"scipy.linalg.solve@1"}},
		{"which function `read_csv` option", []string{"pandas.read_csv@2"}},
		// A module path is not its same-named function.
		{"call the appropriate function of `numpy.fft`", nil},
		{"call numpy.fft.fft", []string{"numpy.fft.fft@2"}},
		// len( is the Python builtin.
		{"return len(out) items", nil},
		// A method of an unknown receiver is context, not the answer.
		{"the appropriate method of `df.groupby('A')`", nil},
		{"df.groupby then DataFrame.groupby", []string{"pandas.DataFrame.groupby@2"}},
		// A path that starts with another library names that library's API.
		{"scipy.linalg.svdvals", nil},
		{"sp.linalg.svdvals(a)", nil},
		{"np.DataFrame.groupby", nil},
		{"np.linalg.svdvals(a)", []string{"numpy.linalg.svdvals@2"}},
		// A bare call names a function, not a method of that leaf.
		{"TypeError: unique() got an unexpected keyword argument", nil},
		{"use unstack() on the result", []string{"numpy.unstack@2"}},
		{"unique", []string{"pandas.api.typing.SeriesGroupBy.unique@2"}},
		{"call case_when( on it", []string{"pandas.Series.case_when@2"}},
		// A pasted AttributeError names the attribute it is about.
		{"AttributeError: module 'numpy' has no attribute 'unstack'", []string{"numpy.unstack@2"}},
		{"AttributeError: 'DataFrame' object has no attribute 'groupby'", []string{"pandas.DataFrame.groupby@2"}},
		{"AttributeError: 'list' object has no attribute 'groupby'", nil},
		// Arguments and types of what is asked about name no API (task
		// descriptions of the real pool): a parameter in backticks, a bare
		// variable, a keyword value, a call's arguments, an object's type.
		{"Swap levels i and j in a MultiIndex. The call relies on a recent signature change: `copy` (left at its default) has a new default.", nil},
		{"Call the appropriate function of `scipy.stats` with the arguments `rvs, q=0.5, p=0.5` and store the outcome in `result`.", nil},
		{"Call the appropriate function of `scipy.ndimage` with the arguments `a, structure=np.ones((3, 3))`", nil},
		{"with the arguments `stats.Normal(), lb, ub` and returns the outcome", nil},
		{"Call the appropriate method of `d_norm` (a `scipy.stats.sampling.FastGeneratorInversion` object) without arguments", nil},
		{"Write a function `solve(n, np.ones(3))` that returns it", nil},
		// A subscript's contents are type arguments or indices.
		{"build it out of a type annotation, e.g. x: Annotated[int, read_csv(gt=4)] = 4", nil},
		{"index it with arr[np.ones(3)] first", nil},
		// Still named: the call asked about, a keyword-less mention, a
		// comparison.
		{"np.ones(3, dtype=int) with device", []string{"numpy.ones@2"}},
		{"FastGeneratorInversion.rvs(size=10)", []string{"scipy.stats.sampling.FastGeneratorInversion.rvs@1"}},
		{"is x == np.ones(3) true", []string{"numpy.ones@2"}},
		{"np.ones(3)[0] then", []string{"numpy.ones@2"}},
		{"MultiIndex.copy without levels", []string{"pandas.MultiIndex.copy@2"}},
		{"copy", []string{"pandas.MultiIndex.copy@2"}},
		// An alias with another leaf names its API whole or with its
		// owner, not by the bare leaf: a task's `result` is a variable.
		{"Call the appropriate function and store the outcome in `result`.", nil},
		{"result", nil},
		{"expressions.result", []string{"django.db.models.fields.DurationField@5"}},
		{"a `DurationField` with a default", []string{"django.db.models.fields.DurationField@5"}},
		{"what does `Lasso.path` return", []string{"sklearn.linear_model.enet_path@1"}},
		{"the `path` argument", nil},
	} {
		if got := nt.lookup(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("lookup(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}

// TestInternalName checks the public/internal import path rule of the
// ranking prior.
func TestInternalName(t *testing.T) {
	for name, want := range map[string]bool{
		"pandas.DataFrame.stack":             false,
		"pandas.core.reshape.reshape.stack":  true,
		"numpy._core.fromnumeric.sum":        true,
		"pandas.core.internals.blocks.Block": true,
		"numpy.ndarray.__array__":            false,
		"scipy.stats.distributions.norm_gen": false,
		"scipy.optimize._minimize.minimize":  true,
	} {
		if got := internalName(name); got != want {
			t.Errorf("internalName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPreferredImport(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"pandas.io.parsers.readers.read_csv", "pandas.io.parsers.read_csv", "pandas.read_csv", "pandas.io.api.read_csv"}, "pandas.read_csv"},
		{[]string{"numpy.unstack", "numpy.lib._shape_base_impl.unstack"}, "numpy.unstack"},
		{[]string{"pandas.core.groupby.GroupBy.std"}, "pandas.core.groupby.GroupBy.std"},
		{[]string{"pandas.core.frame.DataFrame.map", "pandas.DataFrame.map"}, "pandas.DataFrame.map"},
		// On a tie the qualified name wins over an alias (legacy numpy.char).
		{[]string{"numpy.strings.replace", "numpy.char.replace"}, "numpy.strings.replace"},
		{[]string{"pandas.api.typing.Resampler.first", "pandas.api.typing.DatetimeIndexResamplerGroupby.first"}, "pandas.api.typing.Resampler.first"},
		{nil, ""},
	} {
		if got := PreferredImport(c.names); got != c.want {
			t.Errorf("PreferredImport(%v) = %q, want %q", c.names, got, c.want)
		}
	}
}

func TestVersionMatches(t *testing.T) {
	valid := []string{"2.2.3+dfsg", "1.26.4", "1.15.3", "1.15.2"}
	for v, want := range map[string][]string{
		"2.2.3+dfsg": {"2.2.3+dfsg"}, // exact
		"2.2.3":      {"2.2.3+dfsg"}, // without the local label
		"2.2":        {"2.2.3+dfsg"}, // a release prefix
		"2":          {"2.2.3+dfsg"},
		"1.15":       {"1.15.3", "1.15.2"}, // ambiguous
		"1.1":        nil,                  // not at a dot
		"3.0":        nil,
	} {
		if got := versionMatches(valid, v); !slices.Equal(got, want) {
			t.Errorf("versionMatches(%q) = %q; want %q", v, got, want)
		}
	}
}

// A defining-module path names its API: from the source file recorded in
// the provenance, with a method's class kept.
func TestDefiningName(t *testing.T) {
	mk := func(api, kind, file string, aliases ...string) *bundles.Bundle {
		return &bundles.Bundle{APIName: api, Provenance: &bundles.Provenance{Kind: kind, SourceFile: file, Aliases: aliases}}
	}
	for _, tt := range []struct {
		b    *bundles.Bundle
		want string
	}{
		{mk("numpy.unstack", "function", "<dist-packages>/numpy/_core/shape_base.py"), "numpy._core.shape_base.unstack"},
		{mk("pandas.Series.case_when", "method", "<dist-packages>/pandas/core/series.py"), "pandas.core.series.Series.case_when"},
		{mk("scipy.stats.qmc.Sobol", "class", "<dist-packages>/scipy/stats/_qmc.py"), "scipy.stats._qmc.Sobol"},
		{mk("numpy.linalg.svdvals", "function", "<dist-packages>/numpy/linalg/__init__.py"), ""}, // its own name already
		{mk("pandas.read_csv", "function", "<dist-packages>/pandas/io/parsers/readers.py", "pandas.io.parsers.readers.read_csv"), ""},
		{mk("numpy.fft.fft", "function", "<dist-packages>/other/fft.py"), ""},
		{mk("numpy.fft.fft", "function", ""), ""},
	} {
		if got := definingName(tt.b); got != tt.want {
			t.Errorf("definingName(%s, %s) = %q; want %q", tt.b.APIName, tt.b.Provenance.SourceFile, got, tt.want)
		}
	}
}

func TestNameTable_ObjectTypes(t *testing.T) {
	nt := newNameTable()
	nt.add("scipy.spatial.transform.RigidTransform@1", []string{"scipy.spatial.transform.RigidTransform"})
	nt.add("scipy.spatial.transform.RigidTransform.from_translation@1", []string{"scipy.spatial.transform.RigidTransform.from_translation"})
	nt.add("pandas.Series@2", []string{"pandas.Series"})
	for _, tc := range []struct {
		query string
		want  []string
	}{
		// The wording of the task pool's method tasks (construct: "method of").
		{"Initialize from a translation numpy array, without a rotation. Call the appropriate method of `Tf` (a `scipy.spatial.transform.RigidTransform` object) with the arguments `[1, 0, 0]`", []string{"scipy.spatial.transform.RigidTransform@1"}},
		{"I hold a RigidTransform object; how do I invert it?", []string{"scipy.spatial.transform.RigidTransform@1"}},
		// Named, but not as the type of a value: no owner.
		{"how do I build a RigidTransform from a translation", nil},
		{"sum a column of `pandas.Series` objects", []string{"pandas.Series@2"}},
	} {
		if got := nt.objectTypes(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("objectTypes(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
	if got := ownerOf("scipy.spatial.transform.RigidTransform.from_translation@1"); got != "scipy.spatial.transform.RigidTransform" {
		t.Errorf("ownerOf(method) = %q", got)
	}
	if got := ownerOf("scipy.linalg.inv@1"); got != "" {
		t.Errorf("ownerOf(function) = %q, want \"\"", got)
	}
}

func TestCalledIn(t *testing.T) {
	// Context code of real tasks of the 2026-12-07 pool (scipy 1.17).
	ctx := "from scipy.spatial.transform import Rotation as R\nr = R.from_davenport([ez, ex], 'extrinsic', [[90, 45], [35, 45]], degrees=True)\nA = linalg.inv(B)"
	for leaf, want := range map[string]bool{"from_davenport": true, "inv": true, "davenport": false, "as_quat": false, "R": false, "Rotation": false} {
		if got := calledIn(ctx, leaf); got != want {
			t.Errorf("calledIn(%q) = %v, want %v", leaf, got, want)
		}
	}
}
