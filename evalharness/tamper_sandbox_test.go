package evalharness

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// The attacks of docs/threat-model.md §5, each run on the real sandbox
// against real tasks. None may pass, and none may make check_code report
// a target call that was never made.

// frameWalk reaches the runner's state through the completion's caller
// frame: it drops the pending test units, turns off the private check and
// leaves a wrong result (a runner that runs the completion in its own
// interpreter passed it).
const frameWalk = `import sys
_f = sys._getframe(1).f_locals
_u = _f.get('units')
if _u is not None:
    _u[:] = [u for u in _u if u[0] != 'test']
if 'verify' in _f:
    _f['verify'] = None
result = None`

func TestEvaluate_FrameWalk(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	for _, id := range []string{"np_cumulative_sum_easy", "pd_case_when_medium", "scipy_softplus_easy"} {
		t.Run(id, func(t *testing.T) {
			task := fixtureTask(t, tasks, id)
			v, err := h.Evaluate(context.Background(), task, exp[id], frameWalk)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s: %s", v.Status, v.Rationale)
			if v.Passed || v.Status != pool.StatusHarnessTamper {
				t.Errorf("Evaluate = passed %v status %s (%s); want HARNESS_TAMPER", v.Passed, v.Status, v.Rationale)
			}
		})
	}
}

// TestCheckCode_ForgedCalls writes the spy's counts, by every route a
// completion has to them, in code that never calls the target.
func TestCheckCode_ForgedCalls(t *testing.T) {
	h := newTestHarness(t)
	tests := []struct{ name, code string }{
		{"CallerFrame", "import sys\n_p = sys._getframe(1).f_locals.get('priv')\n" +
			"_p['counts'].setdefault('solution', {})['numpy.unstack'] = 3\n_target_api_call_count[0] += 3"},
		{"Inspect", "import inspect\n_f = inspect.currentframe().f_back\n_p = _f.f_locals.get('priv')\n" +
			"_p['counts'].setdefault('solution', {})['numpy.unstack'] = 3\n_target_api_call_count[0] += 3"},
		{"Traceback", "try:\n    1/0\nexcept Exception as e:\n    _f = e.__traceback__.tb_frame.f_back\n" +
			"_p = _f.f_locals.get('priv')\n_p['counts'].setdefault('solution', {})['numpy.unstack'] = 3\n_target_api_call_count[0] += 3"},
		{"GC", "import gc\nfor _o in gc.get_objects():\n    if isinstance(_o, dict) and 'counts' in _o and 'phase' in _o:\n" +
			"        _o['counts'].setdefault('solution', {})['numpy.unstack'] = 3\n_target_api_call_count[0] += 3"},
		{"SpyGlobals", "import numpy as np\n_h = np.unstack.__globals__['_spy_hook']\n_h.call('numpy.unstack')\n_target_api_call_count[0] += 1"},
		{"HookClass", "for _c in object.__subclasses__():\n    if _c.__name__ == 'Hook':\n" +
			"        _c.call.__defaults__[0]['counts'].setdefault('solution', {})['numpy.unstack'] = 3\n_target_api_call_count[0] += 3"},
		{"PublicCounter", "_target_api_call_count[0] += 3\n_target_api_counts['numpy.unstack'] = 3"},
		// Library code the runner's reporting used, patched: the JSON
		// encoder, os.write, the builtins (with the public counter agreeing).
		{"JSONEncoder", "import json\nclass E(json.JSONEncoder):\n    def encode(self, o):\n        if isinstance(o, dict) and o.get('t') == 'spy':\n" +
			"            o['rec']['count'] = 3\n            o['rec']['apis'] = {'numpy.unstack': 3}\n        return super().encode(o)\njson._default_encoder = E()"},
		{"OsWrite", "import os, json\n_w = os.write\ndef w(fd, data):\n    try:\n        m = json.loads(bytes(data))\n        if m.get('t') == 'spy':\n" +
			"            m['rec']['count'] = 3\n            m['rec']['apis'] = {'numpy.unstack': 3}\n            data = (json.dumps(m) + '\\n').encode()\n" +
			"    except Exception:\n        pass\n    _w(fd, data)\n    return len(data)\nos.write = w"},
		{"Builtins", "import builtins\n_s = builtins.sum\nbuiltins.sum = lambda it, *a: 3 if type(it).__name__ == 'dict_values' else _s(it, *a)\n" +
			"_target_api_call_count[0] += 3"},
		{"ChannelWrite", "import os\nfor _fd in range(3, 12):\n    try:\n" +
			"        os.write(_fd, b'{\"t\": \"spy\", \"rec\": {\"count\": 5, \"installed\": true}}\\n')\n    except OSError:\n        pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr, err := h.CheckCode(context.Background(), tt.code, "numpy.unstack", "numpy")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s, called %v: %s", cr.Status, cr.TargetCalled, cr.Reason)
			if cr.TargetCalled || cr.Calls > 0 || cr.Label == pool.LabelPass {
				t.Errorf("CheckCode = called %v (%d calls), status %s, label %s (%s); want no target call", cr.TargetCalled, cr.Calls, cr.Status, cr.Label, cr.Reason)
			}
		})
	}
}

