package sandbox

import (
	"os/exec"
	"runtime"
)

// Starting children whose life is tied to the starting thread.
//
// bwrap --die-with-parent sets a parent-death signal (prctl
// PR_SET_PDEATHSIG, SIGKILL) on bwrap and on the sandbox's init. The
// kernel sends it when the *thread* that forked the process exits, not the
// process (prctl(2): "the 'parent' in this case is considered to be the
// thread that created this process"). A Go program forks from whatever OS
// thread its goroutine runs on, and the runtime ends a thread whenever a
// goroutine that locked it returns without unlocking it, so any package of
// the harness that does so could kill a run that started on that thread
// earlier: golang/go#27505, and the note on syscall.SysProcAttr.Pdeathsig.
// startLocked keeps the forking thread reserved for the child until the
// child has been waited for, so it cannot exit first, while the guarantee
// that --die-with-parent gives (nothing of a run survives a killed
// harness) stays.

// startLocked starts cmd from a goroutine locked to its OS thread and
// waits for it there, so the thread that forked cmd outlives it. It
// returns Start's error, or a channel that receives Wait's error once (the
// caller receives it exactly once, which is the one Wait of cmd). The
// thread goes back to the runtime after Wait.
func startLocked(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}
