package evalharness

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// spyCase is code that must run under the spy on api and call it calls
// times (docs/protocol.md §4.4: every kind of callable).
type spyCase struct {
	name, api, code string
	calls           int
}

func checkSpyCases(t *testing.T, h *Harness, library string, cases []spyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cr, err := h.CheckCode(t.Context(), c.code, c.api, library)
			if err != nil {
				t.Fatal(err)
			}
			if !cr.Ran || !cr.SpyInstalled || cr.Calls != c.calls {
				t.Errorf("ran %v, spy installed %v, calls %d (want %d); status %s %s: %s\nstderr: %s",
					cr.Ran, cr.SpyInstalled, cr.Calls, c.calls, cr.Status, cr.ExceptionType, cr.Message, cr.Stderr)
			}
		})
	}
}

// TestSpy_EveryKindOfCallable runs correct code that calls targets of each
// kind under the spy: every run must pass and count exactly the calls the
// code makes (the monitor's own fingerprinting calls not among them).
func TestSpy_EveryKindOfCallable(t *testing.T) {
	h := newTestHarness(t)
	checkSpyCases(t, h, "numpy", []spyCase{
		// Classes that define only __new__: a spy overriding __init__ made
		// object.__init__ refuse the arguments.
		{"new-only class", "datetime.datetime", "import datetime\nd = datetime.datetime(2020, 1, 2)\nassert d.day == 2 and isinstance(d, datetime.datetime)\nassert (d - datetime.datetime(2020, 1, 1)).days == 1", 2},
		{"itertools class", "itertools.accumulate", "import itertools\nassert list(itertools.accumulate([1, 2, 3])) == [1, 3, 6]", 1},
		// A classmethod and a method of built-in (immutable) types, whose
		// parent is not a module: the import line and the spy both failed.
		{"builtin classmethod", "datetime.datetime.fromisoformat", "import datetime\nassert datetime.datetime.fromisoformat('2020-01-02').day == 2", 1},
		{"ndarray method", "numpy.ndarray.sum", "import numpy as np\na = np.arange(6.0).reshape(2, 3)\nassert a.sum(axis=0).tolist() == [3.0, 5.0, 7.0]\nassert np.ndarray.sum(a) == 15.0", 2},
		{"builtin staticmethod", "builtins.str.maketrans", "t = str.maketrans('ab', 'cd')\nassert 'abc'.translate(t) == 'cdc'", 1},
		{"cython classmethod", "pandas.Timestamp.fromisoformat", "import pandas as pd\nassert pd.Timestamp.fromisoformat('2020-01-02').day == 2", 1},
		{"python method", "pandas.DataFrame.map", "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})\nassert df.map(lambda x: x + 1)['a'].tolist() == [2, 3]", 1},
		{"property", "pandas.DataFrame.T", "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})\nassert df.T.shape == (1, 2)", 1},
		// A module reached as an attribute: "import numpy.emath" fails.
		{"attribute module", "numpy.emath.sqrt", "import numpy as np\nassert np.emath.sqrt(-1) == 1j", 1},
		// An enum with members cannot be subclassed: a proxy watches it.
		{"enum", "http.HTTPStatus", "import http\ns = http.HTTPStatus(404)\nassert s is http.HTTPStatus.NOT_FOUND and isinstance(s, http.HTTPStatus)\nassert len(list(http.HTTPStatus)) > 10", 1},
		{"ufunc", "numpy.add", "import numpy as np\nassert np.add(1, 2) == 3", 1},
		// Classes whose own code names them (super(Fraction, cls),
		// super(ArgumentParser, self)): the class is patched in place, so
		// the name, identity, signature and pickling are the class's own.
		// Counted: the constructions, pickle's, the subclass's making and
		// construction, add_parser's parser_class(...) call.
		{"self-naming __new__", "fractions.Fraction", "import fractions, inspect, pickle\nfrom fractions import Fraction\n" +
			"f = Fraction(3, 4)\nassert type(f) is Fraction and fractions.Fraction is Fraction and f + Fraction(1, 4) == 1\n" +
			"assert str(inspect.signature(Fraction)) == '(numerator=0, denominator=None)'\nassert pickle.loads(pickle.dumps(f)) == f\n" +
			"class G(Fraction):\n    pass\nassert isinstance(G(1, 2), Fraction) and type(G) is type(Fraction)", 5},
		{"self-naming __init__", "argparse.ArgumentParser", "import argparse, inspect\np = argparse.ArgumentParser(prog='x')\n" +
			"p.add_subparsers(dest='cmd').add_parser('go')\nassert p.parse_args(['go']).cmd == 'go' and type(p) is argparse.ArgumentParser\n" +
			"assert list(inspect.signature(argparse.ArgumentParser).parameters)[:2] == ['prog', 'usage']", 2},
	})
}

