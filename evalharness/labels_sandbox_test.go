package evalharness

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// TestEvaluate_Labels runs completions that end or constrain a run in ways
// only the sandbox's facts tell apart (a signal, a limit met and handled,
// recursion, a full /out) on a real task, and checks the verdict each gets
// (docs/sandbox.md §4.1).
func TestEvaluate_Labels(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	task := *fixtureTask(t, tasks, "np_matrix_norm_medium")
	// A million frames cost seconds of CPU to build and unwind; the
	// verdict, not the machine's load, is under test.
	task.TimeoutS = 120
	honest := task.MaskedRegion
	tests := []struct {
		name, code string
		wantStatus string
		wantSignal string // substring of Verdict.Signal
		wantErr    string // substring of Verdict.Error
	}{
		// A real SIGSEGV of the completion's process, after the target call.
		{"CrashBySignal", honest + "\nimport faulthandler\nfaulthandler._sigsegv()", pool.StatusCrash, "segmentation fault (signal 11)", ""},
		// Recursion without end under a raised limit: a RecursionError
		// whose million-frame traceback is read for its last 40 frames.
		{"DeepRecursion", "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)\n" + honest, pool.StatusRuntimeError, "", "RecursionError"},
		{"Recursion", "def f(n):\n    return f(n + 1)\nf(0)\n" + honest, pool.StatusRuntimeError, "", "RecursionError"},
		// Threads until the pids limit refuses one; the completion catches
		// that, joins them and answers right.
		{"PidsLimitHandled", "import threading, time\nev = threading.Event()\nts = []\ntry:\n    for _ in range(200):\n" +
			"        th = threading.Thread(target=ev.wait)\n        th.start()\n        ts.append(th)\nexcept RuntimeError:\n    pass\n" +
			"ev.set()\nfor th in ts:\n    th.join()\nassert len(ts) < 200, len(ts)\n" + honest, pool.StatusPass, "", ""},
		{"PidsLimitUnhandled", "import threading\nev = threading.Event()\nfor _ in range(200):\n    threading.Thread(target=ev.wait, daemon=True).start()\n" + honest,
			pool.StatusResourceLimit, "", "can't start new thread"},
		// /out filled to its size and file count: the judge's records
		// still come through, and the test decides.
		{"OutFlood", "import os\nfor i in range(300):\n    try:\n        with open('/out/f%d' % i, 'wb') as f:\n            f.write(b'x' * (1 << 17))\n" +
			"    except OSError:\n        break\n" + honest, pool.StatusPass, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Evaluate(t.Context(), &task, exp[task.TaskID], tt.code)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tt.wantStatus || !strings.Contains(v.Signal, tt.wantSignal) || !strings.Contains(v.Error, tt.wantErr) {
				t.Errorf("Evaluate = status %s, signal %q, label %s (%s), error %q; want %s, signal with %q, error with %q",
					v.Status, v.Signal, v.Label, v.Rationale, v.Error, tt.wantStatus, tt.wantSignal, tt.wantErr)
			}
			if tt.wantSignal != "" && !strings.Contains(v.Rationale, tt.wantSignal) {
				t.Errorf("rationale %q does not name the signal", v.Rationale)
			}
			if v.Retried {
				t.Errorf("the run was retried after a timeout")
			}
		})
	}
}

// TestEvaluate_TestLacksModule: a test that imports a module the
// environment lacks is an infrastructure error naming the module, never a
// failure of the completion.
func TestEvaluate_TestLacksModule(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	task := *fixtureTask(t, tasks, "np_matrix_norm_medium")
	task.TestHarness.ExecutionTest = strings.Replace(task.TestHarness.ExecutionTest, pool.EndCheckMarker,
		pool.EndCheckMarker+"\nimport novelapi_absent_module", 1)
	v, err := h.Evaluate(t.Context(), &task, exp[task.TaskID], task.MaskedRegion)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != pool.StatusInfraError || !v.TaskDefect || v.Label != "" || !strings.Contains(v.InfraError, "novelapi_absent_module") {
		t.Errorf("Evaluate = status %s, task defect %v, label %q, infra error %q; want INFRA_ERROR, a task defect naming the module",
			v.Status, v.TaskDefect, v.Label, v.InfraError)
	}
}

// TestCheckCode_NameInjection: an api_name is pasted into the setup's
// import lines, so a name that is not a dotted Python name is refused
// before anything runs ("numpy\nprint(6*7)\nimport numpy.x y" ran its print
// in the candidate and in the judge).
func TestCheckCode_NameInjection(t *testing.T) {
	h := newTestHarness(t)
	for _, name := range []string{"numpy;print(6*7).x", "numpy\nprint(6*7)\nimport numpy.x y", "numpy;print(6*7)\nimport numpy.unstack()"} {
		cr, err := h.CheckCode(context.Background(), "print('ran')", name, "numpy")
		if !errors.Is(err, ErrBadName) || strings.Contains(cr.Stdout, "42") {
			t.Errorf("CheckCode(api_name %q) = %v, stdout %q; want ErrBadName and nothing run", name, err, cr.Stdout)
		}
	}
}