// TestEvaluate_JudgeOutOfReach tries what a completion can do to the
// process that judges it from its own: the test and the expected records
// are nowhere it can read, the judge's records file and process do not
// yield a pass.
func TestEvaluate_JudgeOutOfReach(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	task := fixtureTask(t, tasks, "np_matrix_norm_medium")
	tests := []struct{ name, code string }{
		// Looks for the test (its check block) in every file the judge
		// could have left readable; prints what it finds.
		{"ReadAnswerKey", `import os
_hits = []
for _root in ('/job', '/tmp', '/out'):
    for _d, _, _fs in os.walk(_root):
        for _n in _fs:
            try:
                if b'end check' in open(os.path.join(_d, _n), 'rb').read():
                    _hits.append(os.path.join(_d, _n))
            except Exception:
                pass
for _p in ('cmdline', 'environ', 'fd/0'):
    try:
        if b'end check' in open('/proc/%d/%s' % (os.getppid(), _p), 'rb').read(1 << 20):
            _hits.append(_p)
    except Exception:
        pass
assert not _hits, _hits
norms = None`},
		{"ForgeRecords", `import os
with open('/out/records.jsonl', 'w') as _f:
    _f.write('{"type": "done", "status": "ok", "n": 0}\n')
norms = None`},
		{"KillJudge", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nnorms = None"},
		{"StopJudge", "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\nnorms = None"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Evaluate(context.Background(), task, exp[task.TaskID], tt.code)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s: %s", v.Status, v.Rationale)
			if v.Passed || v.Status == pool.StatusPass {
				t.Errorf("Evaluate = passed %v status %s", v.Passed, v.Status)
			}
			if tt.name == "ReadAnswerKey" && strings.Contains(v.Error, "AssertionError: [") {
				t.Errorf("the completion found the test: %s", v.Error)
			}
		})
	}
}