// TestSpy_Sympy spies sympy classes whose construction never runs
// __init__ (Matrix defines __new__; primepi and totient evaluate to an
// Integer in __new__) and checks their results are sympy's.
func TestSpy_Sympy(t *testing.T) {
	h := newTestHarnessIn(t, "trixie-arena")
	checkSpyCases(t, h, "sympy", []spyCase{
		{"Matrix", "sympy.Matrix", "import sympy\nm = sympy.Matrix([[1, 2], [3, 4]])\nassert m.det() == -2 and m.shape == (2, 2)", 1},
		{"primepi", "sympy.primepi", "from sympy import primepi\nassert primepi(10) == 4", 1},
		{"totient symbolic", "sympy.totient", "import sympy\nn = sympy.Symbol('n', integer=True, positive=True)\ne = sympy.totient(n)\nassert sympy.totient(9) == 6 and e.func.__name__ == 'totient' and str(e) == 'totient(n)'", 2},
	})
}

// TestEvaluate_SpyInstallFailureIsTheTasks: a task whose second required
// API does not exist in the environment is an infrastructure error of the
// task that names that API, not API_NOT_CALLED blamed on the completion.
func TestEvaluate_SpyInstallFailureIsTheTasks(t *testing.T) {
	h := newTestHarness(t)
	task := importedTask("missing-api", "math.no_such_function")
	if err := task.Validate(false); err != nil {
		t.Fatal(err)
	}
	v, err := h.Evaluate(t.Context(), task, &pool.ExpectedCalls{TaskID: task.TaskID, Status: pool.CallsOK},
		"```python\ndef scaled(x, y, s):\n    return math.hypot(x, y, scale=s)\n```")
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != pool.StatusInfraError || !v.TaskDefect || v.Label != "" {
		t.Fatalf("status %s, task defect %v, label %q; want INFRA_ERROR, task defect, no label (%s)", v.Status, v.TaskDefect, v.Label, v.InfraError)
	}
	if !strings.Contains(v.InfraError, "math.no_such_function") || strings.Contains(v.InfraError, "math.hypot (") {
		t.Errorf("infra error %q should name math.no_such_function only", v.InfraError)
	}
}

// TestEvaluate_EntryPointCallsAfterReturn: the entry point returns a
// function that calls the target only when the test calls it, after the
// entry point has returned; those calls count.
func TestEvaluate_EntryPointCallsAfterReturn(t *testing.T) {
	h := newTestHarness(t)
	task := importedTask("later")
	task.TestHarness.ExecutionTest = strings.Replace(task.TestHarness.ExecutionTest,
		"assert scaled(3, 4, 2.0) == math.hypot(3, 4, scale=2.0)", "f = scaled(3, 4, 2.0)\n    assert f() == math.hypot(3, 4, scale=2.0)", 1)
	v, err := h.Evaluate(t.Context(), task, &pool.ExpectedCalls{TaskID: task.TaskID, Status: pool.CallsOK},
		"```python\ndef scaled(x, y, s):\n    return lambda: math.hypot(x, y, scale=s)\n```")
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed || v.SpyCalls != 1 {
		t.Fatalf("passed %v, spy calls %d, status %s: %s", v.Passed, v.SpyCalls, v.Status, v.Error)
	}
}

