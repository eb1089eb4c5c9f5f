package bundles_test

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

func sp(s string) *string { return &s }
func ip(i int) *int       { return &i }

const longDoc = "Compute something useful over an array, along the given axis, with care."

// entry returns a function entry defined in pkg.mod with source pkg/mod.py.
func entry(name string, params ...bundles.ParamInfo) bundles.SurfaceEntry {
	mod := name[:len(name)-len(leaf(name))-1]
	return bundles.SurfaceEntry{
		APIName: name, Kind: bundles.KindFunction, Module: mod, DefiningModule: "pkg.core",
		Qualname: leaf(name), Signature: sp("(...)"), Parameters: params, Docstring: sp(longDoc + " " + name),
		SourceFile: sp("<dist-packages>/pkg/core.py"), SourceLine: ip(10), Paths: []string{name},
	}
}

func leaf(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '.' {
			return name[i+1:]
		}
	}
	return name
}

func param(name, def string) bundles.ParamInfo {
	p := bundles.ParamInfo{Name: name, Kind: "POSITIONAL_OR_KEYWORD"}
	if def != "" {
		p.Default = sp(def)
	}
	return p
}

func names(cs []bundles.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.APIName)
	}
	return out
}

func TestDiff(t *testing.T) {
	old := &bundles.Surface{Library: "pkg", Version: "1.0", Entries: []bundles.SurfaceEntry{
		entry("pkg.same", param("x", "")),
		entry("pkg.grown", param("x", "")),
		entry("pkg.addr", param("f", "<function f at 0x7f00aa>")),
		entry("pkg.old.moved", param("a", ""), param("b", "1")),
		entry("pkg.old.resigned", param("a", ""), param("b", "1")),
		entry("pkg.noparams"),
	}, WalkFailures: []bundles.WalkFailure{{Module: "pkg.broken", Error: "ImportError: x"}}}
	// Relocated entries live in another file in the new version, so only
	// the relocation keys can find them.
	moved := entry("pkg.new.moved", param("a", ""), param("b", "1"))
	moved.SourceFile = sp("<dist-packages>/pkg/other.py")
	moved.Docstring = sp(longDoc + " pkg.old.moved")
	resigned := entry("pkg.new.resigned", param("a", ""), param("b", "2"))
	resigned.SourceFile = sp("<dist-packages>/pkg/other.py")
	resigned.Docstring = sp(longDoc + " pkg.old.resigned")
	noParamsNow := entry("pkg.noparams", param("x", ""))
	private := entry("pkg._hidden", param("x", ""))
	short := entry("pkg.terse")
	short.Docstring = sp("Too short.")
	nosrc := entry("pkg.ufunc")
	nosrc.SourceFile, nosrc.SourceLine = nil, nil
	deprecated := entry("pkg.legacy")
	deprecated.Docstring = sp("This function is deprecated and will be removed; use pkg.same instead of it please.")
	broken := entry("pkg.broken.thing")
	broken.Module = "pkg.broken"
	method := entry("pkg.Frame.apply_new")
	method.Kind, method.Qualname = bundles.KindMethod, "Frame.apply_new"
	alias := entry("pkg.round_")
	alias.Qualname = "around"
	basemod := entry("pkg.fromhere")
	basemod.DefiningModule = "pkg.core.base"
	new := &bundles.Surface{Library: "pkg", Version: "2.0", Entries: []bundles.SurfaceEntry{
		entry("pkg.same", param("x", "")),
		entry("pkg.grown", param("x", ""), param("y", "None")),
		entry("pkg.addr", param("f", "<function f at 0x7f11bb>")),
		moved, resigned, noParamsNow,
		entry("pkg.fresh", param("x", "")),
		private, short, nosrc, deprecated, broken, method, alias, basemod,
	}}

	cands, sum := bundles.Diff(old, new, "pkg", "data_science", bundles.DiffOptions{})
	if got, want := names(cands), []string{"pkg.Frame.apply_new", "pkg.fresh", "pkg.grown", "pkg.new.resigned"}; !slices.Equal(got, want) {
		t.Fatalf("candidates = %v, want %v", got, want)
	}
	byName := map[string]bundles.Candidate{}
	for _, c := range cands {
		byName[c.APIName] = c
	}
	if c := byName["pkg.grown"]; !c.IsModified || c.Extra.OldSignature == nil || len(c.Extra.OldParameters) != 1 ||
		c.OldVersion == nil || *c.OldVersion != "1.0" || c.NewVersion != "2.0" {
		t.Errorf("pkg.grown = %+v, want modified from 1.0 with the old parameters", c)
	}
	if c := byName["pkg.new.resigned"]; !c.IsModified || !c.Extra.Relocated || c.Extra.OldAPIName != "pkg.old.resigned" {
		t.Errorf("pkg.new.resigned: modified %v relocated %v old %q, want a relocated modified API",
			c.IsModified, c.Extra.Relocated, c.Extra.OldAPIName)
	}
	if c := byName["pkg.fresh"]; c.IsModified || c.Library != "pkg" || c.Domain != "data_science" {
		t.Errorf("pkg.fresh = %+v, want new", c)
	}
	if c := byName["pkg.Frame.apply_new"]; c.Extra.Extension != bundles.KindMethod {
		t.Errorf("method extension = %q, want %q", c.Extra.Extension, bundles.KindMethod)
	}
	wantDropped := map[string]int{
		bundles.FilterPrivate: 1, bundles.FilterDocstring: 1, bundles.FilterNotExported: 1,
		bundles.FilterDeprecated: 1, bundles.FilterOldWalkFailure: 1, bundles.FilterAlias: 1,
		bundles.FilterModuleName: 1,
	}
	for k, v := range wantDropped {
		if sum.Dropped[k] != v {
			t.Errorf("Dropped[%s] = %d, want %d (all: %v)", k, sum.Dropped[k], v, sum.Dropped)
		}
	}
	if sum.Unchanged != 3 || sum.MovedOnly != 1 || sum.Candidates != 4 || sum.New != 2 || sum.Modified != 2 || sum.Extensions != 1 {
		t.Errorf("summary = %+v", sum)
	}

	cands, sum = bundles.Diff(old, new, "pkg", "data_science", bundles.DiffOptions{ProtocolOnly: true})
	if slices.Contains(names(cands), "pkg.Frame.apply_new") || sum.Dropped[bundles.FilterExtension] != 1 {
		t.Errorf("ProtocolOnly kept the method: %v, %v", names(cands), sum.Dropped)
	}
	if sum.Dropped[bundles.FilterNoSource] != 1 || sum.Dropped[bundles.FilterNotExported] != 0 {
		t.Errorf("ProtocolOnly: dropped %v; want pkg.ufunc dropped as no_source", sum.Dropped)
	}
}

