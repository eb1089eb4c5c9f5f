package construct_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
)

// Signatures below are real: str(inspect.signature(...)) and the
// introspected ParameterInfo (str of defaults) printed in the bookworm-sci
// (numpy 1.24.2, pandas 1.5.3) and trixie-sci (numpy 2.2.4, pandas 2.2.3)
// environments.
const (
	sortOld    = `[{"name":"a","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"axis","annotation":null,"default":"-1","kind":"POSITIONAL_OR_KEYWORD"},{"name":"kind","annotation":null,"default":"None","kind":"POSITIONAL_OR_KEYWORD"},{"name":"order","annotation":null,"default":"None","kind":"POSITIONAL_OR_KEYWORD"}]`
	sortNew    = `(a, axis=-1, kind=None, order=None, *, stable=None)`
	reshapeOld = `[{"name":"a","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"newshape","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"order","annotation":null,"default":"C","kind":"POSITIONAL_OR_KEYWORD"}]`
	reshapeNew = `(a, /, shape=None, order='C', *, newshape=None, copy=None)`
	applyOld   = `[{"name":"self","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"func","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"convert_dtype","annotation":null,"default":"True","kind":"POSITIONAL_OR_KEYWORD"},{"name":"args","annotation":null,"default":"()","kind":"POSITIONAL_OR_KEYWORD"},{"name":"kwargs","annotation":null,"default":null,"kind":"VAR_KEYWORD"}]`
	applyNew   = `(self, func: 'AggFuncType', convert_dtype: 'bool | lib.NoDefault' = <no_default>, args: 'tuple[Any, ...]' = (), *, by_row: "Literal[False, 'compat']" = 'compat', **kwargs) -> 'DataFrame | Series'`
	pivotOld   = `[{"name":"self","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"index","annotation":null,"default":"None","kind":"KEYWORD_ONLY"},{"name":"columns","annotation":null,"default":"None","kind":"KEYWORD_ONLY"},{"name":"values","annotation":null,"default":"None","kind":"KEYWORD_ONLY"}]`
	pivotNew   = `(self, *, columns, index=<no_default>, values=<no_default>) -> 'DataFrame'`
)

