package construct

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// Outcomes of the old-environment check, Task.OldEnvCheck (docs/protocol.md §7
// Stage 3: "every task must exercise the change").
const (
	OldEnvFails  = "fails"  // the reference or an assertion fails in the old release: the task exercises the change
	OldEnvPasses = "passes" // it passes there too: the task does not
	OldEnvError  = "error"  // undecided: a limit was hit, or the control run in the new release failed
	// OldEnvFailsElsewhere: the old run fails because a module or name
	// the script uses does not exist in the old release (see
	// [FailsElsewhere]), before or instead of the call's signature
	// mattering; the run says nothing about the change, so
	// Task.ExercisesChange keeps the static rule, as for OldEnvError.
	OldEnvFailsElsewhere = "fails_elsewhere"
)

// Python's messages for a module or a name that does not exist, as the
// last line of a traceback ("AttributeError: module 'numpy' has no
// attribute 'strings'. Did you mean: 'string_'?").
var (
	missingModule = regexp.MustCompile(`^(?:ModuleNotFoundError|ImportError): No module named '([^']+)'`)
	missingImport = regexp.MustCompile(`^ImportError: cannot import name '([^']+)'`)
	missingAttr   = regexp.MustCompile(`^AttributeError: (?:module|type object) '[^']+' has no attribute '([^']+)'`)
)

// FailsElsewhere reports whether errLine, the last line of a Python
// traceback (Task.OldEnvError), says that a module or a module's or
// class's attribute does not exist (ModuleNotFoundError, ImportError
// "cannot import name", AttributeError "module 'numpy' has no attribute
// 'strings'" or "type object 'Series' has no attribute 'case_when'")
// under a name that is none of changed, the call's changed parameters. A
// task failing so in the old release fails because the API or something
// it uses moved or is new there, not because of the signature change
// (docs/protocol.md §7 Stage 3: "every task must exercise the change"). name is
// the missing name ("numpy.strings", "strings").
//
// Every other failure counts as exercising: a TypeError ("unexpected
// keyword argument 'axis'"), a failed assertion, and an AttributeError
// on an instance ("'tuple' object has no attribute 'statistic'"), which
// usually means the call returned something else in the old release.
func FailsElsewhere(errLine string, changed []string) (name string, ok bool) {
	for _, re := range []*regexp.Regexp{missingModule, missingImport, missingAttr} {
		m := re.FindStringSubmatch(errLine)
		if m == nil {
			continue
		}
		name = m[1]
		leaf := name[strings.LastIndexByte(name, '.')+1:]
		if slices.Contains(changed, name) || slices.Contains(changed, leaf) {
			return "", false
		}
		return name, true
	}
	return "", false
}

// checkOldEnv runs each task's reference solution followed by the
// assertions of its execution_test (the monitor check block left out: it
// needs the harness's spy) as a plain script in cfg.OldEnv and, as a
// control, in cfg.Env, and records the outcome on the task
// (Task.OldEnvCheck, Task.OldEnvError, Task.ExercisesChange; see
// BuildConfig.OldEnv), counting outcomes into counts. OldEnvFails and
// OldEnvPasses set ExercisesChange; OldEnvFailsElsewhere and OldEnvError
// leave the static rule's value. The error is non-nil
// only when the sandbox failed or ctx ended.
func checkOldEnv(ctx context.Context, cfg BuildConfig, tasks []*pool.Task, counts map[string]int) error {
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
			if outcome == OldEnvFails {
				if _, ok := FailsElsewhere(detail, t.ChangedParams); ok {
					outcome = OldEnvFailsElsewhere
				}
			}
			t.OldEnvCheck, t.OldEnvError = outcome, detail
			if outcome == OldEnvFails || outcome == OldEnvPasses {
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

func oldEnvOne(ctx context.Context, cfg BuildConfig, t *pool.Task) (outcome, detail string, err error) {
	test := t.TestHarness.ExecutionTest
	if _, after, ok := strings.Cut(test, pool.EndCheckMarker); ok {
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