func TestDiff_NoOldRelease(t *testing.T) {
	new := &bundles.Surface{Version: "3.0", Entries: []bundles.SurfaceEntry{entry("pkg.a"), entry("pkg.b")}}
	cands, sum := bundles.Diff(nil, new, "pkg", "swe", bundles.DiffOptions{})
	if len(cands) != 2 || sum.New != 2 {
		t.Fatalf("got %d candidates, summary %+v; want 2 new", len(cands), sum)
	}
	for _, c := range cands {
		if c.OldVersion != nil || !c.Extra.NoPreBoundaryRelease {
			t.Errorf("%s: old_version %v, no_pre_boundary_release %v", c.APIName, c.OldVersion, c.Extra.NoPreBoundaryRelease)
		}
	}
}

func TestDiff_SharedDocstring(t *testing.T) {
	var es []bundles.SurfaceEntry
	for _, n := range []string{"pkg.a", "pkg.b", "pkg.c", "pkg.d"} {
		e := entry(n)
		e.Docstring = sp(longDoc)
		es = append(es, e)
	}
	cands, sum := bundles.Diff(nil, &bundles.Surface{Entries: es}, "pkg", "", bundles.DiffOptions{})
	if len(cands) != 0 || sum.Dropped[bundles.FilterSharedDocstring] != 4 {
		t.Errorf("got %v, dropped %v; want all four dropped as shared docstrings", names(cands), sum.Dropped)
	}
}

