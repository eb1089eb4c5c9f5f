package construct

import "fmt"

// PoolOptions are the options a task pool was built with, recorded in its
// stamp ([PoolConfig.Stamp]) so that a rerun reuses the pool only when they
// are unchanged.
type PoolOptions struct {
	Generator   string `json:"generator"`    // "offline" or "llm"
	Model       string `json:"model"`        // the llm generator's model
	Env         string `json:"env"`          // new-release environment
	OldEnv      string `json:"old_env"`      // BuildConfig.OldEnv's name; "" for none
	MaxExamples int    `json:"max_examples"` // BuildConfig.MaxExamples after defaults
	Medium      bool   `json:"medium"`
	ChangeOnly  bool   `json:"change_only"`
	// Tests says how the tests were made and checked (see [TestsOption]);
	// "" for pools built before value assertions and the mutant check.
	Tests string `json:"tests,omitempty"`
}

// TestRules versions the assertions the offline builder writes (value
// assertions with tolerances, docs/mutants.md §4) and the mutant check
// it runs; recorded in PoolOptions.Tests.
const TestRules = 1

// TestsOption returns PoolOptions.Tests for a build that runs the mutant
// check (unless skip) and drops weak tasks (unless keepWeak):
// "values/1+mutants", "values/1+mutants,keep-weak" or "values/1".
func TestsOption(skip, keepWeak bool) string {
	s := fmt.Sprintf("values/%d", TestRules)
	switch {
	case skip:
	case keepWeak:
		s += "+mutants,keep-weak"
	default:
		s += "+mutants"
	}
	return s
}

// DefaultMaxExamples is BuildConfig.MaxExamples when it is 0.
const DefaultMaxExamples = 2

// PoolOptions returns the options of the offline build cfg describes, as
// recorded beside its pool (defaults applied).
func (cfg BuildConfig) PoolOptions() PoolOptions {
	o := PoolOptions{Generator: "offline", MaxExamples: cfg.MaxExamples, Medium: cfg.Medium,
		ChangeOnly: cfg.ChangeOnly, Tests: TestsOption(cfg.SkipMutantCheck, cfg.KeepWeak)}
	if o.MaxExamples <= 0 {
		o.MaxExamples = DefaultMaxExamples
	}
	if cfg.Env != nil {
		o.Env = cfg.Env.Name
	}
	if cfg.OldEnv != nil {
		o.OldEnv = cfg.OldEnv.Name
	}
	return o
}
