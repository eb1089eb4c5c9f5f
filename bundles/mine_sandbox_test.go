package bundles_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// Examples from the installed test suites of trixie-sci (numpy 2.2,
// pandas 2.2): tests in classes, with their helper methods as functions,
// tests that take fixtures and parametrize marks, and a class used as a
// value (ExtractRules 13, 14).
func TestExtract_TestSuiteExamples(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	cands := []bundles.Candidate{
		// Its docstring has no example; numpy/ma/tests/test_core.py calls it
		// in methods of test classes.
		{APIName: "numpy.ma.core.product", Kind: bundles.KindFunction, Library: "numpy", NewVersion: "2.2.4"},
		// No example in its own docstring (scipy 1.15); that of splrep
		// calls it (ExtractRules 14).
		{APIName: "scipy.interpolate.splev", Kind: bundles.KindFunction, Library: "scipy", NewVersion: "1.15.3"},
		// An enum the interchange tests compare with, never call.
		{APIName: "pandas.core.interchange.dataframe_protocol.DtypeKind", Kind: bundles.KindClass, Library: "pandas", NewVersion: "2.2.3"},
	}
	var bs []bundles.Bundle
	for _, c := range cands {
		got, sum, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: env, Candidates: []bundles.Candidate{c}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("%s: no bundle (%+v)", c.APIName, sum)
		}
		bs = append(bs, got...)
	}
	for _, b := range bs {
		if b.APIName == "scipy.interpolate.splev" {
			i := slices.IndexFunc(b.Examples, func(e bundles.Example) bool {
				return e.Source == bundles.SourceOtherDocstring && e.Status == bundles.StatusExecuted
			})
			if i < 0 || b.Examples[i].Origin == nil || !strings.HasSuffix(b.Examples[i].Origin.File, "/scipy/interpolate/_fitpack_py.py") ||
				!strings.Contains(b.Examples[i].Code, "splev(") {
				t.Errorf("scipy.interpolate.splev: want an executed example from splrep's docstring; got %+v", b.Examples)
			}
			continue
		}
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

// A helper that no test names gets an example from the tests of its own
// module that run its code: numpy.ma.core.get_masked_subclass (trixie-sci,
// numpy 2.2), which MaskedArray operations call, from numpy/ma/tests/test_core.py
// (ExtractRules 18).
func TestExtract_ModuleTestExamples(t *testing.T) {
	c := bundles.Candidate{APIName: "numpy.ma.core.get_masked_subclass", Kind: bundles.KindFunction, Library: "numpy", NewVersion: "2.2.4"}
	bs := extractOne(t, "trixie-sci", c)
	i := slices.IndexFunc(bs[0].Examples, func(e bundles.Example) bool {
		return e.Source == bundles.SourceTests && e.Status == bundles.StatusExecuted
	})
	if i < 0 {
		t.Fatalf("no executed example from the tests; E %q, examples %+v", bs[0].Provenance.Components["E"], bs[0].Examples)
	}
	e := bs[0].Examples[i]
	if e.Origin == nil || !strings.HasSuffix(e.Origin.File, "/numpy/ma/tests/test_core.py") || e.Origin.Test == "" ||
		!strings.Contains(e.Reason, "does not name it") || strings.Contains(e.Code, "get_masked_subclass") || strings.Contains(e.Code, "pytest") {
		t.Errorf("example %+v; want a test of numpy/ma/tests/test_core.py that does not name the API", e)
	}
}

// A method that its own docstring shows only at work, never by name, gets
// that block as its example when the block runs its code:
// pydantic.fields.FieldInfo.from_annotation (trixie-pydantic, pydantic 2.10),
// whose docstring says it is used internally when a model like the one in
// its Markdown fence is defined (ExtractRules 20).
func TestExtract_ModuleDocstringExamples(t *testing.T) {
	c := bundles.Candidate{APIName: "pydantic.fields.FieldInfo.from_annotation", Kind: bundles.KindMethod, Library: "pydantic", NewVersion: "2.10.6"}
	bs := extractOne(t, "trixie-pydantic", c)
	i := slices.IndexFunc(bs[0].Examples, func(e bundles.Example) bool {
		return e.Source == bundles.SourceDocstringBlock && e.Status == bundles.StatusExecuted
	})
	if i < 0 {
		t.Fatalf("no executed docstring block; E %q, examples %+v", bs[0].Provenance.Components["E"], bs[0].Examples)
	}
	e := bs[0].Examples[i]
	if e.Origin == nil || !strings.HasSuffix(e.Origin.File, "/pydantic/fields.py") || !strings.Contains(e.Reason, "does not name it") ||
		strings.Contains(e.Code, "from_annotation") || !strings.Contains(e.Code, "class MyModel(pydantic.BaseModel):") {
		t.Errorf("example %+v; want a block of FieldInfo.from_annotation's docstring defining MyModel", e)
	}
}

// extractOne extracts candidate c in environment env with one worker and
// returns its bundle, failing the test when none is made.
func extractOne(t *testing.T, env string, c bundles.Candidate) []bundles.Bundle {
	t.Helper()
	bs, sum, err := bundles.Extract(t.Context(), sandboxtest.Runner(t), bundles.ExtractConfig{Env: sandboxtest.Env(t, env), Candidates: []bundles.Candidate{c}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 {
		t.Fatalf("no bundle (%+v)", sum)
	}
	return bs
}

// Doctests that write every line of a compound statement behind ">>>", as
// torch's do, read as xdoctest reads them (trixie-arena, torch 2.6; ExtractRules
// 22): torch.library.infer_schema's example defines foo_impl over two ">>>"
// lines and calls infer_schema on it; torch.compiler.is_compiling's defines a
// forward method that calls the API, and nothing calls it: no example.
// torch.optim.lr_scheduler.MultiStepLR's goes on with a training loop calling
// train(...), which no example makes: it runs up to the statement that makes
// the scheduler, with torch's optimizer stand-in. The planners of
// torch.distributed.checkpoint's docstrings name Metadata only in a method's
// annotation: no example of it (ExtractRules 23).
func TestExtract_DoctestPromptContinuation(t *testing.T) {
	cands := []bundles.Candidate{
		{APIName: "torch._library.infer_schema.infer_schema", Kind: bundles.KindFunction, Library: "torch", NewVersion: "2.6.0"},
		{APIName: "torch.compiler.is_compiling", Kind: bundles.KindFunction, Library: "torch", NewVersion: "2.6.0"},
		{APIName: "torch.optim.lr_scheduler.MultiStepLR", Kind: bundles.KindClass, Library: "torch", NewVersion: "2.6.0"},
		{APIName: "torch.distributed.checkpoint.metadata.Metadata", Kind: bundles.KindClass, Library: "torch", NewVersion: "2.6.0"},
	}
	bs, sum, err := bundles.Extract(t.Context(), sandboxtest.Runner(t), bundles.ExtractConfig{Env: sandboxtest.Env(t, "trixie-arena"), Candidates: cands, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != len(cands) {
		t.Fatalf("%d bundles (%+v)", len(bs), sum)
	}
	for _, b := range bs {
		i := slices.IndexFunc(b.Examples, func(e bundles.Example) bool {
			return e.Source == bundles.SourceDoctest && e.Status == bundles.StatusExecuted
		})
		switch b.APIName {
		case "torch.distributed.checkpoint.metadata.Metadata":
			for _, e := range b.Examples {
				if e.Status != bundles.StatusFailed && strings.Contains(e.Code, "metadata: Metadata") {
					t.Errorf("%s: served %s example naming it only in an annotation:\n%s", b.APIName, e.Source, e.Code)
				}
			}
		case "torch.compiler.is_compiling":
			if i >= 0 || !strings.Contains(b.Provenance.Components["E"], "names the API only in functions it never calls") {
				t.Errorf("%s: E %q, examples %+v; want none, its doctest never calling it", b.APIName, b.Provenance.Components["E"], b.Examples)
			}
		case "torch.optim.lr_scheduler.MultiStepLR":
			if i < 0 {
				t.Fatalf("%s: no executed doctest; E %q, examples %+v", b.APIName, b.Provenance.Components["E"], b.Examples)
			}
			e := b.Examples[i]
			if !strings.Contains(e.Code, "optimizer = torch.optim.SGD(") || !strings.Contains(e.Code, "\nscheduler = MultiStepLR(optimizer, milestones=") ||
				!strings.HasSuffix(e.Code, "gamma=0.1)\n") ||
				!strings.Contains(e.Reason, "up to its last statement that names the API") {
				t.Errorf("%s: example %+v; want the doctest up to the scheduler, with the optimizer stand-in", b.APIName, e)
			}
		default:
			if i < 0 {
				t.Fatalf("%s: no executed doctest; E %q, examples %+v", b.APIName, b.Provenance.Components["E"], b.Examples)
			}
			code := b.Examples[i].Code
			for _, want := range []string{"def foo_impl(x: torch.Tensor) -> torch.Tensor:\n    return x.sin()\n",
				"infer_schema(foo_impl, op_name=\"foo\", mutates_args={})\n# -> foo(Tensor x) -> Tensor"} {
				if !strings.Contains(code, want) {
					t.Errorf("%s: doctest lacks %q:\n%s", b.APIName, want, code)
				}
			}
		}
	}
}
