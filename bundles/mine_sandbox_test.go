package bundles_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// Examples from the installed test suites of trixie-sci (numpy 2.2,
// pandas 2.2): tests in classes, with their helper methods as functions,
// tests that take fixtures and parametrize marks, and a class used as a
// value (ExtractRules 13).
func TestExtract_TestSuiteExamples(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	cands := []bundles.Candidate{
		// Its docstring has no example; numpy/ma/tests/test_core.py calls it
		// in methods of test classes.
		{APIName: "numpy.ma.core.product", Kind: bundles.KindFunction, Library: "numpy", NewVersion: "2.2.4"},
		// An enum the interchange tests compare with, never call.
		{APIName: "pandas.core.interchange.dataframe_protocol.DtypeKind", Kind: bundles.KindClass, Library: "pandas", NewVersion: "2.2.3"},
	}
	bs, sum, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: env, Candidates: cands[:1], Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	more, sum2, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: env, Candidates: cands[1:], Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	bs = append(bs, more...)
	if len(bs) != 2 {
		t.Fatalf("got %d bundles (%+v, %+v); want 2", len(bs), sum, sum2)
	}
	for _, b := range bs {
		var class, executed int
		for _, e := range b.Examples {
			if e.Source != bundles.SourceTests || e.Status != bundles.StatusExecuted || e.Origin == nil {
				continue
			}
			executed++
			if strings.Contains(e.Origin.Test, ".") {
				class++
			}
			if strings.Contains(e.Code, "self") || strings.Contains(e.Code, "pytest") {
				t.Errorf("%s: example from %s keeps self or pytest:\n%s", b.APIName, e.Origin.Test, e.Code)
			}
		}
		if executed == 0 {
			t.Errorf("%s: no executed example from the test suite; E %q, examples %+v", b.APIName, b.Provenance.Components["E"], b.Examples)
		}
		if b.APIName == "numpy.ma.core.product" && class == 0 {
			t.Errorf("numpy.ma.core.product: no example from a test class's method: %+v", b.Examples)
		}
	}
}