// TestEvaluate_TaskTestDefects: a test that does not compile, or imports
// a module the environment lacks, is the task's defect.
func TestEvaluate_TaskTestDefects(t *testing.T) {
	h := newTestHarness(t)
	for name, test := range map[string]string{
		"syntax": "assert scaled(3, 4, 2.0) ==\n",
		"import": "import no_such_module_anywhere\nassert scaled(3, 4, 2.0) == 10.0\n",
	} {
		t.Run(name, func(t *testing.T) {
			task := importedTask("defect-" + name)
			task.TestHarness.ExecutionTest = "assert _target_api_spy_installed\n" + pool.EndCheckMarker + "\n" + test
			v, err := h.Evaluate(t.Context(), task, &pool.ExpectedCalls{TaskID: task.TaskID, Status: pool.CallsOK},
				"```python\ndef scaled(x, y, s):\n    return math.hypot(x, y, scale=s)\n```")
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != pool.StatusInfraError || !v.TaskDefect || !strings.Contains(v.InfraError, "test") {
				t.Fatalf("status %s, task defect %v: %s", v.Status, v.TaskDefect, v.InfraError)
			}
		})
	}
}

// TestEvaluate_RunnerFormattingNotCounted: the runner's own work is no
// call of the completion's. Python 3.13's traceback formatting calls
// textwrap.dedent, which calls re.sub; when the completion's entry point
// raised in the test phase, formatting that exception counted a call of a
// re.sub target, so calling re.split with re.sub's keyword was "the target
// was called, then the code raised" (WrongLogic) instead of another API
// (CodeUpdateArena's re.sub sibling mutant).
func TestEvaluate_RunnerFormattingNotCounted(t *testing.T) {
	h := newTestHarness(t)
	task := &pool.Task{
		TaskID: "re-sub", APIName: "re.sub", Library: "codeupdatearena", Group: "re",
		Description: "Replace the first 'a'.", ContextCode: "import re",
		EntryPoint: "f", SpyScope: pool.SpyScopeEntryPoint, Origin: "codeupdatearena", Generator: "import:codeupdatearena",
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor("re.sub"), TargetAPI: "re.sub",
			ExecutionTest: "assert _target_api_spy_installed\n_target_api_call_count[0] = 0\n" + pool.EndCheckMarker + "\nassert f('banana') == 'bxnana'\n",
		},
	}
	exp := &pool.ExpectedCalls{TaskID: task.TaskID, Status: pool.CallsOK}
	v, err := h.Evaluate(t.Context(), task, exp, "```python\ndef f(s):\n    return re.split('a', 'x', s, count=1)\n```")
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed || v.SpyCalls != 0 || v.TargetCalled || v.Label != pool.LabelWrongAPISelection {
		t.Errorf("passed %v, spy calls %d, target called %v, label %s (%s: %s); want no call counted, WrongAPISelection",
			v.Passed, v.SpyCalls, v.TargetCalled, v.Label, v.Rule, v.Rationale)
	}
	v, err = h.Evaluate(t.Context(), task, exp, "```python\ndef f(s):\n    return re.sub('a', 'x', s, count=1)\n```")
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed || v.SpyCalls != 1 {
		t.Errorf("reference: passed %v, spy calls %d: %s", v.Passed, v.SpyCalls, v.Error)
	}
}

// selfNamingTask is a task of the generated form (context, masked region
// assigning the target call to result, check block, assertions) on a class
// whose own methods look their class up by its module-level name.
func selfNamingTask(id, api, context, masked, test string) *pool.Task {
	return &pool.Task{
		TaskID: id, APIName: api, Library: strings.Split(api, ".")[0], Domain: "stdlib", Difficulty: "easy",
		Description: "Construct the object of the example and store it in `result`.",
		ContextCode: context, MaskedRegion: masked, ReferenceSolution: context + "\n" + masked,
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor(api), TargetAPI: api, ExecutionTest: pool.CheckBlock(api) + test,
		},
		Environment: "trixie-sci", Generator: "test",
	}
}

