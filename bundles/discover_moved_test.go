package bundles_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

// movedSurfaces returns an old surface with one API in an experimental
// namespace (pkg.xp.norm2) and one in a stable module (pkg.old.moved), and
// a new surface where both moved to other files with the same signatures.
func movedSurfaces() (old, new *bundles.Surface) {
	xpOld := entry("pkg.xp.linalg.norm2", param("x", ""), param("axis", "None"))
	stableOld := entry("pkg.old.moved", param("a", ""), param("b", "1"))
	xpNew := entry("pkg.linalg.norm2", param("x", ""), param("axis", "None"))
	xpNew.SourceFile, xpNew.Docstring = sp("<dist-packages>/pkg/linalg.py"), xpOld.Docstring
	stableNew := entry("pkg.new.moved", param("a", ""), param("b", "1"))
	stableNew.SourceFile, stableNew.Docstring = sp("<dist-packages>/pkg/other.py"), stableOld.Docstring
	old = &bundles.Surface{Version: "1.0", Entries: []bundles.SurfaceEntry{xpOld, stableOld}}
	new = &bundles.Surface{Version: "2.0", Entries: []bundles.SurfaceEntry{xpNew, stableNew}}
	return old, new
}

func otherString(t *testing.T, c bundles.Candidate, key string) string {
	t.Helper()
	raw, ok := c.Extra.Other[key]
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: extra.%s = %s, not a string", c.APIName, key, raw)
	}
	return s
}

func TestDiff_MovedOnly(t *testing.T) {
	old, new := movedSurfaces()
	tests := []struct {
		name          string
		opts          bundles.DiffOptions
		wantNames     []string
		wantDroppedBy map[string]string // api_name -> dropped_by
		wantOldName   map[string]string // api_name -> extra.old_api_name
		wantMovedOnly int
		wantNew       int
	}{
		{"ProtocolDropsMoved", bundles.DiffOptions{}, nil, nil, nil, 2, 0},
		{"KeepFilteredListsMoved", bundles.DiffOptions{KeepFiltered: true},
			[]string{"pkg.linalg.norm2", "pkg.new.moved"},
			map[string]string{"pkg.linalg.norm2": bundles.FilterMoved, "pkg.new.moved": bundles.FilterMoved},
			map[string]string{"pkg.linalg.norm2": "pkg.xp.linalg.norm2", "pkg.new.moved": "pkg.old.moved"}, 2, 0},
		{"NewIfMovedFromExperimental", bundles.DiffOptions{NewIfMovedFrom: []string{"pkg.xp"}},
			[]string{"pkg.linalg.norm2"}, map[string]string{"pkg.linalg.norm2": ""}, map[string]string{"pkg.linalg.norm2": ""}, 1, 1},
		{"PrefixIsWholeSegments", bundles.DiffOptions{NewIfMovedFrom: []string{"pkg.x"}}, nil, nil, nil, 2, 0},
		{"BothFlags", bundles.DiffOptions{KeepFiltered: true, NewIfMovedFrom: []string{"pkg.xp"}},
			[]string{"pkg.linalg.norm2", "pkg.new.moved"},
			map[string]string{"pkg.linalg.norm2": "", "pkg.new.moved": bundles.FilterMoved},
			map[string]string{"pkg.linalg.norm2": "", "pkg.new.moved": "pkg.old.moved"}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cands, sum := bundles.Diff(old, new, "pkg", "data_science", tt.opts)
			if got := names(cands); !slices.Equal(got, tt.wantNames) {
				t.Fatalf("candidates = %v, want %v", got, tt.wantNames)
			}
			for _, c := range cands {
				if got := otherString(t, c, "dropped_by"); got != tt.wantDroppedBy[c.APIName] {
					t.Errorf("%s: dropped_by %q, want %q", c.APIName, got, tt.wantDroppedBy[c.APIName])
				}
				if c.Extra.OldAPIName != tt.wantOldName[c.APIName] {
					t.Errorf("%s: old_api_name %q, want %q", c.APIName, c.Extra.OldAPIName, tt.wantOldName[c.APIName])
				}
				if c.OldVersion == nil || *c.OldVersion != "1.0" {
					t.Errorf("%s: old_version %v, want 1.0", c.APIName, c.OldVersion)
				}
				exp := otherString(t, c, "moved_from_experimental")
				if wantExp := c.APIName == "pkg.linalg.norm2" && len(tt.opts.NewIfMovedFrom) > 0; wantExp != (exp == "pkg.xp.linalg.norm2") {
					t.Errorf("%s: moved_from_experimental %q", c.APIName, exp)
				}
			}
			if sum.MovedOnly != tt.wantMovedOnly || sum.New != tt.wantNew || sum.Candidates != tt.wantNew || len(sum.Dropped) != 0 {
				t.Errorf("summary moved_only %d new %d candidates %d dropped %v; want moved_only %d, %d new, nothing dropped",
					sum.MovedOnly, sum.New, sum.Candidates, sum.Dropped, tt.wantMovedOnly, tt.wantNew)
			}
		})
	}
}

// TestDiff_NewIfMovedFromPrefersStableMatch checks that an API matched both
// in the experimental namespace and elsewhere is diffed against the other
// match, and that a match at the same path still counts.
func TestDiff_NewIfMovedFromPrefersStableMatch(t *testing.T) {
	xp := entry("pkg.xp.norm2", param("x", ""), param("axis", "None"))
	stable := entry("pkg.stable.norm2", param("x", ""), param("axis", "None"))
	stable.SourceFile = sp("<dist-packages>/pkg/stable.py")
	stable.Docstring = sp(longDoc + " stable")
	kept := entry("pkg.xp.kept", param("x", ""))
	n := entry("pkg.linalg.norm2", param("x", ""), param("axis", "None"))
	n.SourceFile = sp("<dist-packages>/pkg/linalg.py")
	old := &bundles.Surface{Version: "1.0", Entries: []bundles.SurfaceEntry{xp, stable, kept}}
	new := &bundles.Surface{Version: "2.0", Entries: []bundles.SurfaceEntry{n, kept}}
	cands, sum := bundles.Diff(old, new, "pkg", "", bundles.DiffOptions{NewIfMovedFrom: []string{"pkg.xp"}, KeepFiltered: true})
	if len(cands) != 1 || otherString(t, cands[0], "dropped_by") != bundles.FilterMoved ||
		cands[0].Extra.OldAPIName != "pkg.stable.norm2" || otherString(t, cands[0], "moved_from_experimental") != "" {
		t.Errorf("candidates = %+v; want pkg.linalg.norm2 moved from pkg.stable.norm2", cands)
	}
	if sum.Unchanged != 1 || sum.MovedOnly != 1 || sum.Added != 0 {
		t.Errorf("summary = %+v; want pkg.xp.kept unchanged (same path) and one moved", sum)
	}
}
