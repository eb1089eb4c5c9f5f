package construct

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/atomicfile"
)

// PoolOptions are the options a task pool was built with, recorded in a
// sidecar file beside it (see [OptionsPath]) so that a rerun reuses the
// pool only when they are unchanged: `novelapi tasks build` and
// `novelapi up` compare them besides the files' times.
type PoolOptions struct {
	Generator   string `json:"generator"`    // "offline" or "llm"
	Model       string `json:"model"`        // the llm generator's model
	Env         string `json:"env"`          // new-release environment
	OldEnv      string `json:"old_env"`      // BuildConfig.OldEnv's name; "" for none
	MaxExamples int    `json:"max_examples"` // BuildConfig.MaxExamples after defaults
	Medium      bool   `json:"medium"`
	ChangeOnly  bool   `json:"change_only"`
	// Rule versions the exercise rule (Change.Exercised); a pool built
	// under another rule is rebuilt.
	Rule int `json:"rule"`
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

// ExerciseRule is the version of [Change.Exercised] and of the
// old-environment classification ([FailsElsewhere]) recorded in
// PoolOptions.Rule; its history is in docs/changelog.md.
const ExerciseRule = 3

// DefaultMaxExamples is BuildConfig.MaxExamples when it is 0.
const DefaultMaxExamples = 2

// PoolOptions returns the options of the offline build cfg describes, as
// recorded beside its pool (defaults applied).
func (cfg BuildConfig) PoolOptions() PoolOptions {
	o := PoolOptions{Generator: "offline", MaxExamples: cfg.MaxExamples, Medium: cfg.Medium,
		ChangeOnly: cfg.ChangeOnly, Rule: ExerciseRule, Tests: TestsOption(cfg.SkipMutantCheck, cfg.KeepWeak)}
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

// OptionsPath returns the sidecar of the task pool at tasks:
// "tasks.jsonl" → "tasks.jsonl.options.json".
func OptionsPath(tasks string) string { return tasks + ".options.json" }

// WriteOptions records o beside the task pool at tasks, atomically.
func WriteOptions(tasks string, o PoolOptions) error {
	return atomicfile.WriteJSON(OptionsPath(tasks), o)
}

// ReadOptions reads the options recorded beside the task pool at tasks;
// the error wraps fs.ErrNotExist when there are none.
func ReadOptions(tasks string) (PoolOptions, error) {
	var o PoolOptions
	data, err := os.ReadFile(OptionsPath(tasks))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return o, fmt.Errorf("%s: %w", OptionsPath(tasks), err)
	}
	return o, nil
}

// OptionsDiffer says why a pool at tasks built with the recorded options
// must be rebuilt for want ("change_only false → true"); "" when the
// recorded options equal want.
func OptionsDiffer(tasks string, want PoolOptions) string {
	got, err := ReadOptions(tasks)
	if err != nil {
		if os.IsNotExist(err) {
			return "no recorded build options (" + OptionsPath(tasks) + ")"
		}
		return err.Error()
	}
	if got == want {
		return ""
	}
	var a, b map[string]any
	ja, _ := json.Marshal(got)
	jb, _ := json.Marshal(want)
	json.Unmarshal(ja, &a)
	json.Unmarshal(jb, &b)
	var diffs []string
	for k, v := range b {
		x, _ := json.Marshal(a[k])
		y, _ := json.Marshal(v)
		if string(x) != string(y) {
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", k, x, y))
		}
	}
	if len(diffs) == 0 {
		return "build options changed"
	}
	slices.Sort(diffs)
	return "build options changed: " + strings.Join(diffs, ", ")
}
