package sandbox_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func newBwrap(t *testing.T) *sandbox.Bwrap {
	t.Helper()
	b, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if errors.Is(err, sandbox.ErrUnavailable) {
		sandboxtest.Unavailable(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBwrap_Conformance(t *testing.T) {
	b := newBwrap(t)
	sandboxtest.Conformance(t, b, sandboxtest.Env(t, "trixie-sci"))
}

func TestBwrap_JobFilesAndImports(t *testing.T) {
	b := newBwrap(t)
	env := sandboxtest.Env(t, "trixie-sci")
	main := []byte("import helper, os, stat\n" +
		"print(helper.VALUE, oct(stat.S_IMODE(os.stat('/job/pkg').st_mode)), oct(stat.S_IMODE(os.stat('/job/run.sh').st_mode)))\n")
	spec := sandbox.PythonSpec(env, main,
		sandbox.File{Path: "helper.py", Data: []byte("VALUE = 42\n")},
		sandbox.File{Path: "pkg/data.txt", Data: []byte("x")},
		sandbox.File{Path: "run.sh", Data: []byte("#!/bin/sh\n"), Mode: 0o777})
	res, err := b.Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Stdout), "42 0o555 0o555\n"; got != want || res.ExitCode != 0 {
		t.Errorf("stdout %q exit %d stderr %q; want %q, 0 (/job on sys.path, read-only modes)", got, res.ExitCode, res.Stderr, want)
	}
	sandboxtest.AssertClean(t, b.Name())
}

func TestBwrap_StackLimitClamped(t *testing.T) {
	// P11: asking for more than the inherited hard limit is clamped and
	// recorded, never an error.
	var hard unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_STACK, &hard); err != nil {
		t.Fatal(err)
	}
	b := newBwrap(t)
	env := sandboxtest.Env(t, "trixie-sci")
	spec := sandbox.PythonSpec(env, []byte("import resource\nprint(resource.getrlimit(resource.RLIMIT_STACK)[0])\n"))
	want := uint64(64 << 20)
	if hard.Max != unix.RLIM_INFINITY && hard.Max < want {
		want = hard.Max
	}
	spec.Limits.Stack = 64 << 20
	res, err := b.Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != strconv.FormatUint(want, 10) || uint64(res.Limits.Stack) != want {
		t.Errorf("stack inside %s, recorded %d; want %d (stderr %q)", got, res.Limits.Stack, want, res.Stderr)
	}
}

func TestBwrap_ContextCancel(t *testing.T) {
	b := newBwrap(t)
	env := sandboxtest.Env(t, "trixie-sci")
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	spec := sandbox.PythonSpec(env, sandboxtest.Script(t, "busy_loop.py"))
	start := time.Now()
	_, err := b.Run(ctx, spec)
	if err == nil {
		t.Errorf("Run after cancellation = nil error; want the cancellation")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Run returned %v after start; want soon after the 1.5 s cancellation", took)
	}
	sandboxtest.AssertClean(t, b.Name())
}

func TestBwrap_SweepsDeadOwnersCgroups(t *testing.T) {
	newBwrap(t) // creates the parents
	// A leftover of a harness that was SIGKILLed mid-run (P19, P20): a run
	// cgroup named after a dead process, with a live member.
	const name = "999999999-5-1"
	var dirs []string
	for _, ctrl := range []string{"pids", "memory"} {
		d := filepath.Join("/sys/fs/cgroup", ctrl, "novelapi", name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("cannot create a v1 cgroup (%v); the sweep is covered on v1 hosts", err)
		}
		dirs = append(dirs, d)
	}
	sleeper := exec.Command("sleep", "600")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sleeper.Wait() }()
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(sleeper.Process.Pid)), 0); err != nil {
			sleeper.Process.Kill()
			t.Fatal(err)
		}
	}
	newBwrap(t) // the start-up sweep
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		sleeper.Process.Kill()
		t.Errorf("the sweep left the leftover run's process alive")
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("the sweep left %s", d)
			os.Remove(d)
		}
	}
}

