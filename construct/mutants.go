package construct

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/stamp"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// A MutantSummary reports the mutant check of a built pool
// (docs/mutants.md): of the tasks built, how many tests accepted a wrong
// answer and were dropped; of the tasks kept, how many have a value
// assertion and how many tests reject every mutant.
type MutantSummary struct {
	Checked int `json:"checked"` // tasks built and checked
	// ByStatus counts the checked tasks by evalharness.TaskCheck status.
	ByStatus map[string]int `json:"by_status"`
	// Survived counts the weak tasks by the kind of a surviving mutant.
	Survived map[string]int `json:"survived,omitempty"`
	// Dropped counts the weak tasks removed from the pool (none with
	// BuildConfig.KeepWeak).
	Dropped int `json:"dropped"`
	// Kept counts the tasks left; ValueAsserting and Discriminating count
	// those of them whose test has a value assertion and whose test rejects
	// every mutant.
	Kept           int `json:"kept"`
	ValueAsserting int `json:"value_asserting"`
	Discriminating int `json:"discriminating"`
	// ValueShare and DiscriminatingShare are ValueAsserting and
	// Discriminating over Kept (0 for an empty pool).
	ValueShare          float64 `json:"value_assertion_share"`
	DiscriminatingShare float64 `json:"discriminating_share"`
	// Path is the check file the outcomes were recorded in; "" for none.
	Path string `json:"path,omitempty"`
}

// checkMutants runs the mutant check of the built tasks in cfg.Env
// (docs/mutants.md §1), records it in cfg.CheckPath, and drops the tasks
// whose test lets a mutant pass unless cfg.KeepWeak. A task whose check
// did not finish or whose reference failed the check is kept: C1 decides
// about the reference.
func checkMutants(ctx context.Context, cfg BuildConfig, tasks []*pool.Task) ([]*pool.Task, *MutantSummary, error) {
	h, err := evalharness.New(evalharness.Config{
		Runner: cfg.Runner, Log: cfg.Log,
		Envs: func(string) (*sandbox.Environment, error) { return cfg.Env, nil },
	})
	if err != nil {
		return nil, nil, err
	}
	pc, err := evalharness.CheckPool(ctx, evalharness.PoolCheckConfig{
		Harness: h, Tasks: tasks, Path: cfg.CheckPath, Workers: cfg.Workers, Progress: cfg.Progress, Log: cfg.Log,
	})
	if err != nil {
		return nil, nil, err
	}
	sum := &MutantSummary{Checked: pc.Tasks, ByStatus: pc.ByStatus, Survived: pc.Survived, Path: cfg.CheckPath}
	kept := slices.DeleteFunc(slices.Clone(tasks), func(t *pool.Task) bool {
		if pc.Checks[t.TaskID].Status != evalharness.CheckWeak || cfg.KeepWeak {
			return false
		}
		sum.Dropped++
		return true
	})
	sum.count(kept, pc.Checks)
	return kept, sum, nil
}

func (s *MutantSummary) count(kept []*pool.Task, checks map[string]*evalharness.TaskCheck) {
	s.Kept = len(kept)
	for _, t := range kept {
		c := checks[t.TaskID]
		if c == nil {
			continue
		}
		if c.ValueAssertions > 0 {
			s.ValueAsserting++
		}
		if c.Status == evalharness.CheckDiscriminates {
			s.Discriminating++
		}
	}
	if s.Kept > 0 {
		s.ValueShare = float64(s.ValueAsserting) / float64(s.Kept)
		s.DiscriminatingShare = float64(s.Discriminating) / float64(s.Kept)
	}
}

// C1References returns the full-harness verdicts on the references that
// C1 recorded in dir (filters/c1.jsonl), with the call records they were
// judged with (expected_calls.jsonl), by task id, for
// evalharness.PoolCheckConfig.References, each with the harness digest its
// stamp records ("" without one). Missing files give an empty map.
func C1References(dir string) map[string]evalharness.Reference {
	out := map[string]evalharness.Reference{}
	c1Path := filepath.Join(dir, "filters", "c1.jsonl")
	exp, _ := pool.LoadExpectedCalls(filepath.Join(dir, "expected_calls.jsonl"))
	recs, _, err := jsonl.Read[C1Record](c1Path, jsonl.ReadOptions{SkipBad: true})
	if err != nil {
		return out
	}
	st, _ := stamp.Read(c1Path)
	for _, r := range recs {
		ref := evalharness.Reference{Passed: r.Passed, Calls: exp[r.TaskID], Harness: st.Inputs["harness"]}
		if r.Error != nil {
			ref.Error = *r.Error
		}
		out[r.TaskID] = ref
	}
	return out
}
