package evalharness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/novelapi/novelapi/pool"
)

// An OpenConfig names a task pool on disk for [OpenPool].
type OpenConfig struct {
	// Tasks is the tasks.jsonl file (docs/protocol.md §1.3); required.
	Tasks string
	// Expected is the expected_calls.jsonl file (§1.4); "" means
	// expected_calls.jsonl beside Tasks when there is one, else none.
	Expected string
	// Load controls how the tasks are read and validated.
	Load pool.LoadOptions
}

// A Pool is a task pool opened for evaluation: its tasks and the reference
// call records found for them.
type Pool struct {
	Tasks    []*pool.Task
	Expected map[string]*pool.ExpectedCalls // nil when no records file was found
	// TasksPath and ExpectedPath are the files read ("" for none).
	TasksPath, ExpectedPath string
}

// OpenPool reads the pool cfg names. Errors name the file and line of a
// malformed record.
func OpenPool(cfg OpenConfig) (*Pool, error) {
	tasks, err := pool.LoadTasks(cfg.Tasks, cfg.Load)
	if err != nil {
		return nil, err
	}
	p := &Pool{Tasks: tasks, TasksPath: cfg.Tasks, ExpectedPath: cfg.Expected}
	if p.ExpectedPath == "" {
		beside := filepath.Join(filepath.Dir(cfg.Tasks), "expected_calls.jsonl")
		if _, err := os.Stat(beside); err == nil {
			p.ExpectedPath = beside
		}
	}
	if p.ExpectedPath != "" {
		if p.Expected, err = pool.LoadExpectedCalls(p.ExpectedPath); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// CheckExpected is [CheckExpected] over the pool's records for the given
// tasks (the pool's, or a selection of them) and predictions; its
// *MissingExpectedError says where the records were looked for.
func (p *Pool) CheckExpected(tasks []*pool.Task, preds []*pool.Prediction) error {
	err := CheckExpected(tasks, preds, p.Expected)
	if me, ok := errors.AsType[*MissingExpectedError](err); ok {
		me.Where = "no expected_calls.jsonl beside " + p.TasksPath
		if p.ExpectedPath != "" {
			me.Where = p.ExpectedPath + " lacks them"
		}
	}
	return err
}

// Message is the error text without the package prefix.
func (e *MissingExpectedError) Message() string {
	msg := fmt.Sprintf("no expected call records for %d tasks (", len(e.Tasks))
	if e.Where != "" {
		msg += e.Where + "; "
	}
	return msg + "e.g. " + abbrev(e.Tasks, 5) + ")"
}

// An EvaluateConfig configures [Pool.Evaluate].
type EvaluateConfig struct {
	// Run configures the run of the predictions. Its Tasks default to the
	// pool's (set them to evaluate a selection), Expected and TasksPath are
	// the pool's.
	Run RunConfig
	// Harness runs the test check, and the run when Run.Harness is nil;
	// required.
	Harness *Harness
	// NoTestCheck skips the check of the tests against mutants.
	NoTestCheck bool
	// TestCheck, when non-nil, receives the outcome of the test check
	// before the run starts, so that flagged tests are shown before any
	// score (docs/mutants.md §3).
	TestCheck func(*PoolCheck)
}

// Evaluate is an evaluation of predictions on the pool, as 'eval run' and
// the MCP evaluate tool make it: every predicted task must have its
// reference call records ([Pool.CheckExpected]: a *MissingExpectedError
// otherwise), the tests of the predicted tasks are checked against mutants
// with the check file beside the pool (an unchanged task is checked once;
// skipped with NoTestCheck, giving a nil *PoolCheck), then [Run] evaluates
// the predictions with Run's Workers, Progress and Log used by both steps.
func (p *Pool) Evaluate(ctx context.Context, cfg EvaluateConfig) (*PoolCheck, Summary, error) {
	rc := cfg.Run
	if rc.Tasks == nil {
		rc.Tasks = p.Tasks
	}
	rc.Expected, rc.TasksPath = p.Expected, p.TasksPath
	if cfg.Harness == nil {
		return nil, Summary{}, errors.New("evaluate: no harness")
	}
	if rc.Harness == nil {
		rc.Harness = cfg.Harness
	}
	if err := p.CheckExpected(rc.Tasks, rc.Predictions); err != nil {
		return nil, Summary{}, err
	}
	var pc *PoolCheck
	if !cfg.NoTestCheck {
		var err error
		pc, err = CheckPool(ctx, PoolCheckConfig{
			Harness: cfg.Harness, Tasks: PredictedTasks(rc.Tasks, rc.Predictions, rc.Shard), Expected: p.Expected,
			Path: CheckPath(p.TasksPath), Workers: rc.Workers, Progress: rc.Progress, Log: rc.Log,
		})
		if err != nil {
			return nil, Summary{}, err
		}
		if cfg.TestCheck != nil {
			cfg.TestCheck(pc)
		}
	}
	s, err := Run(ctx, rc)
	return pc, s, err
}
