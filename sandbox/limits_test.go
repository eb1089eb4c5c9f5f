package sandbox_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func TestRun_MemoryMinimum(t *testing.T) {
	backends := []struct {
		name string
		open func(t *testing.T) (sandbox.Runner, *sandbox.Environment)
	}{
		{"Bwrap", func(t *testing.T) (sandbox.Runner, *sandbox.Environment) {
			return newBwrap(t), sandboxtest.Env(t, "trixie-sci")
		}},
		{"Docker", func(t *testing.T) (sandbox.Runner, *sandbox.Environment) {
			return newDocker(t), dockerEnv(t, "trixie-sci")
		}},
	}
	for _, bk := range backends {
		t.Run(bk.name, func(t *testing.T) {
			r, env := bk.open(t)
			for _, mem := range []int64{1 << 10, sandbox.MinMemory - 1} {
				spec := sandbox.PythonSpec(env, []byte("print('ok')\n"))
				spec.Limits.Memory = mem
				res, err := r.Run(t.Context(), spec)
				if !errors.Is(err, sandbox.ErrInvalidLimits) || !strings.Contains(err.Error(), "16 MiB") {
					t.Errorf("Run with Memory %d = %v; want ErrInvalidLimits naming the 16 MiB minimum", mem, err)
				}
				if err != nil && res.InfraError != err.Error() {
					t.Errorf("Run with Memory %d: InfraError %q; want the error %q", mem, res.InfraError, err)
				}
			}
			// At the minimum a Python run starts and finishes.
			spec := sandbox.PythonSpec(env, []byte("print('ok')\n"))
			spec.Limits.Memory = sandbox.MinMemory
			res, err := r.Run(t.Context(), spec)
			if err != nil {
				t.Fatalf("Run with Memory = MinMemory: %v", err)
			}
			if got := string(res.Stdout); got != "ok\n" || res.ExitCode != 0 || res.Limits.Memory != sandbox.MinMemory {
				t.Errorf("Run with Memory = MinMemory: stdout %q exit %d limit %d stderr %q; want \"ok\\n\", 0, %d",
					got, res.ExitCode, res.Limits.Memory, res.Stderr, sandbox.MinMemory)
			}
			sandboxtest.AssertClean(t, r.Name())
		})
	}
}

func TestBwrap_SetupFailureSaysWhy(t *testing.T) {
	// A limit checkSpec refuses: on cgroup v1 bwrap itself starts inside the
	// run's cgroup and is OOM-killed before it reports the sandbox's pid,
	// printing nothing; the error must still say what happened. Where bwrap
	// joins the cgroup after start-up the program is OOM-killed instead.
	b := newBwrap(t)
	spec := sandbox.PythonSpec(sandboxtest.Env(t, "trixie-sci"), []byte("print('ok')\n"))
	spec.Limits.Memory = 1 << 10
	res, err := b.RunUnchecked(t.Context(), spec)
	switch {
	case err != nil:
		msg := err.Error()
		t.Logf("setup error: %s", msg)
		if !strings.HasPrefix(msg, "sandbox: bwrap setup: ") || strings.HasSuffix(strings.TrimSpace(msg), ":") {
			t.Errorf("setup error %q; want \"sandbox: bwrap setup: ...\" with a detail", msg)
		}
		if !strings.Contains(msg, "memory limit of 1024 bytes was hit") {
			t.Errorf("setup error %q; want it to name the memory limit that killed bwrap", msg)
		}
	case !res.OOMKilled:
		t.Errorf("Run with Memory 1 KiB = %+v, nil; want a setup error or an OOM-killed run", res)
	}
	sandboxtest.AssertClean(t, b.Name())
}
