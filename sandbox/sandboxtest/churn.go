package sandboxtest

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novelapi/novelapi/sandbox"
)

// A ChurnReport counts what went wrong in ThreadChurn's runs.
type ChurnReport struct {
	Runs         int   // runs completed
	Killed       int   // runs that ended by a signal or with an exit code other than 0
	InfraErrors  int   // runs whose Run returned an error or set InfraError
	WrongOutput  int   // runs that exited 0 with stdout other than the program's
	ThreadsEnded int64 // OS threads ended by the churners meanwhile
}

// churnProgram prints a line that the harness checks; it is the shortest
// run that still imports nothing and exercises the whole sandbox.
const churnProgram = "import sys\nprint('ok', sys.argv[0])\n"

// ThreadChurn runs n short programs on r over env, workers at a time,
// while other goroutines keep ending OS threads of the harness: each
// locks its thread (runtime.LockOSThread) and returns without unlocking,
// so the runtime ends the thread (runtime.LockOSThread docs). A backend
// that ties the life of its children to the thread that started them (a
// parent-death signal, prctl PR_SET_PDEATHSIG, is sent when the creating
// thread exits, not the process: golang/go#27505) sees its runs killed or
// failing to start. It fails t for every run that did not exit 0 with the
// program's output, and returns the counts.
func ThreadChurn(t *testing.T, r sandbox.Runner, env *sandbox.Environment, n, workers int) ChurnReport {
	t.Helper()
	stop := make(chan struct{})
	var ended atomic.Int64
	var churners sync.WaitGroup
	for range 2 {
		churners.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread()
					close(done)
					// Returning while locked ends the thread.
				}()
				<-done
				ended.Add(1)
				// Leaves the CPUs to the runs; threads still end every
				// few hundred microseconds, far more often than runs start.
				time.Sleep(200 * time.Microsecond)
			}
		})
	}
	defer func() {
		close(stop)
		churners.Wait()
	}()

	var (
		mu  sync.Mutex
		rep ChurnReport
		// at most a few failures are described, the rest only counted
		described int
	)
	fail := func(i int, what string, res sandbox.Result, err error) {
		mu.Lock()
		defer mu.Unlock()
		if described < 5 {
			described++
			t.Errorf("run %d: %s: err %v (%s)", i, what, err, describe(res))
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				spec := sandbox.PythonSpec(env, []byte(churnProgram))
				spec.Limits.Wall = 30 * time.Second
				res, err := r.Run(t.Context(), spec)
				want := "ok /job/main.py\n"
				var kind *int
				var what string
				switch {
				case err != nil || res.InfraError != "":
					kind, what = &rep.InfraErrors, "infrastructure error"
				case res.ExitCode != 0 || res.Signal != "":
					kind, what = &rep.Killed, "killed or failed"
				case string(res.Stdout) != want:
					kind, what = &rep.WrongOutput, fmt.Sprintf("stdout %q, want %q", res.Stdout, want)
				}
				mu.Lock()
				rep.Runs++
				if kind != nil {
					*kind++
				}
				mu.Unlock()
				if kind != nil {
					fail(i, what, res, err)
				}
			}
		})
	}
	for i := range n {
		if t.Context().Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	rep.ThreadsEnded = ended.Load()
	t.Logf("%d runs beside %d ended OS threads: %d killed, %d infrastructure errors, %d wrong output",
		rep.Runs, rep.ThreadsEnded, rep.Killed, rep.InfraErrors, rep.WrongOutput)
	if rep.Killed+rep.InfraErrors+rep.WrongOutput > 0 {
		t.Errorf("%d of %d runs killed, %d infrastructure errors, %d wrong output; want 0 of each",
			rep.Killed, rep.Runs, rep.InfraErrors, rep.WrongOutput)
	}
	return rep
}
