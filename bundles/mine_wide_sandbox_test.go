package bundles

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// wideEnv is the environment of the @wide preset's sid release (xarray
// 2026.04, astropy 8.0, scikit-learn 1.9), which CI does not build: the
// tests that need it skip without it, also under NOVELAPI_REQUIRE_SANDBOX=1.
const wideEnv = "sid-wide"

// runMine runs prog, a Python program that imports py/mine.py, in the
// environment env and decodes the JSON it prints into out.
func runMine(t *testing.T, env, prog string, out any) {
	t.Helper()
	runner := sandboxtest.Runner(t)
	e, err := debenv.OpenStore(sandboxtest.Home()).Get(env)
	if errors.Is(err, debenv.ErrUnknownEnvironment) {
		t.Skipf("SKIPPING: environment %s is not built; it is no CI environment (novelapi up --libraries @wide builds it)", env)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(t.Context(), sandbox.Spec{
		Environment: e,
		Files: []sandbox.File{{Path: "mine.py", Data: script("mine.py")}, {Path: "pyobj.py", Data: script("pyobj.py")},
			{Path: "prog.py", Data: []byte("import json, sys\nsys.path.insert(0, \"" + sandbox.JobDir + "\")\nimport mine\n" + prog)}},
		Argv:   []string{"python3", "-I", "-B", sandbox.JobDir + "/prog.py"},
		Env:    threadEnv,
		Limits: sandbox.Limits{Wall: 5 * time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	if err := json.Unmarshal(res.Stdout, out); err != nil {
		t.Fatalf("%v: %s", err, res.Stdout)
	}
}

// A test example of the installed suite (sid-wide) may use what a test helper
// module defines that does not import without pytest: xarray's
// TestDataArrayToNetCDF tests take create_tmp_file from their own module and
// assert_identical from xarray.tests, whose check goes as pytest's do, so
// the with-block that opens the file stays (py/mine.py foreign_names,
// _pruned; ExtractRules 24). An async test runs under asyncio.run, with its
// class's async helper methods (xarray's TestBackendIndexing and
// Variable.load_async). A parametrize case that binds the API itself names
// it (astropy's test_set_temp_dir_delete over temporary_cache_dir_path).
// A docstring's literal block of data is no candidate.
func TestTestExamples_WideSuites(t *testing.T) {
	prog := `out = {}
for top, leaf, api, kind in [("xarray", "open_dataarray", "xarray.backends.api.open_dataarray", "function"),
                             ("xarray", "load_async", "xarray.Variable.load_async", "method"),
                             ("astropy", "temporary_cache_dir_path", "astropy.config.paths.temporary_cache_dir_path", "function")]:
    got = mine.test_examples(mine.TestCorpus(top), leaf, api, 3, None, kind)
    out[api] = [{"test": g["origin"]["test"], "code": g["code"]} for g in got]
out["inert"] = [{"test": "", "code": str(mine.block_code("", c))} for c in
                ['# %ECSV 1.0\n# ---\n# datatype:\n# - {name: objects, datatype: string}\nobjects\n"{""a"":1}"\ntrue\n',
                 "t = Table.read(txt, format='ecsv')\n"]]
print(json.dumps(out))
`
	var got map[string][]struct{ Test, Code string }
	runMine(t, wideEnv, prog, &got)
	// A literal block of ECSV data parses as Python (comments, a name, constants) and
	// does nothing: no candidate (py/mine.py inert).
	if in := got["inert"]; len(in) != 2 || in[0].Code != "None" || in[1].Code == "None" {
		t.Errorf("block_code of an ECSV data block and of a Table.read call = %+v; want None, then the code", in)
	}
	checks := []struct {
		api, test string
		want      []string // in the code of the example of test
	}{
		{"xarray.backends.api.open_dataarray", "TestDataArrayToNetCDF.test_dataarray_to_netcdf_no_name",
			[]string{"def create_tmp_file(", "with open_dataarray(tmp) as loaded_da:\n        pass"}},
		{"xarray.Variable.load_async", "TestBackendIndexing.test_NumpyIndexingAdapter",
			[]string{"async def main():", "async def check_orthogonal_indexing(v, load_async):", "asyncio.run(main())"}},
		{"astropy.config.paths.temporary_cache_dir_path", "test_set_temp_dir_delete",
			[]string{"ctx_manager = temporary_cache_dir_path", "with ctx_manager(namespace='my.namespace', **kwargs) as tmp_path:"}},
	}
	for _, c := range checks {
		var code string
		for _, e := range got[c.api] {
			if e.Test == c.test {
				code = e.Code
			}
		}
		if code == "" {
			t.Errorf("%s: no example from %s; got %+v", c.api, c.test, got[c.api])
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(code, w) {
				t.Errorf("%s: example from %s lacks %q:\n%s", c.api, c.test, w, code)
			}
		}
		if strings.Contains(code, "pytest") || strings.Contains(code, "xarray.tests") || strings.Contains(code, "assert_identical") {
			t.Errorf("%s: example from %s keeps pytest or a test helper module:\n%s", c.api, c.test, code)
		}
	}
}

// A test of an API's own module that takes a parametrized fixture whose
// params are a list the test module binds is tried with each of its first
// params: astropy's format_engine, the old ECSV reader ({"format":
// "ascii.ecsv"}) and the new engine of astropy.io.misc.ecsv ({"format":
// "ecsv", "engine": "io.ascii"}), as test and test[1] (ExtractRules 24).
func TestModuleTestExamples_FixtureParams(t *testing.T) {
	prog := `import astropy.io.misc.ecsv as m
corpus = mine.TestCorpus("astropy")
got = mine.module_test_examples(corpus, m.__file__, 40, None, mine.module_callers(m.__file__, {"read_header"}))
print(json.dumps([{"test": g["origin"]["test"], "code": g["code"]} for g in got]))
`
	var got []struct{ Test, Code string }
	runMine(t, wideEnv, prog, &got)
	var old, engine bool
	for _, e := range got {
		if strings.Contains(e.Code, "pytest") {
			t.Errorf("%s keeps pytest:\n%s", e.Test, e.Code)
		}
		switch {
		case strings.HasSuffix(e.Test, "[1]") && strings.Contains(e.Code, "format_engine = {'format': 'ecsv', 'engine': 'io.ascii'}"):
			engine = true
		case !strings.Contains(e.Test, "[") && strings.Contains(e.Code, "format_engine = {'format': 'ascii.ecsv'}"):
			old = true
		}
	}
	if !old || !engine {
		t.Errorf("module tests of astropy.io.misc.ecsv: old reader %v, new engine %v; want both among %d", old, engine, len(got))
	}
}

// wideExtract extracts candidate c in sid-wide with one worker and returns its
// bundle, skipping when the environment is not built.
func wideExtract(t *testing.T, c Candidate) Bundle {
	t.Helper()
	env, err := debenv.OpenStore(sandboxtest.Home()).Get(wideEnv)
	if errors.Is(err, debenv.ErrUnknownEnvironment) {
		t.Skipf("SKIPPING: environment %s is not built; it is no CI environment (novelapi up --libraries @wide builds it)", wideEnv)
	}
	if err != nil {
		t.Fatal(err)
	}
	bs, sum, err := Extract(t.Context(), sandboxtest.Runner(t), ExtractConfig{Env: env, Candidates: []Candidate{c}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 {
		t.Fatalf("no bundle (%+v)", sum)
	}
	return bs[0]
}

// A method without an example of its own gets its class's docstring example
// when that calls it: scikit-learn 1.9's BaggingClassifier.predict, from
// BaggingClassifier's docstring in sklearn/ensemble/_bagging.py (py/extract.py
// other_docstring_examples; ExtractRules 24).
func TestExtract_OwnerDocstring(t *testing.T) {
	b := wideExtract(t, Candidate{APIName: "sklearn.ensemble.BaggingClassifier.predict", Kind: KindMethod, Library: "scikit-learn", NewVersion: "1.9.0"})
	for _, e := range b.Examples {
		if e.Source == SourceOtherDocstring && e.Status == StatusExecuted && e.Origin != nil &&
			strings.HasSuffix(e.Origin.File, "/sklearn/ensemble/_bagging.py") && strings.Contains(e.Code, ".predict(") {
			return
		}
	}
	t.Errorf("no executed example from BaggingClassifier's docstring; E %q, examples %+v", b.Provenance.Components["E"], b.Examples)
}

// A test's example runs beside links to the files of its test module's folder:
// astropy 8.0's test_set_position reads data/msx_header through
// get_pkg_data_filename, which looks beside the running script (before, it
// fell back to the astropy-data server: URLError; py/extract.py with_files).
func TestExtract_TestDataFiles(t *testing.T) {
	b := wideExtract(t, Candidate{APIName: "astropy.visualization.wcsaxes.CoordinateHelper.set_position", Kind: KindMethod, Library: "astropy", NewVersion: "8.0.2"})
	for _, e := range b.Examples {
		if e.Source == SourceTests && e.Status == StatusExecuted && strings.Contains(e.Code, "get_pkg_data_filename('data/") {
			return
		}
	}
	t.Errorf("no executed test example reading its data file; E %q, examples %+v", b.Provenance.Components["E"], b.Examples)
}