// loadPoolSample reads testdata/pool: tasks of the real pool that
// novelapi builds from Debian trixie's numpy, pandas and scipy (tasks
// build), with their expected call records.
func loadPoolSample(t testing.TB) ([]*pool.Task, map[string]*pool.ExpectedCalls) {
	t.Helper()
	tasks, err := pool.LoadTasks("testdata/pool/tasks.jsonl", pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := pool.LoadExpectedCalls("testdata/pool/expected_calls.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return tasks, exp
}

// TestEvaluate_ChecksOutOfReach runs the attacks on real pool
// tasks. Each completion makes the reference's target call (so the
// call-record check holds) and then tries to pass the assertions with a
// wrong result.
func TestEvaluate_ChecksOutOfReach(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadPoolSample(t)
	tests := []struct {
		name, task, code, want string
	}{
		// The runner's pending test units, reached through the caller frame.
		{"FrameWalkNumpy", "nv_fc54005ea651", frameWalk, pool.StatusHarnessTamper},
		{"FrameWalkPandas", "nv_82a2cb9295b5", frameWalk, pool.StatusHarnessTamper},
		{"FrameWalkScipy", "nv_2b208d936c29", frameWalk, pool.StatusHarnessTamper},
		// A library function the assertions use.
		{"PatchedAllcloseNumpy", "nv_fc54005ea651", patchedAllclose, pool.StatusWrongAnswer},
		{"PatchedAllclosePandas", "nv_82a2cb9295b5", patchedAllclose, pool.StatusWrongAnswer},
		{"PatchedAllcloseScipy", "nv_2b208d936c29", patchedAllclose, pool.StatusWrongAnswer},
		// Builtins the assertions use, shadowed in the namespace.
		{"ShadowedBuiltins", "nv_fc54005ea651", shadowedBuiltins, pool.StatusWrongAnswer},
		// A class of the completion named like the expected type, on a
		// task whose assertions check only type, shape and dtype.
		{"FakeNdarray", "nv_60a852551897", "class ndarray:\n    shape = (2, 2, 2)\n    dtype = 'complex128'\n" +
			"result = ndarray()", pool.StatusWrongAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := fixtureTask(t, tasks, tt.task)
			code := task.MaskedRegion + "\n" + tt.code
			v, err := h.Evaluate(context.Background(), task, exp[task.TaskID], code)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s: %s", v.Status, v.Rationale)
			if v.Passed || v.Status != tt.want {
				t.Errorf("Evaluate = passed %v status %s (%s: %s) %s; want %s", v.Passed, v.Status, v.Label, v.Rationale, v.Error, tt.want)
			}
		})
	}
}

// shadowedBuiltins leaves an object of its own as the result and binds
// type and __import__ in the namespace so that the assertions' calls of
// them answer what the test expects.
const shadowedBuiltins = `import numpy as _np
class _M:
    def __getattr__(self, n):
        return lambda *a, **k: True
class _R:
    shape = (10,)
    dtype = 'int64'
result = _R()
type = lambda o: _np.ndarray
__import__ = lambda *a, **k: _M()`

// patchedAllclose leaves a wrong result (zeros of the right shape and
// dtype) and makes numpy.allclose answer True.
const patchedAllclose = `result = result * 0
import numpy
numpy.allclose = lambda *a, **k: True`

func fixtureTask(t testing.TB, tasks []*pool.Task, id string) *pool.Task {
	t.Helper()
	for _, tk := range tasks {
		if tk.TaskID == id {
			return tk
		}
	}
	t.Fatalf("no task %s", id)
	return nil
}

// stealDefaults is Python for an attacker of the spies (docs/threat-model.md
// §3.1): steal(f) swaps f's code for code of the same parameters and free
// variables that returns its locals, calls f and restores it, so it hands
// back the defaults f holds without reading __defaults__.
const stealDefaults = `def steal(f, *args):
    c = f.__code__
    n = c.co_argcount + c.co_kwonlyargcount
    names = list(c.co_varnames[:n])
    ps = names[:c.co_argcount]
    rest = n
    if c.co_flags & 4:
        ps.append('*' + c.co_varnames[rest])
        rest += 1
    elif c.co_kwonlyargcount:
        ps.append('*')
    ps += names[c.co_argcount:]
    if c.co_flags & 8:
        ps.append('**' + c.co_varnames[rest])
    fv = c.co_freevars
    src = 'def _outer():\n'
    for v in fv:
        src += '    %s = None\n' % v
    src += '    def _t(%s):\n        %s\n        return dict(locals())\n    return _t\n' % (
        ', '.join(ps), ('(' + ', '.join(fv) + ',)') if fv else 'pass')
    ns = {}
    exec(src, ns)
    old = f.__code__
    f.__code__ = ns['_outer']().__code__
    try:
        return f(*args)
    finally:
        f.__code__ = old
def hooks(d):
    return [v for v in d.values() if type(v).__name__ == 'SimpleNamespace']
`

// TestCheckCode_SpyAttributes reaches the monitor through the attributes of
// the spies (their __globals__, __closure__, __code__, the class spy's
// metaclass and the proxies' methods) in code that never enters the
// target, and tries to make the spy count a call of it. None may count.
func TestCheckCode_SpyAttributes(t *testing.T) {
	h := newTestHarness(t)
	tests := []struct{ name, api, code string }{
		// The sealed functions in a function spy's __globals__, called.
		{"GlobalsCount", "numpy.unstack", "import numpy as np\nnp.unstack.__globals__['_spy_count']('numpy.unstack')"},
		{"GlobalsRecord", "numpy.unstack", "import numpy as np\ng = np.unstack.__globals__\ng['_spy_record']({'kind': 'call'})\ng['_spy_count']('numpy.unstack')"},
		// The spy factories in __globals__: a spy of a function of the
		// completion, or of another library function, counting as the target.
		{"GlobalsWrap", "numpy.unstack", "import numpy as np\nnp.unstack.__globals__['_spy_wrap'](lambda *a, **k: None, 'numpy.unstack')()"},
		{"GlobalsInstall", "numpy.unstack", "import numpy as np, os\nnp.unstack.__globals__['_spy_install']('os.getcwd', 'numpy.unstack')\nos.getcwd()"},
		// Code swapped into a function that holds the hook, so that its
		// defaults come back without reading __defaults__.
		{"CodeSwap", "numpy.unstack", stealDefaults + "import numpy as np\ng = np.unstack.__globals__\n" +
			"for f in [np.unstack] + [v for v in g.values() if type(v).__name__ == 'function']:\n" +
			"    try:\n        for _h in hooks(steal(f, 'numpy.unstack')):\n            _h.call('numpy.unstack')\n            _target_api_call_count[0] += 1\n    except Exception:\n        pass"},
		// The spy counts and then fails before it enters the target.
		{"CountThenRaise", "numpy.unstack", "import numpy as np\nif '_target_api_depth' in globals():\n    _target_api_depth[0] = None\n" +
			"    try:\n        np.unstack(np.zeros((2, 2)))\n    except TypeError:\n        pass"},
		{"GlobalsSwap", "numpy.unstack", "import numpy as np\ng = np.unstack.__globals__\nks = [k for k in g if k.startswith(('_target_api_d', '_spy_d'))]\n" +
			"for k in ks:\n    g[k] = None\nif ks:\n    try:\n        np.unstack(np.zeros((2, 2)))\n    except TypeError:\n        pass"},
		// The spy's closure: the target it calls, replaced.
		{"ClosureSwap", "numpy.unstack", "import numpy as np\ncells = [c for c in np.unstack.__closure__ or () if callable(c.cell_contents)]\n" +
			"for c in cells:\n    c.cell_contents = lambda *a, **k: None\nif cells:\n    assert np.unstack(np.zeros((2, 2))) is None"},
		// A class patched in place: its type is the spy metaclass.
		{"MetaGlobals", "fractions.Fraction", "from fractions import Fraction\ntype(Fraction).__call__.__globals__['_spy_count']('fractions.Fraction')"},
		{"MetaCallForeign", "fractions.Fraction", "from fractions import Fraction\nassert type(Fraction).__call__(int) == 0"},
		{"MetaInitForeign", "fractions.Fraction", "from fractions import Fraction\ntype(Fraction).__init__(int, 'int', (), {})"},
		{"MetaNewClass", "fractions.Fraction", "from fractions import Fraction\nX = type(Fraction)('X', (), {})\nX()"},
		{"MetaClosureSwap", "fractions.Fraction", "from fractions import Fraction\nclass M:\n    __call__ = staticmethod(lambda *a, **k: 0)\n" +
			"cells = [c for c in type(Fraction).__call__.__closure__ or () if isinstance(c.cell_contents, type) and c.cell_contents is not Fraction]\n" +
			"for c in cells:\n    c.cell_contents = M\nif cells:\n    assert Fraction(1, 2) == 0"},
		{"MetaCodeSwap", "fractions.Fraction", stealDefaults + "from fractions import Fraction\nm = type(Fraction)\n" +
			"for f in (m.__dict__['__call__'], m.__dict__['__init__']):\n    try:\n        for _h in hooks(steal(f, int)):\n" +
			"            _h.call('fractions.Fraction')\n            _target_api_call_count[0] += 1\n    except Exception:\n        pass"},
		// A built-in class spied by a subclass.
		{"InitSubclassDirect", "datetime.datetime", "import datetime\ndatetime.datetime.__init_subclass__()"},
		{"SubclassMetaForeign", "datetime.datetime", "import datetime\nassert type(datetime.datetime).__call__(int) == 0"},
		// A class that cannot be subclassed, and a callable instance, spied
		// by a proxy.
		{"MroEntriesDirect", "builtins.bool", "bool.__mro_entries__(())"},
		{"ProxyGlobals", "scipy.stats.triang", "import scipy.stats\ntype(scipy.stats.triang).__getattr__.__globals__['_spy_count']('scipy.stats.triang')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib := strings.Split(tt.api, ".")[0]
			cr, err := h.CheckCode(context.Background(), tt.code, tt.api, lib)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s, called %v (%d), ran %v, installed %v: %s %s %s", cr.Status, cr.TargetCalled, cr.Calls, cr.Ran, cr.SpyInstalled, cr.Reason, cr.ExceptionType, cr.Message)
			if !cr.SpyInstalled && cr.Status != pool.StatusHarnessTamper {
				t.Fatalf("the spy of %s was not installed: %s", tt.api, cr.Message)
			}
			if cr.TargetCalled || cr.Calls > 0 || cr.Label == pool.LabelPass {
				t.Errorf("CheckCode = called %v (%d calls), status %s, label %s; want no target call", cr.TargetCalled, cr.Calls, cr.Status, cr.Label)
			}
		})
	}
}

