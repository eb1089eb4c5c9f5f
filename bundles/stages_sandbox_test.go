package bundles_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// These tests run the embedded scripts in the real trixie-sci environment
// (numpy 2.2); they skip without a sandbox or environment, and fail then
// under NOVELAPI_REQUIRE_SANDBOX=1.

func TestIntrospect_Numpy(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	s, err := bundles.Introspect(t.Context(), runner, env, "numpy", "numpy")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Version, "2.") || len(s.Modules) < 20 {
		t.Errorf("version %q, %d modules; want numpy 2.x with its submodules", s.Version, len(s.Modules))
	}
	byName := map[string]*bundles.SurfaceEntry{}
	for i := range s.Entries {
		byName[s.Entries[i].APIName] = &s.Entries[i]
	}
	u := byName["numpy.unstack"]
	if u == nil {
		t.Fatal("numpy.unstack missing from the surface")
	}
	if u.Kind != bundles.KindFunction || u.Signature == nil || *u.Signature != "(x, /, *, axis=0)" || !u.HasSource() ||
		!strings.HasPrefix(*u.SourceFile, "<dist-packages>/numpy/") || !slices.Contains(u.Paths, "numpy.matlib.unstack") {
		t.Errorf("numpy.unstack = %+v", u)
	}
	if c := byName["numpy.ndarray"]; c == nil || c.Kind != bundles.KindClass || c.HasSource() {
		t.Errorf("numpy.ndarray (a C type) = %+v, want a class without source", c)
	}
	for _, e := range s.Entries {
		for _, seg := range strings.Split(e.Module, ".") {
			if strings.HasPrefix(seg, "_") || seg == "tests" {
				t.Fatalf("%s: walked a private or test module %s", e.APIName, e.Module)
			}
		}
	}
}

func TestIntrospect_MissingLibrary(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	_, err := bundles.Introspect(t.Context(), runner, env, "no_such_library_xyz", "")
	if !errors.Is(err, bundles.ErrLibraryMissing) || !strings.Contains(err.Error(), "trixie-sci") {
		t.Errorf("err = %v, want ErrLibraryMissing naming the environment", err)
	}
}

