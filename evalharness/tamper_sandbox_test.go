package evalharness

import (
	"context"
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