func modified(t testing.TB, oldParams, newSig string) *bundles.Bundle {
	t.Helper()
	b := &bundles.Bundle{IsModified: true, Provenance: &bundles.Provenance{Signature: newSig}}
	if err := json.Unmarshal([]byte(oldParams), &b.OldParameters); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSignatureChange(t *testing.T) {
	type list = []string
	tests := []struct {
		name                                   string
		b                                      *bundles.Bundle
		added, defaults, kinds, moved, removed list
		params, keyword                        list
	}{
		{name: "NumpySortAddsKeywordOnly", b: modified(t, sortOld, sortNew),
			added: list{"stable"}, params: list{"stable"}, keyword: list{"stable"}},
		{name: "NumpyReshape", b: modified(t, reshapeOld, reshapeNew),
			added: list{"shape", "copy"}, defaults: list{"newshape"}, kinds: list{"a", "newshape"},
			params: list{"shape", "newshape", "copy"}, keyword: list{"shape", "copy"}},
		{name: "PandasMethodSelfDropped", b: modified(t, applyOld, applyNew),
			added: list{"by_row"}, defaults: list{"convert_dtype"},
			params: list{"convert_dtype", "by_row"}, keyword: list{"by_row"}},
		{name: "PandasPivotDefaults", b: modified(t, pivotOld, pivotNew),
			defaults: list{"columns", "index", "values"},
			params:   list{"index", "values"}},
		{name: "InsertedPositional", b: modified(t, insertedOld, insertedNew),
			added: list{"axis"}, moved: list{"n"}, removed: list{"old"},
			params: list{"axis", "n"}, keyword: list{"axis"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := construct.SignatureChange(tt.b)
			if !ok {
				t.Fatal("SignatureChange: ok = false")
			}
			for _, f := range []struct {
				what      string
				got, want list
			}{
				{"Added", c.Added, tt.added}, {"DefaultChanged", c.DefaultChanged, tt.defaults},
				{"KindChanged", c.KindChanged, tt.kinds}, {"Moved", c.Moved, tt.moved},
				{"Removed", c.Removed, tt.removed}, {"Params()", c.Params(), tt.params},
				{"KeywordParams()", c.KeywordParams(), tt.keyword},
			} {
				if !slices.Equal(f.got, f.want) {
					t.Errorf("%s = %q, want %q", f.what, f.got, f.want)
				}
			}
		})
	}
}

func TestSignatureChange_Unknown(t *testing.T) {
	newAPI := modified(t, sortOld, sortNew)
	newAPI.IsModified = false
	noOld := modified(t, `[]`, sortNew)
	for name, b := range map[string]*bundles.Bundle{"NotModified": newAPI, "NoOldSignature": noOld,
		"NoNewSignature": {IsModified: true, OldParameters: noOld.OldParameters}} {
		if _, ok := construct.SignatureChange(b); ok {
			t.Errorf("%s: ok = true, want false", name)
		}
	}
}

// Bundles in the published format have no Provenance.Signature: S_param
// (repr defaults, no self/args/kwargs) stands in, and an empty
// old_parameters falls back to old_signature (pandas.read_csv in the
// published pool).
func TestSignatureChange_PublishedFormat(t *testing.T) {
	str := func(s string) *string { return &s }
	apply := modified(t, applyOld, "")
	apply.Provenance = nil
	apply.SParam = []bundles.Parameter{{Name: "func"}, {Name: "convert_dtype", Default: str("<no_default>")}, {Name: "by_row", Default: str("'compat'")}}
	c, ok := construct.SignatureChange(apply)
	if !ok || !slices.Equal(c.Added, []string{"by_row"}) || !slices.Equal(c.DefaultChanged, []string{"convert_dtype"}) || len(c.Removed) != 0 || len(c.KindChanged) != 0 {
		t.Errorf("Series.apply from S_param: %+v, %v; want by_row added, convert_dtype's default changed, nothing removed", c, ok)
	}
	oldSig := "(filepath_or_buffer, sep=',', dtype=None, engine=None, **kwds)"
	csv := &bundles.Bundle{IsModified: true, OldSignature: &oldSig, OldParameters: []bundles.ParamInfo{}, SParam: []bundles.Parameter{
		{Name: "filepath_or_buffer"}, {Name: "sep", Default: str("','")}, {Name: "dtype", Default: str("None")},
		{Name: "dtype_backend", Default: str("<no_default>")}, {Name: "engine", Default: str("None")}}}
	c, ok = construct.SignatureChange(csv)
	if !ok || !slices.Equal(c.Added, []string{"dtype_backend"}) || len(c.DefaultChanged)+len(c.Removed) != 0 {
		t.Errorf("read_csv from old_signature: %+v, %v; want only dtype_backend added", c, ok)
	}
}

const (
	clipOld     = `[{"name":"a","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"a_min","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"a_max","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"out","annotation":null,"default":"None","kind":"POSITIONAL_OR_KEYWORD"},{"name":"kwargs","annotation":null,"default":null,"kind":"VAR_KEYWORD"}]`
	clipNew     = `(a, a_min=<no value>, a_max=<no value>, out=None, *, min=<no value>, max=<no value>, **kwargs)`
	makeMaskOld = `[{"name":"m","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"copy","annotation":null,"default":"False","kind":"POSITIONAL_OR_KEYWORD"},{"name":"shrink","annotation":null,"default":"True","kind":"POSITIONAL_OR_KEYWORD"},{"name":"dtype","annotation":null,"default":"<class 'numpy.bool_'>","kind":"POSITIONAL_OR_KEYWORD"}]`
	makeMaskNew = `(m, copy=False, shrink=True, dtype=<class 'numpy.bool'>)`
	lstsqOld    = `[{"name":"a","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"b","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"rcond","annotation":null,"default":"warn","kind":"POSITIONAL_OR_KEYWORD"}]`
	lstsqNew    = `(a, b, rcond=None)`
	savezOld    = `[{"name":"file","annotation":null,"default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"args","annotation":null,"default":null,"kind":"VAR_POSITIONAL"},{"name":"kwds","annotation":null,"default":null,"kind":"VAR_KEYWORD"}]`
	savezNew    = `(file, *args, allow_pickle=True, **kwds)`
	insertedOld = `[{"name":"x","default":null,"kind":"POSITIONAL_OR_KEYWORD"},{"name":"n","default":"1","kind":"POSITIONAL_OR_KEYWORD"},{"name":"old","default":"0","kind":"POSITIONAL_OR_KEYWORD"}]`
	insertedNew = `(x, axis=0, n=1)`
)

// The cases are calls from numpy's and pandas' executed examples, and
// their neighbours; "Old release" says what the same call does there.
func TestChange_Exercised(t *testing.T) {
	tests := []struct {
		name, old, sig string
		keywords       []string
		positional     int
		unpacks        bool
		want           []string
	}{
		{"NewKeyword", sortOld, sortNew, []string{"stable"}, 1, false, []string{"stable"}}, // old: TypeError
		{"UnchangedKeyword", sortOld, sortNew, []string{"axis"}, 1, false, nil},
		{"AllOldPositionals", sortOld, sortNew, nil, 4, false, nil},
		// np.reshape(a, 6): shape was newshape at the same position.
		{"RenamedAtSamePosition", reshapeOld, reshapeNew, nil, 2, false, nil},
		// np.reshape(a, shape=6): old TypeError, and newshape is required there.
		{"RenamedByNewKeyword", reshapeOld, reshapeNew, []string{"shape"}, 1, false, []string{"shape", "newshape"}},
		{"BecameKeywordOnlyPassedByKeyword", reshapeOld, reshapeNew, []string{"newshape"}, 1, false, nil},
		// np.clip(a, 1, 8): a_min and a_max gained defaults but are passed.
		{"ClipChangedDefaultsPassed", clipOld, clipNew, nil, 3, false, nil},
		// np.clip(a, max=8): old TypeError (a_min, a_max required, max unknown).
		{"ClipReliesOnNewDefaults", clipOld, clipNew, []string{"max"}, 1, false, []string{"a_min", "a_max", "max"}},
		// ma.make_mask(arr, dtype=dtype): the default changed, the call passes it.
		{"ChangedDefaultPassedByKeyword", makeMaskOld, makeMaskNew, []string{"dtype"}, 1, false, nil},
		// ma.make_mask(arr): relies on the changed (here cosmetic) default.
		{"ReliesOnChangedDefault", makeMaskOld, makeMaskNew, nil, 1, false, []string{"dtype"}},
		{"UnpackedArgumentsUnknown", makeMaskOld, makeMaskNew, nil, 1, true, nil},
		{"LstsqReliesOnRcond", lstsqOld, lstsqNew, nil, 2, false, []string{"rcond"}},
		{"LstsqPassesRcond", lstsqOld, lstsqNew, nil, 3, false, nil},
		{"SavezArraysInBothStarArgs", savezOld, savezNew, nil, 3, false, nil},
		{"SavezNewKeyword", savezOld, savezNew, []string{"allow_pickle"}, 2, false, []string{"allow_pickle"}},
		{"InsertedBeforeMoved", insertedOld, insertedNew, nil, 2, false, []string{"axis"}}, // old binds n
		{"MovedPositional", insertedOld, insertedNew, nil, 3, false, []string{"axis", "n"}},
		{"InsertedNotPassed", insertedOld, insertedNew, nil, 1, false, nil},
		{"MethodReceiverNotCounted", applyOld, applyNew, []string{"convert_dtype"}, 1, false, nil},
		{"MethodReliesOnChangedDefault", applyOld, applyNew, nil, 1, false, []string{"convert_dtype"}},
		{"MethodChangedDefaultPositional", applyOld, applyNew, nil, 2, false, nil},
		{"MethodAddedKeyword", applyOld, applyNew, []string{"by_row", "convert_dtype"}, 1, false, []string{"by_row"}},
		{"UnknownKeywordToUnchangedKwargs", applyOld, applyNew, []string{"na_action", "convert_dtype"}, 1, false, nil},
		// df.pivot(columns=..., values=...): index relies on None → <no_default>.
		{"KeywordOnlyDefaultsPassed", pivotOld, pivotNew, []string{"columns", "values"}, 0, false, []string{"index"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := construct.SignatureChange(modified(t, tt.old, tt.sig))
			if !ok {
				t.Fatal("SignatureChange: ok = false")
			}
			if got := c.Exercised(tt.keywords, tt.positional, tt.unpacks); !slices.Equal(got, tt.want) {
				t.Errorf("Exercised(%q, %d, %v) = %q, want %q", tt.keywords, tt.positional, tt.unpacks, got, tt.want)
			}
		})
	}
}

func TestChange_Describe(t *testing.T) {
	tests := []struct{ old, sig, param, want string }{
		{sortOld, sortNew, "stable", "is a new parameter"},
		{reshapeOld, reshapeNew, "newshape", "is now keyword-only and has a new default"},
		{reshapeOld, reshapeNew, "order", ""},
		{applyOld, applyNew, "convert_dtype", "has a new default"},
	}
	for _, tt := range tests {
		c, _ := construct.SignatureChange(modified(t, tt.old, tt.sig))
		if got := c.Describe(tt.param); got != tt.want {
			t.Errorf("Describe(%q) = %q, want %q", tt.param, got, tt.want)
		}
	}
}
