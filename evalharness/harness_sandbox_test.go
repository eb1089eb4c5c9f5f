package evalharness

import (
	"context"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// newTestHarness returns a Harness over the real sandbox and trixie-sci,
// or skips (fails in CI) when they are missing.
func newTestHarness(t testing.TB) *Harness {
	t.Helper()
	return newTestHarnessIn(t, "trixie-sci")
}

// newTestHarnessIn is a harness whose tasks that name no environment run
// in the environment called name (a task that names one runs in it).
func newTestHarnessIn(t testing.TB, name string) *Harness {
	t.Helper()
	r := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, name)
	h, err := New(Config{Runner: r, Store: debenv.OpenStore(sandboxtest.Home()), Envs: func(string) (*sandbox.Environment, error) { return env, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// loadFixture reads the fixture task pool and its expected call records.
func loadFixture(t testing.TB) ([]*pool.Task, map[string]*pool.ExpectedCalls) {
	t.Helper()
	tasks, err := pool.LoadTasks(tasksPath, pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := pool.LoadExpectedCalls(expectedPath)
	if err != nil {
		t.Fatal(err)
	}
	return tasks, exp
}

func TestCheckCode_Smoke(t *testing.T) {
	h := newTestHarness(t)
	ctx := context.Background()
	cr, err := h.CheckCode(ctx, "import numpy as np\nx = np.unstack(np.arange(6).reshape(2, 3))\nprint(x)", "numpy.unstack", "numpy")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", cr)
	if !cr.Ran || !cr.TargetCalled || cr.Label != pool.LabelPass {
		t.Errorf("CheckCode = %+v; want ran, called, Pass", cr)
	}
}

func sandboxtestEnv(t testing.TB) *sandbox.Environment {
	t.Helper()
	return sandboxtest.Env(t, "trixie-sci")
}
