package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func newDocker(t *testing.T) *sandbox.Docker {
	t.Helper()
	d, err := sandbox.NewDocker(sandbox.DockerConfig{})
	if errors.Is(err, sandbox.ErrUnavailable) {
		sandboxtest.Unavailable(t, "no Docker engine answers: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// dockerEnv returns the environment with its imported image, or skips.
func dockerEnv(t *testing.T, name string) *sandbox.Environment {
	t.Helper()
	env := sandboxtest.Env(t, name)
	if env.Manifest.DockerImage == "" {
		sandboxtest.Unavailable(t, "environment %q has no Docker image (run `novelapi env docker %s`)", name, name)
	}
	return env
}

func TestDocker_Conformance(t *testing.T) {
	d := newDocker(t)
	sandboxtest.Conformance(t, d, dockerEnv(t, "trixie-sci"))
}

// A host whose cgroups cannot be read (here: a CgroupRoot with nothing
// mounted, as for a remote engine) runs as before and reports CPU time and
// peak memory as unknown (0), with no error.
func TestDocker_UnreadableCgroupsReportUnknown(t *testing.T) {
	d, err := sandbox.NewDocker(sandbox.DockerConfig{CgroupRoot: t.TempDir()})
	if errors.Is(err, sandbox.ErrUnavailable) {
		sandboxtest.Unavailable(t, "no Docker engine answers: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	res, err := d.Run(t.Context(), sandbox.PythonSpec(dockerEnv(t, "trixie-sci"), sandboxtest.Script(t, "fork_until_refused.py")))
	if err != nil {
		t.Fatalf("Run: %v (infra error %q)", err, res.InfraError)
	}
	if res.ExitCode != 0 || res.CPU != 0 || res.PeakMem != 0 || res.PIDLimitHit {
		t.Errorf("exit %d, CPU %v, PeakMem %d, PIDLimitHit %v; want 0, 0, 0, false (not measured)", res.ExitCode, res.CPU, res.PeakMem, res.PIDLimitHit)
	}
	sandboxtest.AssertClean(t, d.Name())
}

// The start-up sweep removes the per-run parent cgroups of a harness that
// died mid-run, in every hierarchy, and leaves names it does not own.
func TestDocker_SweepsDeadOwnersCgroups(t *testing.T) {
	const dead = "999999999-5-d1" // PID-STARTTICKS of no process, run 1
	const bwrapRun = "999999999-5-1"
	var leftovers, others []string
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		leftovers = []string{filepath.Join("/sys/fs/cgroup/novelapi", dead)}
	} else {
		for _, ctrl := range []string{"memory", "pids", "cpuacct", "blkio"} {
			leftovers = append(leftovers, filepath.Join("/sys/fs/cgroup", ctrl, "novelapi-"+dead))
		}
		others = []string{filepath.Join("/sys/fs/cgroup/memory", "novelapi-"+bwrapRun)}
	}
	for _, d := range append(leftovers, others...) {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("cannot create a cgroup (%v); the sweep needs a writable cgroup hierarchy", err)
		}
		t.Cleanup(func() { os.Remove(d) })
	}
	newDocker(t) // the start-up sweep
	for _, d := range leftovers {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("the sweep left %s", d)
		}
	}
	for _, d := range others {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the sweep removed %s, which is not a Docker run's: %v", d, err)
		}
	}
}

// Runs started while other goroutines end OS threads are never killed.
// The engine's runtime, not the harness, is the parent of a container's
// processes, so no thread of the harness is tied to them; fewer runs than
// the bwrap backend's test keep the check within CI's time (a container
// costs about half a second).
func TestDocker_ThreadChurn(t *testing.T) {
	d := newDocker(t)
	sandboxtest.ThreadChurn(t, d, dockerEnv(t, "trixie-sci"), 50, 2)
	sandboxtest.AssertClean(t, d.Name())
}

// Where the harness cannot bind a sized tmpfs at /out (it cannot mount,
// or the engine does not see its mounts), /out is an anonymous volume, and
// what is read back of it still keeps Result.Outputs' caps, with what was
// left out counted.
func TestDocker_VolumeOutReadBackCapped(t *testing.T) {
	d := newDocker(t)
	d.UseVolumeOut()
	spec := sandbox.PythonSpec(dockerEnv(t, "trixie-sci"), []byte(
		"for i in range(100):\n    open('/out/%03d' % i, 'w').write('z' * 1000)\n"))
	spec.Limits.OutFiles, spec.Limits.OutSize, spec.Limits.StreamCap = 40, 30_500, 800
	res, err := d.Run(t.Context(), spec)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run: %v, exit %d, stderr %q", err, res.ExitCode, res.Stderr)
	}
	var kept int
	for _, v := range res.Outputs {
		kept += len(v)
	}
	// 38 files of 800 bytes fill 30,400 of the 30,500 bytes, the 39th is
	// cut at 100, the remaining 61 are left out.
	if len(res.Outputs) != 39 || kept != 30_500 || res.OutputsDroppedFiles != 61 || res.OutputsDropped != 100_000-30_500 || res.OutFull {
		t.Errorf("returned %d files, %d bytes; dropped %d files, %d bytes; OutFull %v; want 39, 30500; 61, %d; false",
			len(res.Outputs), kept, res.OutputsDroppedFiles, res.OutputsDropped, res.OutFull, 100_000-30_500)
	}
	sandboxtest.AssertClean(t, d.Name())
}