func TestDiff_CamelCaseCap(t *testing.T) {
	var es []bundles.SurfaceEntry
	for i, n := range []string{"AWarning", "BWarning", "CWarning", "DWarning", "EWarning", "Other"} {
		e := entry("pkg." + n)
		e.Kind = bundles.KindClass
		e.Docstring = sp(longDoc + string(rune('a'+i)) + " " + n + " " + string(make([]byte, 0)) + repeat("x", i))
		es = append(es, e)
	}
	cands, sum := bundles.Diff(nil, &bundles.Surface{Entries: es}, "pkg", "", bundles.DiffOptions{})
	// The three longest docstrings of the Warning group stay.
	if got, want := names(cands), []string{"pkg.CWarning", "pkg.DWarning", "pkg.EWarning", "pkg.Other"}; !slices.Equal(got, want) {
		t.Errorf("candidates = %v, want %v (dropped %v)", got, want, sum.Dropped)
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// TestSimilarity pins values computed with Python's
// difflib.SequenceMatcher(None, a, b).ratio().
func TestSimilarity(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"abcd", "bcde", 0.75},
		{"", "", 1},
		{"abc", "xyz", 0},
		{"Return the sum of the array.", "Return the sum of an array.", 0.9090909090909091},
	}
	for _, tt := range tests {
		if got := bundles.Similarity(tt.a, tt.b); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Similarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// A deprecated API of the new release that names a novel API as its
// replacement is recorded on it (Extra.Replaces), with its import paths;
// a notice naming no candidate, or a name several candidates share, links
// nothing.
func TestDiff_Replaces(t *testing.T) {
	withDoc := func(e bundles.SurfaceEntry, doc string) bundles.SurfaceEntry {
		e.Docstring = sp(doc)
		return e
	}
	trapz := withDoc(entry("pkg.trapz"), "Integrate along the given axis.\n\n.. deprecated:: 2.0\n    `trapz` is deprecated. Please use `trapezoid` instead, or `pkg.integrate`.\n\nParameters\n----------\ny : array")
	trapz.Paths = []string{"pkg.trapz", "pkg.lib.trapz"}
	old := &bundles.Surface{Library: "pkg", Version: "1.0", Entries: []bundles.SurfaceEntry{
		trapz, entry("pkg.Frame.applymap"), entry("pkg.in1d"), entry("pkg.old_thing"), entry("pkg.Frame.agg"), entry("pkg.Frame.pad"),
	}}
	new := &bundles.Surface{Library: "pkg", Version: "2.0", Entries: []bundles.SurfaceEntry{
		trapz,
		entry("pkg.trapezoid"),
		withDoc(entry("pkg.Frame.applymap"), "Apply a function elementwise.\n\n.. deprecated:: 2.1.0\n   Frame.applymap has been deprecated. Use Frame.map instead.\n"),
		entry("pkg.Frame.map"),
		withDoc(entry("pkg.in1d"), "Test membership.\n\n.. deprecated:: 2.0\n    Use :func:`isin` instead of `in1d` for new code.\n"),
		entry("pkg.isin"),
		withDoc(entry("pkg.old_thing"), "Old thing, deprecated; use the new keyword instead of this flag."),
		withDoc(entry("pkg.Frame.agg"), "Aggregate (deprecated). Use `apply` instead."),
		entry("pkg.Frame.apply"), entry("pkg.Other.apply"),
		withDoc(entry("pkg.Frame.pad"), "Fill forward.\n\n.. deprecated:: 2.0\n    Series/Frame.pad is deprecated. Use Series/Frame.ffill instead.\n"),
		entry("pkg.Series"), entry("pkg.Frame.ffill"),
	}}
	cands, _ := bundles.Diff(old, new, "pkg", "", bundles.DiffOptions{})
	got := map[string][]string{}
	for _, c := range cands {
		if len(c.Extra.Replaces) > 0 {
			got[c.APIName] = c.Extra.Replaces
		}
	}
	want := map[string][]string{
		"pkg.trapezoid": {"pkg.trapz", "pkg.lib.trapz"},
		"pkg.Frame.map": {"pkg.Frame.applymap"},
		"pkg.isin":      {"pkg.in1d"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replaces = %v; want %v", got, want)
	}
}