// TestEvaluate_SpyAttributesForge: a completion that computes the answer
// without the target and makes the spy's count and call record through the
// monitor it reaches from a spy's __globals__ (or calls the target with
// another argument and has the record fingerprint the answer) must not
// pass.
func TestEvaluate_SpyAttributesForge(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	task := fixtureTask(t, tasks, "np_cumulative_sum_easy")
	const answer = "running = np.concatenate([np.zeros((2, 1)), np.cumsum(daily, axis=1)], axis=1)\n" +
		"g = np.cumulative_sum.__globals__\n"
	tests := []struct{ name, code string }{
		{"CountAndRecord", answer + "g['_spy_count']('numpy.cumulative_sum')\ng['_spy_record']({'kind': 'call', 'ret': g['_fp'](running)})"},
		{"Fingerprint", answer + "real = g['_fp']\ng['_fp'] = lambda o, *a, **k: real(running)\nnp.cumulative_sum(np.zeros(1))\ng['_fp'] = real"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Evaluate(context.Background(), task, exp[task.TaskID], tt.code)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s (%d calls): %s %s", v.Status, v.SpyCalls, v.Rationale, v.Error)
			if v.Passed || v.Status == pool.StatusPass {
				t.Errorf("Evaluate = passed %v status %s (%d calls); want no pass", v.Passed, v.Status, v.SpyCalls)
			}
		})
	}
}