func TestExtract_Numpy(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	cands := []bundles.Candidate{
		{APIName: "numpy.unstack", Kind: bundles.KindFunction, Library: "numpy", Domain: "data_science", NewVersion: "2.2.4"},
		{APIName: "numpy.ndarray", Kind: bundles.KindClass, Library: "numpy", NewVersion: "2.2.4"},        // no Python source
		{APIName: "numpy.no_such_api", Kind: bundles.KindFunction, Library: "numpy", NewVersion: "2.2.4"}, // cannot resolve
	}
	out := filepath.Join(t.TempDir(), "bundles.jsonl")
	docs, err := bundles.ReadDocs("testdata/docs/python-numpy-doc", "/usr/share/doc", "python-numpy-doc", "1:2.2.4+ds-1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := bundles.ExtractConfig{Env: env, Candidates: cands, Out: out, Workers: 1, Docs: docs}
	bs, sum, err := bundles.Extract(t.Context(), runner, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || sum.Dropped[bundles.DropNoSource] != 1 || sum.Dropped[bundles.DropResolve] != 1 {
		t.Fatalf("got %d bundles, summary %+v; want unstack kept, ndarray and no_such_api dropped", len(bs), sum)
	}
	b := bs[0]
	if len(b.SParam) != 2 || b.SParam[0].Name != "x" || b.SParam[1].Default == nil || *b.SParam[1].Default != "0" ||
		b.SParam[0].Description == "" {
		t.Errorf("s_param = %+v", b.SParam)
	}
	if len(b.Examples) < 2 || b.Examples[0].Status != bundles.StatusExecuted || b.Examples[0].Source != bundles.SourceDoctest ||
		!strings.Contains(b.Examples[0].Code, "np.unstack(") ||
		strings.Contains(b.Examples[0].Code, ">>>") ||
		!strings.Contains(b.Examples[0].Code, "np.unstack(arr)\n# -> (array([[ 0,  1,  2,  3],\n#            [ 4,  5,  6,  7],") {
		t.Errorf("examples = %+v", b.Examples)
	}
	// M: the docstring's prose, then the release-note entry of 2.1.0 that
	// names numpy.unstack (grounding changelog).
	if w := len(strings.Fields(b.Mechanism.Text)); w < 30 || w > 250 || strings.Contains(b.Mechanism.Text, "``") ||
		b.Mechanism.Grounding != bundles.GroundingChangelog ||
		!strings.Contains(b.Mechanism.Text, "Release notes of 2.1.0: A new function np.unstack(array, axis=...) was added") ||
		b.Mechanism.ChangelogNotes == nil || !strings.HasPrefix(*b.Mechanism.ChangelogNotes, "A new function np.unstack") {
		t.Errorf("mechanism (%d words, %s) = %q", w, b.Mechanism.Grounding, b.Mechanism.Text)
	}
	if !strings.HasPrefix(b.Implementation, "@array_function_dispatch") || strings.Contains(b.Implementation, "Split an array") ||
		!strings.Contains(b.Implementation, "# --- helper: numpy._core.shape_base._unstack_dispatcher ---") {
		t.Errorf("implementation = %q", b.Implementation)
	}
	// After the doctest, tests of numpy's installed test suite that call
	// np.unstack, cut down to what the call needs and executed.
	tests := 0
	for _, e := range b.Examples[1:] {
		if e.Source != bundles.SourceTests || e.Status != bundles.StatusExecuted || e.Origin == nil ||
			e.Origin.Package != "python3-numpy" || !strings.Contains(e.Origin.File, "/numpy/_core/tests/test_") ||
			e.Origin.Line == 0 || !strings.Contains(e.Code, "np.unstack(") || !strings.Contains(e.Code, "import numpy as np") {
			t.Errorf("example from %s %+v:\n%s", e.Source, e.Origin, e.Code)
			continue
		}
		tests++
	}
	if tests == 0 {
		t.Error("no example from numpy's test suite")
	}
	if p := b.Provenance; p == nil || p.Hash != b.ComputeHash() || p.Environment != "trixie-sci" || p.Components["E"] != "docstring+tests:executed" ||
		p.Components["M"] != "docstring:summary+changelog:2.1.0" {
		t.Errorf("provenance = %+v", b.Provenance)
	}
	// Resuming does nothing: every API is in the output or its drop file.
	bs, sum, err = bundles.Extract(t.Context(), runner, cfg)
	if err != nil || len(bs) != 0 || sum.AlreadyDone != 3 || sum.TotalInOut != 1 {
		t.Errorf("resume: %d bundles, summary %+v, err %v; want nothing to do", len(bs), sum, err)
	}
}

// A scipy.stats *_gen class records its public instance (ExtractRules 2,
// 3), whose filled docstring gives an executed example while M keeps the
// class's own text without %(name)s templates; a method of it records the
// instance's method; a class of two instances records both; a class
// without an instance records none.
func TestExtract_PublicInstances(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	cands := []bundles.Candidate{
		{APIName: "scipy.stats.distributions.triang_gen", Kind: bundles.KindClass, Library: "scipy", Domain: "scientific", NewVersion: "1.15.3"},
		{APIName: "scipy.stats.distributions.irwinhall_gen.fit", Kind: bundles.KindMethod, Library: "scipy", Domain: "scientific", NewVersion: "1.15.3"},
		{APIName: "scipy.stats.CensoredData", Kind: bundles.KindClass, Library: "scipy", Domain: "scientific", NewVersion: "1.15.3"},
		{APIName: "scipy.stats.distributions.reciprocal_gen", Kind: bundles.KindClass, Library: "scipy", Domain: "scientific", NewVersion: "1.15.3"},
		// Its example binds `left` in a plotting statement and uses it later
		// (a NameError before ExtractRules 4).
		{APIName: "scipy.stats.distributions.vonmises_gen", Kind: bundles.KindClass, Library: "scipy", Domain: "scientific", NewVersion: "1.15.3"},
		// The instance itself as an API (new in scipy 1.15, as its class).
		{APIName: "scipy.stats.irwinhall", Kind: bundles.KindFunction, Library: "scipy", Domain: "scientific", NewVersion: "1.15.3"},
	}
	out := filepath.Join(t.TempDir(), "bundles.jsonl")
	bs, sum, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: env, Candidates: cands, Out: out, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bundles.Bundle{}
	for _, b := range bs {
		got[b.APIName] = b
	}
	if len(got) != 6 {
		t.Fatalf("got %d bundles, summary %+v; want 6", len(bs), sum)
	}
	if ms := got["scipy.stats.irwinhall"].Provenance.InstanceMethods; !slices.Contains(ms, "pdf(x, n, loc=0, scale=1)") {
		t.Errorf("scipy.stats.irwinhall instance methods = %v; want its docstring's call forms", ms)
	}
	if vm := got["scipy.stats.distributions.vonmises_gen"]; len(vm.Examples) != 1 || vm.Examples[0].Status != bundles.StatusExecuted {
		t.Errorf("vonmises_gen examples = %+v, E %q; want one executed", vm.Examples, vm.Provenance.Components["E"])
	}
	tri := got["scipy.stats.distributions.triang_gen"]
	if in := tri.Provenance.Instances; !slices.Equal(in, []string{"scipy.stats.triang", "scipy.stats.distributions.triang"}) {
		t.Errorf("triang_gen instances = %v", in)
	}
	if ms := tri.Provenance.InstanceMethods; !slices.Contains(ms, "pdf(x, c, loc=0, scale=1)") || !slices.Contains(ms, "fit(data)") {
		t.Errorf("triang_gen instance methods = %v; want the Methods section's call forms, pdf and fit among them", ms)
	}
	if m := tri.Mechanism.Text; strings.Contains(m, "%(") || !strings.Contains(m, "up-sloping") || strings.Contains(m, "generic methods") {
		t.Errorf("triang_gen M = %q; want the class's own notes, without templates or the instance's boilerplate", m)
	}
	if len(tri.Examples) != 1 || tri.Examples[0].Status != bundles.StatusExecuted || !strings.Contains(tri.Examples[0].Code, "from scipy.stats import triang") {
		t.Errorf("triang_gen examples = %+v; want the instance's executed example", tri.Examples)
	} else if n := strings.Count(tri.Examples[0].Code, "import numpy as np\n"); n != 1 {
		t.Errorf("triang_gen example imports numpy %d times; want once (the prelude's line is not repeated):\n%s", n, tri.Examples[0].Code)
	}
	if in := got["scipy.stats.distributions.irwinhall_gen.fit"].Provenance.Instances; len(in) == 0 || in[0] != "scipy.stats.irwinhall.fit" {
		t.Errorf("irwinhall_gen.fit instances = %v; want scipy.stats.irwinhall.fit first", in)
	}
	// Two public objects of one class: both names, the shortest first.
	if in := got["scipy.stats.distributions.reciprocal_gen"].Provenance.Instances; len(in) < 2 || in[0] != "scipy.stats.loguniform" || in[1] != "scipy.stats.reciprocal" {
		t.Errorf("reciprocal_gen instances = %v; want scipy.stats.loguniform, scipy.stats.reciprocal first", in)
	}
	if in := got["scipy.stats.CensoredData"].Provenance.Instances; len(in) != 0 {
		t.Errorf("CensoredData instances = %v; want none", in)
	}
}

// A default whose repr holds an object address gives the same signature in
// every process: scipy.fftpack.diff's _cache is a thread-local object.
func TestIntrospect_NoObjectAddresses(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	s, err := bundles.Introspect(t.Context(), runner, env, "scipy", "scipy")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range s.Entries {
		if e.Signature != nil && strings.Contains(*e.Signature, " at 0x") {
			t.Errorf("%s: signature %s holds an object address", e.APIName, *e.Signature)
		}
		if e.APIName == "scipy.fftpack.diff" {
			found = true
			if want := "(x, order=1, period=None, _cache=<_thread._local object>)"; e.Signature == nil || *e.Signature != want {
				t.Errorf("scipy.fftpack.diff signature = %v, want %s", e.Signature, want)
			}
		}
	}
	if !found {
		t.Error("scipy.fftpack.diff missing from the surface")
	}
}