func TestBwrap_StartsInsideRunCgroup(t *testing.T) {
	// On cgroup v1 bwrap is started inside the run's cgroups (a shell joins
	// them and execs it), so the sandbox's cgroup namespace, created by
	// bwrap, is rooted at the run cgroup of every hierarchy: the program
	// sees "/" and nothing of the host's cgroup paths.
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		t.Skip("cgroup v2 host: runs are moved into their cgroup after bwrap starts")
	}
	b := newBwrap(t)
	env := sandboxtest.Env(t, "trixie-sci")
	res, err := b.Run(t.Context(), sandbox.PythonSpec(env, []byte("print(open('/proc/self/cgroup').read(), end='')\n")))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for line := range strings.Lines(string(res.Stdout)) {
		// "ID:CONTROLLERS:PATH"
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, ctrl := range strings.Split(f[1], ",") {
			seen[ctrl] = f[2]
		}
	}
	for _, ctrl := range []string{"memory", "pids", "cpu", "cpuacct", "freezer"} {
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", ctrl, "cgroup.procs")); err != nil {
			continue // not mounted here
		}
		if got := seen[ctrl]; got != "/" {
			t.Errorf("%s cgroup inside = %q; want / (the run cgroup as the namespace root); /proc/self/cgroup:\n%s", ctrl, got, res.Stdout)
		}
	}
	sandboxtest.AssertClean(t, b.Name())
}

// Runs started while other goroutines end OS threads are never killed:
// the sandbox must not die with the thread that happened to start it
// (golang/go#27505).
func TestBwrap_ThreadChurn(t *testing.T) {
	b := newBwrap(t)
	sandboxtest.ThreadChurn(t, b, sandboxtest.Env(t, "trixie-sci"), 1000, 2)
	sandboxtest.AssertClean(t, b.Name())
}

// harnessEnvVar makes the test binary act as a harness that
// TestBwrap_KilledHarnessLeavesNothing kills mid-run.
const harnessEnvVar = "NOVELAPI_TEST_KILLED_HARNESS"

// A harness SIGKILLed mid-run leaves no process of the run behind
// (bwrap --die-with-parent, docs/sandbox.md P19), however its threads were
// used, and the next harness's start-up sweep removes its run cgroup and
// run directory with its /out tmpfs.
func TestBwrap_KilledHarnessLeavesNothing(t *testing.T) {
	if os.Getenv(harnessEnvVar) == "1" {
		b := newBwrap(t)
		spec := sandbox.Spec{Environment: sandboxtest.Env(t, "trixie-sci"), Argv: []string{"sleep", "617"}}
		spec.Limits.Wall = time.Minute
		res, err := b.Run(context.Background(), spec)
		t.Fatalf("the run ended before the harness was killed: %v (%+v)", err, res)
	}
	b := newBwrap(t)
	sandboxtest.Env(t, "trixie-sci")
	harness := exec.Command(os.Args[0], "-test.run=^TestBwrap_KilledHarnessLeavesNothing$", "-test.count=1")
	harness.Env = append(os.Environ(), harnessEnvVar+"=1")
	if err := harness.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- harness.Wait() }()
	var sleeper int
	for deadline := time.Now().Add(30 * time.Second); sleeper == 0; {
		if sleeper = findProcess("sleep\x00617\x00"); sleeper != 0 {
			break
		}
		if time.Now().After(deadline) {
			harness.Process.Kill()
			t.Fatalf("the harness started no run within 30 s (%v)", <-done)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("killing the harness (pid %d) while its run's program (pid %d) sleeps", harness.Process.Pid, sleeper)
	harness.Process.Kill()
	<-done
	for deadline := time.Now().Add(5 * time.Second); findProcess("sleep\x00617\x00") != 0; {
		if time.Now().After(deadline) {
			unix.Kill(sleeper, unix.SIGKILL)
			t.Fatalf("the run's program (pid %d) outlived the killed harness by 5 s", sleeper)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The next harness sweeps what the dead one left.
	newBwrap(t)
	tag := strconv.Itoa(harness.Process.Pid) + "-"
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "novelapi-run-"+tag+"*")); len(m) > 0 {
		t.Errorf("run dirs left after the sweep: %v", m)
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/novelapi*/" + tag + "*"); len(m) > 0 {
		t.Errorf("run cgroups left after the sweep: %v", m)
	}
	if mi, err := os.ReadFile("/proc/self/mountinfo"); err == nil && strings.Contains(string(mi), "/novelapi-run-"+tag) {
		t.Errorf("the /out tmpfs of the killed harness is still mounted after the sweep:\n%s", mi)
	}
	sandboxtest.AssertClean(t, b.Name())
}

// findProcess returns the pid of a process whose /proc/PID/cmdline is
// cmdline, 0 if there is none.
func findProcess(cmdline string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if c, err := os.ReadFile(p + "/cmdline"); err == nil && string(c) == cmdline {
			pid, _ := strconv.Atoi(filepath.Base(p))
			return pid
		}
	}
	return 0
}
