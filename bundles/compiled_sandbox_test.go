package bundles_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestCompiled_NumpyBookwormTrixie discovers numpy 1.24 (bookworm-sci) →
// 2.2 (trixie-sci) and extracts its APIs without Python source: numpy.matvec,
// numpy.vecmat and numpy.bitwise_count are ufuncs, numpy.dtypes.StringDType
// a C type. They are candidates marked no_source, absent under
// ProtocolOnly, and served with S from the docstring's signature line, an
// executed example, M, and C marked unavailable.
func TestCompiled_NumpyBookwormTrixie(t *testing.T) {
	runner := sandboxtest.Runner(t)
	oldEnv, newEnv := sandboxtest.Env(t, "bookworm-sci"), sandboxtest.Env(t, "trixie-sci")
	cfg := bundles.DiscoverConfig{Library: "numpy", OldEnv: oldEnv, NewEnv: newEnv}
	cands, sum, err := bundles.Discover(t.Context(), runner, cfg)
	if err != nil {
		t.Fatal(err)
	}
	compiled := []string{"numpy.bitwise_count", "numpy.dtypes.StringDType", "numpy.matvec", "numpy.vecmat"}
	byName := map[string]bundles.Candidate{}
	for _, c := range cands {
		byName[c.APIName] = c
	}
	for _, n := range compiled {
		if c, ok := byName[n]; !ok || c.Extra.Extension != bundles.ExtensionNoSource || c.IsModified {
			t.Errorf("%s: candidate %v, extension %q, modified %v; want a new API marked no_source", n, ok, c.Extra.Extension, c.IsModified)
		}
	}
	// numpy 1.24's ufuncs have no __module__, so its walk could not
	// attribute them; numpy.add is no novel API in 2.2.
	if c, ok := byName["numpy.add"]; ok {
		t.Errorf("numpy.add is a candidate (%+v); want it known from the old release", c.Extra)
	}
	if sum.Compiled < len(compiled) || sum.Compiled > 40 {
		t.Errorf("summary: %d without Python source; want the 4 above and few others", sum.Compiled)
	}

	cfg.Diff.ProtocolOnly = true
	proto, psum, err := bundles.Discover(t.Context(), runner, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range proto {
		if c.Extra.Extension != "" {
			t.Errorf("ProtocolOnly lists %s (extension %q)", c.APIName, c.Extra.Extension)
		}
	}
	if psum.Compiled != 0 || psum.Dropped[bundles.FilterNoSource] == 0 || len(proto) != len(cands)-sum.Compiled-sum.Extensions {
		t.Errorf("ProtocolOnly: %d candidates, %d compiled, dropped %v; default %d, %d compiled, %d methods",
			len(proto), psum.Compiled, psum.Dropped, len(cands), sum.Compiled, sum.Extensions)
	}

	var sel []bundles.Candidate
	for _, n := range []string{"numpy.matvec", "numpy.dtypes.StringDType"} {
		sel = append(sel, byName[n])
	}
	dir := t.TempDir()
	bs, esum, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: newEnv, Candidates: sel,
		Out: filepath.Join(dir, "bundles.jsonl"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 {
		t.Fatalf("extracted %d bundles (summary %+v); want matvec and StringDType", len(bs), esum)
	}
	want := map[string]struct{ sig, param string }{
		"numpy.matvec":             {"(x1, x2, /, out=None, *, casting='same_kind'", "x1"},
		"numpy.dtypes.StringDType": {"(*, na_object=np._NoValue, coerce=True)", "na_object"},
	}
	for _, b := range bs {
		p := b.Provenance
		w := want[b.APIName]
		if p.Extension != bundles.ExtensionNoSource || b.Implementation != "" ||
			!strings.HasPrefix(p.Components["C"], "unavailable: no Python source") {
			t.Errorf("%s: extension %q, C %q (%q); want no_source with C unavailable", b.APIName, p.Extension, b.Implementation, p.Components["C"])
		}
		if !strings.HasPrefix(p.Signature, w.sig) || !strings.HasPrefix(p.Components["S"], "docstring_signature") ||
			!slices.ContainsFunc(b.SParam, func(sp bundles.Parameter) bool { return sp.Name == w.param && sp.Description != "" }) {
			t.Errorf("%s: signature %q from %q, S %+v; want %s... from the docstring's signature line", b.APIName, p.Signature, p.Components["S"], b.SParam, w.sig)
		}
		if len(b.Examples) == 0 || b.Examples[0].Status != "executed" || strings.TrimSpace(b.Mechanism.Text) == "" {
			t.Errorf("%s: examples %+v, M %q; want an executed example and M", b.APIName, b.Examples, b.Mechanism.Text)
		}
	}

	none, psum2, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: newEnv, Candidates: sel, ProtocolOnly: true})
	if err != nil || len(none) != 0 || psum2.Attempted != 0 {
		t.Errorf("ProtocolOnly extraction: %d bundles, %d attempted, err %v; want none", len(none), psum2.Attempted, err)
	}
}