// TestRun_SelfNamingClasses evaluates, as `novelapi eval run` does, tasks
// whose target is a class that names itself: fractions.Fraction.__new__
// calls super(Fraction, cls).__new__(cls) and argparse.ArgumentParser's
// __init__ super(ArgumentParser, self).__init__, both through their
// module's global name. A spy bound over that name made both recurse
// without end, so their references failed C1 and every correct completion
// failed. The code is the examples of Python's own documentation:
// Fraction.__new__'s doctest (Lib/fractions.py) and the argparse
// documentation's first example (Doc/library/argparse.rst). Each reference
// must record ok call records, pass with the spy on and be counted, the
// call-record check included; a completion that computes without the
// target (Decimal arithmetic; the sum by hand) is API_NOT_CALLED.
func TestRun_SelfNamingClasses(t *testing.T) {
	h := newTestHarness(t)
	const parser = "parser = argparse.ArgumentParser(description='Process some integers.')\n" +
		"parser.add_argument('integers', metavar='N', type=int, nargs='+', help='an integer for the accumulator')\n" +
		"parser.add_argument('--sum', dest='accumulate', action='store_const', const=sum, default=max, help='sum the integers (default: find the max)')\n" +
		"args = parser.parse_args(['--sum', '7', '-1', '42'])\n"
	tasks := []*pool.Task{
		selfNamingTask("fraction", "fractions.Fraction", "from fractions import Fraction",
			"result = Fraction(Fraction(1, 7), Fraction(2, 3))",
			"assert type(result).__name__ == 'Fraction' and result == Fraction(3, 14)\nassert result.limit_denominator(5) == Fraction(1, 5)\n"),
		selfNamingTask("fraction-str", "fractions.Fraction", "import fractions",
			"result = fractions.Fraction('-47e-2') + fractions.Fraction(1.47)",
			"import fractions\nassert result == fractions.Fraction(-47, 100) + fractions.Fraction(6620291452234629, 4503599627370496)\n"),
		selfNamingTask("argparse", "argparse.ArgumentParser", "import argparse",
			parser+"result = args.accumulate(args.integers)",
			"assert result == 48\n"),
	}
	right := map[string]string{}
	wrong := map[string]string{
		"fraction":     "import decimal\nresult = decimal.Decimal(3) / decimal.Decimal(14)",
		"fraction-str": "import decimal\nresult = decimal.Decimal('-0.47') + decimal.Decimal(1.47)",
		"argparse":     "result = 7 + -1 + 42",
	}
	expected := map[string]*pool.ExpectedCalls{}
	for _, tk := range tasks {
		if err := tk.Validate(false); err != nil {
			t.Fatalf("%s: %v", tk.TaskID, err)
		}
		ec, err := h.RecordExpectedCalls(t.Context(), tk)
		if err != nil {
			t.Fatal(err)
		}
		if ec.Status != pool.CallsOK || len(ec.Expected) == 0 {
			t.Fatalf("%s: reference call records %s (%d records); want ok", tk.TaskID, ec.Status, len(ec.Expected))
		}
		expected[tk.TaskID] = ec
		right[tk.TaskID] = tk.MaskedRegion
	}
	for _, tt := range []struct {
		name  string
		code  map[string]string
		check func(pool.TaskResult) bool
	}{
		{"Reference", right, func(r pool.TaskResult) bool { return r.Passed && r.TargetCalled && r.SpyCalls > 0 }},
		{"WithoutTarget", wrong, func(r pool.TaskResult) bool {
			return !r.Passed && !r.TargetCalled && r.Status == pool.StatusAPINotCalled
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var preds []*pool.Prediction
			for _, tk := range tasks {
				preds = append(preds, &pool.Prediction{TaskID: tk.TaskID, Samples: []string{"```python\n" + tt.code[tk.TaskID] + "\n```"}})
			}
			out := t.TempDir()
			if _, err := Run(t.Context(), RunConfig{Tasks: tasks, Expected: expected, Predictions: preds, OutDir: out, Workers: 2, Harness: h}); err != nil {
				t.Fatal(err)
			}
			results, _, err := pool.ReadResults(filepath.Join(out, pool.ResultsFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(results) != len(tasks) {
				t.Fatalf("%d results; want %d", len(results), len(tasks))
			}
			for _, r := range results {
				if !tt.check(r) {
					t.Errorf("%s: passed %v, status %s, target called %v, spy calls %d: %s", r.TaskID, r.Passed, r.Status, r.TargetCalled, r.SpyCalls, r.Error)
				}
			}
		})
	}
}