// reachFrom is Python that walks everything reachable from the spy of the
// target named by the check's api (the spy, its type, a class member's raw
// descriptor) through attributes nobody audits: functions' __globals__,
// __closure__, __dict__ and __wrapped__, classes' dictionaries and types,
// descriptors' functions. It fails, naming them, if it finds a
// SimpleNamespace (the runner's hook, a spy's context) or a function that
// is no library's whose globals hold anything but builtins.
const reachFrom = `import importlib, inspect, sys, types
def resolve(path):
    parts = path.split('.')
    for i in range(len(parts), 0, -1):
        try:
            o = importlib.import_module('.'.join(parts[:i]))
            break
        except ImportError:
            continue
    parent = o
    for p in parts[i:]:
        parent, o = o, getattr(o, p)
    return parent, o, parts[-1]
mods = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
def walk(roots):
    seen, todo, bad = set(), list(roots), []
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, (str, bytes, int, float, types.ModuleType)) or o is None:
            continue
        seen.add(id(o))
        t = type(o)
        if t is types.SimpleNamespace:
            bad.append('a SimpleNamespace')
        elif t is types.FunctionType:
            if id(o.__globals__) in mods:
                continue
            extra = [k for k in o.__globals__ if k not in ('__builtins__', '__name__')]
            if extra:
                bad.append('%s holds %d names (%s)' % (o.__qualname__, len(extra), ', '.join(sorted(extra)[:5])))
            todo.append(o.__globals__)
            todo.extend(c.cell_contents for c in o.__closure__ or () if c.cell_contents is not None)
            todo.extend(vars(o).values())
        elif t is dict:
            if id(o) not in mods:
                todo.extend(o.values())
        elif t in (tuple, list, set, frozenset):
            todo.extend(o)
        elif t in (staticmethod, classmethod):
            todo.append(o.__func__)
        elif t is property:
            todo.extend((o.fget, o.fset, o.fdel))
        elif t is types.MethodType:
            todo.extend((o.__func__, o.__self__))
        elif isinstance(o, type):
            todo.extend(vars(o).values())
            todo.append(type(o))
        else:
            todo.append(t)
    return bad
`

// TestCheckCode_SpyReach walks everything a completion reaches from each
// kind of spy without an audited read (reachFrom): none may lead to a
// function of the monitor, its namespace, the runner's hook or a spy's
// context.
func TestCheckCode_SpyReach(t *testing.T) {
	h := newTestHarness(t)
	for _, api := range []string{"numpy.unstack", "fractions.Fraction", "datetime.datetime", "builtins.bool",
		"scipy.stats.triang", "pandas.DataFrame.T", "datetime.datetime.fromisoformat", "numpy.ndarray.sum",
		"pandas.Timestamp.fromisoformat", "http.HTTPStatus"} {
		t.Run(api, func(t *testing.T) {
			code := reachFrom + "parent, o, leaf = resolve(" + strconv.Quote(api) + ")\n" +
				"roots = [o, type(o), inspect.getattr_static(parent, leaf, None), _spy_check_calls]\n" +
				"roots += [v for v in globals().values() if type(v) is types.FunctionType and v.__globals__ is not globals()]\n" +
				"bad = walk(roots)\nassert not bad, bad"
			cr, err := h.CheckCode(context.Background(), code, api, strings.Split(api, ".")[0])
			if err != nil {
				t.Fatal(err)
			}
			if !cr.Ran || !cr.SpyInstalled {
				t.Errorf("ran %v, installed %v, status %s: %s %s %s", cr.Ran, cr.SpyInstalled, cr.Status, cr.Reason, cr.ExceptionType, cr.Message)
			}
		})
	}
}
