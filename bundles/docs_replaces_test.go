package bundles_test

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

// The release notes in testdata/docs are cut from Debian's -doc packages
// (see its README): numpy 2.0.0's (trixie, rendered), scipy 1.15.0's (sid,
// rendered, names in <code> and unresolved <em class="xref">), django
// 5.1's (sid, rendered) and pandas 2.1.0's and 2.2.0's (sid, reST sources).
func TestDocs_Replacements(t *testing.T) {
	type pair struct{ old, new, version string }
	tests := []struct {
		name, dir, at string
		want          []pair // among the replacements, with the entry's version
		not           []pair // never (version unchecked)
	}{
		{"NumpyHTML", "python-numpy-doc", "/usr/share/doc",
			[]pair{
				{"np.trapz", "np.trapezoid", "2.0.0"},                 // "has been deprecated. Use `np.trapezoid` or a `scipy.integrate` function instead."
				{"np.in1d", "np.isin", "2.0.0"},                       //
				{"np.round_", "np.round", "2.0.0"},                    // "has been removed. Use ..."
				{"np.recfromcsv", "np.genfromtxt", "2.0.0"},           // two old names, one new
				{"np.recfromtxt", "np.genfromtxt", "2.0.0"},           //
				{"np.row_stack", "np.vstack", "2.0.0"},                // "Alias `np.row_stack` has been deprecated. Use `np.vstack` directly."
				{"np.find_common_type", "numpy.result_type", "2.0.0"}, // one old name, two new
			},
			[]pair{{"np.trapz", "scipy.integrate", ""}, {"np.round_", "np.round_", ""}}},
		{"ScipyHTML", "python-scipy-doc-sid", "/usr/share/doc",
			[]pair{
				// 1.15.0, not the "3.13" of the heading "Preliminary Support
				// for Free-Threaded CPython 3.13" above the deprecations.
				{"scipy.stats.trapz", "scipy.stats.trapezoid", "1.15.0"},
				{"scipy.special.lpn", "scipy.special.legendre_p_all", "1.15.0"}, // <em class="xref">
				{"scipy.special.clpmn", "scipy.special.assoc_legendre_p_all", "1.15.0"},
			}, nil},
		{"DjangoHTML", "python-django-doc-sid", "/usr/share/doc/python-django-doc",
			[]pair{
				// "The `ModelAdmin.log_deletion()` and `LogEntryManager.log_action()`
				// methods are deprecated. Subclasses should implement
				// `ModelAdmin.log_deletions()` and `LogEntryManager.log_actions()` instead."
				{"ModelAdmin.log_deletion", "ModelAdmin.log_deletions", "5.1"},
				{"LogEntryManager.log_action", "LogEntryManager.log_actions", "5.1"},
				{"django.contrib.gis.geoip2.GeoIP2.coords", "django.contrib.gis.geoip2.GeoIP2.lon_lat", "5.1"},
				// "The `get_cache_name()` method of `FieldCacheMixin` is deprecated in favor of ..."
				{"FieldCacheMixin.get_cache_name", "cache_name", "5.1"},
			},
			[]pair{
				{"ModelAdmin.log_deletion", "LogEntryManager.log_actions", ""},
				// "The `check` keyword argument of `CheckConstraint` is
				// deprecated in favor of `condition`": a parameter.
				{"check", "condition", ""}, {"CheckConstraint.check", "condition", ""},
			}},
		{"PandasReST", "python-pandas-doc-sid", "/usr/share/doc",
			[]pair{
				{"DataFrame.applymap", "DataFrame.map", "2.1.0"}, // "Deprecated :meth:`DataFrame.applymap`. Use the new :meth:`DataFrame.map` method instead"
				{"Styler.applymap", "Styler.map", "2.1.0"},
				{"DataFrame.swapaxes", "DataFrame.transpose", "2.1.0"}, // in order: each new name has its old one's owner
				{"Series.swapaxes", "Series.transpose", "2.1.0"},
				// 2.2.0, not the "2022.7" of tzdata's row in the table of
				// minimum dependency versions above the deprecations.
				{"Series.view", "Series.astype", "2.2.0"},
			},
			[]pair{
				{"Series.swapaxes", "DataFrame.transpose", ""},
				// "Deprecated the ``fastpath`` keyword in :class:`Categorical`
				// constructor, use :meth:`Categorical.from_codes` instead"
				{"Categorical", "Categorical.from_codes", ""}, {"fastpath", "Categorical.from_codes", ""},
				// "Deprecated :meth:`.DataFrameGroupBy.fillna` and
				// :meth:`.SeriesGroupBy.fillna`; use :meth:`.DataFrameGroupBy.ffill`,
				// :meth:`.DataFrameGroupBy.bfill` for forward and backward filling
				// or ... (or the Series equivalents)": which replaces which is not said.
				{"SeriesGroupBy.fillna", "DataFrameGroupBy.bfill", ""}, {"SeriesGroupBy.fillna", "DataFrameGroupBy.ffill", ""},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := bundles.ReadDocs("testdata/docs/"+tt.dir, tt.at, tt.dir, "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[[2]string]bundles.NoteReplacement{}
			for _, r := range d.Replacements() {
				got[[2]string{r.Old, r.New}] = r
			}
			for _, w := range tt.want {
				r, ok := got[[2]string{w.old, w.new}]
				if !ok || r.Note.Version != w.version || r.Note.File == "" || r.Note.Text == "" {
					t.Errorf("%s -> %s: got %+v, %v; want it from the %s notes", w.old, w.new, r, ok, w.version)
				}
			}
			for _, n := range tt.not {
				if r, ok := got[[2]string{n.old, n.new}]; ok {
					t.Errorf("%s -> %s: got %+v; want no such replacement", n.old, n.new, r)
				}
			}
		})
	}
	var nilDocs *bundles.Docs
	if rs := nilDocs.Replacements(); rs != nil {
		t.Errorf("nil docs gave %+v", rs)
	}
}
