package construct

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/stamp"
	"github.com/novelapi/novelapi/pool"
)

// A PoolConfig configures [BuildPool]. BuildPool never modifies it.
type PoolConfig struct {
	// Out is the tasks.jsonl to write; expected_calls.jsonl, filters/ and
	// instances/ go beside it. Required.
	Out string
	// BundlesPath is the bundles file Build.Bundles (or LLM.Bundles) were
	// read from; its digest is recorded in the pool's stamp, so that a
	// pool built from other bundles is rebuilt. Required.
	BundlesPath string
	// Build configures the offline generator (Stage 3 from executed
	// examples). It is used when LLM is nil.
	Build BuildConfig
	// LLM, when set, selects the LLM generator instead, with Model the
	// generating model's name as recorded in the stamp.
	LLM   *LLMConfig
	Model string
	// ProtocolOnly builds tasks only for the bundles the published
	// protocol lists (provenance.extension empty: no methods of classes,
	// no APIs without Python source; docs/protocol.md §7); recorded in the
	// stamp's options.
	ProtocolOnly bool
	// Rebuild builds the pool even when its stamp allows reuse.
	Rebuild bool
	// C1, when set, records the reference call records and runs the C1
	// filter (Stage 4) beside Out; nil skips both. Its Dir is set to Out's
	// directory.
	C1 *C1Config
	// Log receives why a pool is rebuilt; nil means slog.Default().
	Log *slog.Logger
}

// A PoolResult is what [BuildPool] did.
type PoolResult struct {
	Tasks []*pool.Task
	Build BuildSummary // Reused set when the pool was reused
	// Why says why the pool was built ("" when it was reused).
	Why string
	C1  *C1Summary // nil when C1 was skipped
}

// TaskRules versions the rules by which tasks are built from bundles
// (context, masked region, assertions, the exercise rule of
// [Change.Exercised] and the old-environment classification): a pool
// stamped with other rules is rebuilt.
const TaskRules = 5

// Options returns the options a pool built by cfg is stamped with.
func (cfg PoolConfig) Options() PoolOptions {
	if cfg.LLM == nil {
		o := cfg.Build.PoolOptions()
		o.ProtocolOnly = cfg.ProtocolOnly
		return o
	}
	o := PoolOptions{Generator: "llm", Model: cfg.Model, ProtocolOnly: cfg.ProtocolOnly}
	if cfg.LLM.Env != nil {
		o.Env = cfg.LLM.Env.Name
	}
	return o
}

// ProtocolBundles returns the bundles of bs that the published protocol
// lists: those whose provenance marks no extension (docs/protocol.md §7).
func ProtocolBundles(bs []bundles.Bundle) []bundles.Bundle {
	var out []bundles.Bundle
	for _, b := range bs {
		if b.Provenance == nil || b.Provenance.Extension == "" {
			out = append(out, b)
		}
	}
	return out
}

// Stamp returns the stamp a pool built by cfg carries: stage "tasks",
// [TaskRules], [PoolConfig.Options] and the digest of BundlesPath.
func (cfg PoolConfig) Stamp() (stamp.Stamp, error) {
	s, err := stamp.New("tasks", TaskRules, cfg.Options())
	if err != nil {
		return s, err
	}
	return s.WithFile("bundles", cfg.BundlesPath)
}

// BuildPool is Stages 3–4 of one task pool: it reuses the pool at cfg.Out
// when its stamp equals cfg.Stamp() (same rules, options and bundles) and
// cfg.Rebuild is false; otherwise it builds the tasks with the configured
// generator and writes them and their stamp atomically. Then, with cfg.C1,
// it records the reference call records and runs C1, resuming what an
// earlier run wrote.
func BuildPool(ctx context.Context, cfg PoolConfig) (*PoolResult, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	want, err := cfg.Stamp()
	if err != nil {
		return nil, err
	}
	if cfg.ProtocolOnly {
		cfg.Build.Bundles = ProtocolBundles(cfg.Build.Bundles)
		if cfg.LLM != nil {
			llm := *cfg.LLM
			llm.Bundles = ProtocolBundles(llm.Bundles)
			cfg.LLM = &llm
		}
	}
	res := &PoolResult{Why: "--rebuild"}
	if !cfg.Rebuild {
		res.Why = stamp.Stale(cfg.Out, want)
	}
	if res.Why == "" {
		if res.Tasks, err = pool.LoadTasks(cfg.Out, pool.LoadOptions{}); err != nil {
			return nil, err
		}
		n := len(cfg.Build.Bundles)
		if cfg.LLM != nil {
			n = len(cfg.LLM.Bundles)
		}
		res.Build = BuildSummary{APIs: n, Tasks: len(res.Tasks), Reused: true}
		log.Info("reusing tasks", "tasks", len(res.Tasks), "file", cfg.Out)
	} else {
		if _, err := os.Stat(cfg.Out); err == nil {
			log.Info("rebuilding tasks", "file", cfg.Out, "why", res.Why)
		}
		if cfg.LLM != nil {
			res.Tasks, res.Build, err = GenerateTasks(ctx, *cfg.LLM)
		} else {
			res.Tasks, res.Build, err = BuildTasks(ctx, cfg.Build)
		}
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(cfg.Out), 0o755); err != nil {
			return nil, err
		}
		if err := pool.WriteTasks(cfg.Out, res.Tasks); err != nil {
			return nil, err
		}
		if err := stamp.Write(cfg.Out, want); err != nil {
			return nil, fmt.Errorf("stamp %s: %w", cfg.Out, err)
		}
	}
	if cfg.C1 != nil {
		c1cfg := *cfg.C1
		c1cfg.Dir = filepath.Dir(cfg.Out)
		c1, err := RecordAndFilterC1(ctx, res.Tasks, c1cfg)
		if err != nil {
			return nil, fmt.Errorf("C1: %w", err)
		}
		res.C1 = &c1
	}
	return res, nil
}

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
	// ProtocolOnly: see [PoolConfig.ProtocolOnly].
	ProtocolOnly bool `json:"protocol_only,omitempty"`
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
