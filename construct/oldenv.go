package construct

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/sandbox"
)

// Outcomes of the old-environment check, Task.OldEnvCheck.
const (
	OldEnvFails  = "fails"  // the reference or an assertion fails in the old release: the task exercises the change
	OldEnvPasses = "passes" // it passes there too: the task does not
	OldEnvError  = "error"  // undecided: a limit was hit, or the control run in the new release failed
)

// checkOldEnv runs each task's reference solution followed by the
// assertions of its execution_test (the monitor check block left out: it
// needs the harness's spy) as a plain script in cfg.OldEnv and, as a
// control, in cfg.Env, and records the outcome on the task
// (Task.OldEnvCheck, Task.OldEnvError, Task.ExercisesChange; see
// BuildConfig.OldEnv), counting outcomes into counts. The error is non-nil
// only when the sandbox failed or ctx ended.
func checkOldEnv(ctx context.Context, cfg BuildConfig, tasks []*evalharness.Task, counts map[string]int) error {
	var (
		mu sync.Mutex
		g  errgroup.Group
	)
	g.SetLimit(max(1, cfg.Workers/2)) // two runs per task
	for _, t := range tasks {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			outcome, detail, err := oldEnvOne(ctx, cfg, t)
			if err != nil {
				return fmt.Errorf("old-environment check of %s (%s): %w", t.TaskID, t.APIName, err)
			}
			mu.Lock()
			defer mu.Unlock()
			t.OldEnvCheck, t.OldEnvError = outcome, detail
			if outcome != OldEnvError {
				yes := outcome == OldEnvFails
				t.ExercisesChange = &yes
			}
			counts[outcome]++
			return nil
		})
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

func oldEnvOne(ctx context.Context, cfg BuildConfig, t *evalharness.Task) (outcome, detail string, err error) {
	test := t.TestHarness.ExecutionTest
	if _, after, ok := strings.Cut(test, evalharness.EndCheckMarker); ok {
		test = after
	}
	script := []byte(t.ReferenceSolution + "\n" + test + "\n")
	run := func(env *sandbox.Environment) (sandbox.Result, error) {
		return cfg.Runner.Run(ctx, sandbox.Spec{
			Environment: env,
			Files:       []sandbox.File{{Path: "main.py", Data: script}},
			Limits:      sandbox.Limits{Wall: t.Timeout(), Memory: 2 << 30},
		})
	}
	var runs [2]sandbox.Result
	var g errgroup.Group
	for i, env := range []*sandbox.Environment{cfg.Env, cfg.OldEnv} {
		g.Go(func() (err error) {
			runs[i], err = run(env)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return "", "", err
	}
	cur, old := runs[0], runs[1]
	switch {
	case undecided(cur) != "":
		return OldEnvError, "new environment: " + undecided(cur), nil
	case cur.ExitCode != 0:
		return OldEnvError, "reference fails in the new environment: " + lastLine(string(cur.Stderr)), nil
	case undecided(old) != "":
		return OldEnvError, undecided(old), nil
	case old.ExitCode != 0:
		return OldEnvFails, lastLine(string(old.Stderr)), nil
	}
	return OldEnvPasses, "", nil
}

// undecided says why a run's exit status says nothing about the script
// ("timed out", "memory limit"); "" when it does.
func undecided(r sandbox.Result) string {
	switch {
	case r.InfraError != "":
		return "sandbox: " + r.InfraError
	case r.TimedOut:
		return "timed out"
	case r.OOMKilled:
		return "memory limit"
	case r.OutputLimitHit:
		return "output limit"
	case r.PIDLimitHit || r.LimitHit != "":
		return "resource limit " + r.LimitHit
	case r.Signal != "":
		return "killed by " + r.Signal
	}
	return ""
}
