package evalharness

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
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
	})
}

// TestSpy_Sympy spies sympy classes whose construction never runs
// __init__ (Matrix defines __new__; primepi and totient evaluate to an
// Integer in __new__) and checks their results are sympy's.
func TestSpy_Sympy(t *testing.T) {
	r := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-arena")
	h, err := New(Config{Runner: r, Store: debenv.OpenStore(sandboxtest.Home()), Envs: func(string) (*sandbox.Environment, error) { return env, nil }})
	if err != nil {
		t.Fatal(err)
	}
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
