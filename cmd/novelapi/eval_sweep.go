package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/generate"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

type evalSweepConfig struct {
	ep                                       endpointFlags
	tasks, bundles, index, expected, out     string
	instance, conditions, knowledge, backend string
	samples, maxTokens, genWorkers, workers  int
	temperature                              float64
	k                                        int
	sameLib, json                            bool
}

func newEvalSweepCmd(g *globals) *cobra.Command {
	var cfg evalSweepConfig
	cmd := &cobra.Command{
		Use:   "sweep --tasks T --bundles B --index DIR --conditions none,S,S+E,Full --knowledge oracle,hybrid --endpoint URL --model M --out DIR",
		Short: "Generate and evaluate every condition x knowledge source and write one comparison report",
		Long: `Runs 'novelapi generate' and 'novelapi eval run' for each knowledge source and condition into
DIR/<knowledge>/<condition>/ (predictions.jsonl, results.jsonl, summary.json, eval_meta.json) and
writes DIR/report.md and DIR/report.html: pass@1 per condition, oracle vs retrieved (the paper's
main table). The none condition is generated once and shared. Every step resumes: rerun the same
command after an interruption.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvalSweep(cmd, g, cfg)
		},
	}
	cfg.ep.register(cmd)
	f := cmd.Flags()
	f.StringVar(&cfg.tasks, "tasks", "", "tasks.jsonl (docs/protocol.md §1.3)")
	f.StringVar(&cfg.instance, "instance", "", "instance file (task ids, one per line) selecting the tasks")
	f.StringVar(&cfg.expected, "expected", "", "expected_calls.jsonl (default: beside --tasks)")
	f.StringVar(&cfg.bundles, "bundles", "", "bundles.jsonl for the oracle source")
	f.StringVar(&cfg.index, "index", "", "index directory for the hybrid and paper sources")
	f.StringVar(&cfg.conditions, "conditions", "none,S,S+E,Full", "comma-separated knowledge conditions")
	f.StringVar(&cfg.knowledge, "knowledge", "oracle,hybrid", "comma-separated knowledge sources: oracle, hybrid, paper")
	f.StringVar(&cfg.out, "out", "", "sweep directory to write (resumed if it exists)")
	f.IntVar(&cfg.samples, "samples", 1, "samples per task")
	f.Float64Var(&cfg.temperature, "temperature", 0, "sampling temperature (0 = greedy)")
	f.IntVar(&cfg.maxTokens, "max-tokens", generate.DefaultMaxTokens, "max new tokens per sample")
	f.IntVar(&cfg.genWorkers, "gen-workers", 0, "concurrent requests (0 = 2 x cores)")
	f.IntVar(&cfg.workers, "workers", 0, "tasks evaluated at once (0 = number of CPUs)")
	f.IntVar(&cfg.k, "k", 0, "retrieved APIs (hybrid, default 3) or chunks (paper, default 5)")
	f.BoolVar(&cfg.sameLib, "same-library", false, "retrieve only from the task's library")
	f.StringVar(&cfg.backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.BoolVar(&cfg.json, "json", false, "print the sweep summary as JSON")
	for _, name := range []string{"tasks", "out"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runEvalSweep(cmd *cobra.Command, g *globals, cfg evalSweepConfig) error {
	ctx := cmd.Context()
	var conds []bundles.Condition
	for _, s := range splitList(cfg.conditions) {
		c, err := bundles.ParseCondition(s)
		if err != nil {
			return usagef("eval sweep: --conditions: %v", err)
		}
		conds = append(conds, c)
	}
	knowledge := splitList(cfg.knowledge)
	if len(conds) == 0 || len(knowledge) == 0 {
		return usagef("eval sweep: --conditions and --knowledge must name at least one each")
	}
	client, err := cfg.ep.client()
	if err != nil {
		return err
	}
	tasks, err := pool.LoadTasks(cfg.tasks, pool.LoadOptions{})
	if err != nil {
		return err
	}
	if cfg.instance != "" {
		if tasks, err = selectInstance(tasks, cfg.instance); err != nil {
			return err
		}
	}
	expectedPath := cfg.expected
	if expectedPath == "" {
		expectedPath = filepath.Join(filepath.Dir(cfg.tasks), "expected_calls.jsonl")
		if _, err := os.Stat(expectedPath); err != nil {
			expectedPath = ""
		}
	}
	var expected map[string]*pool.ExpectedCalls
	if expectedPath != "" {
		if expected, err = pool.LoadExpectedCalls(expectedPath); err != nil {
			return err
		}
	}
	var sources []generate.KnowledgeSource
	for _, k := range knowledge {
		switch k {
		case generate.SourceOracle:
			if cfg.bundles == "" {
				return usagef("eval sweep: --knowledge oracle needs --bundles FILE")
			}
			bs, _, err := bundles.ReadBundles(cfg.bundles, jsonl.ReadOptions{})
			if err != nil {
				return err
			}
			sources = append(sources, generate.NewOracle(bs))
		case generate.SourceHybrid, generate.SourcePaper:
			if cfg.index == "" {
				return usagef("eval sweep: --knowledge %s needs --index DIR", k)
			}
			ix, err := index.Open(cfg.index, index.OpenOptions{})
			if err != nil {
				return err
			}
			defer ix.Close()
			sources = append(sources, &generate.Retrieved{Index: ix, Retriever: index.Retriever(k), K: cfg.k, SameLibrary: cfg.sameLib})
		default:
			return usagef("eval sweep: unknown --knowledge %q (valid: oracle, hybrid, paper; use the none condition for no knowledge)", k)
		}
	}
	runner, err := newRunner(ctx, g, cfg.backend)
	if err != nil {
		return err
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(g.home), Log: g.log})
	if err != nil {
		return err
	}
	sum, err := generate.Sweep(ctx, generate.SweepConfig{
		Tasks: tasks, Expected: expected, Conditions: conds, Sources: sources, Client: client, Harness: h,
		Out: cfg.out, Samples: cfg.samples, Temperature: cfg.temperature, MaxTokens: cfg.maxTokens,
		GenWorkers: cfg.genWorkers, EvalWorkers: cfg.workers, Backend: runner.Name(),
		Progress: progressWriter(g), Log: g.log,
	})
	if cfg.json {
		if werr := writeJSONResult(g.stdout, sum, err); werr != nil && err == nil {
			err = werr
		}
		return err
	}
	fmt.Fprintf(g.stdout, "%-10s %-8s %6s %8s %8s\n", "knowledge", "condition", "tasks", "pass@1", "exec@1")
	for _, c := range sum.Cells {
		fmt.Fprintf(g.stdout, "%-10s %-8s %6d %7.1f%% %7.1f%%\n", c.Source, c.Condition, c.Eval.N, 100*c.Eval.PassAt1, 100*c.Eval.ExecAt1)
	}
	if sum.ReportMD != "" {
		fmt.Fprintln(g.stdout, sum.ReportMD)
		fmt.Fprintln(g.stdout, sum.ReportHTML)
	}
	return err
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// selectInstance keeps the tasks listed in an instance file, in its order.
func selectInstance(tasks []*pool.Task, path string) ([]*pool.Task, error) {
	ids, err := pool.LoadInstance(path)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*pool.Task, len(tasks))
	for _, t := range tasks {
		byID[t.TaskID] = t
	}
	out := make([]*pool.Task, 0, len(ids))
	for i, id := range ids {
		t, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%s:%d: task %q is not in the tasks file", path, i+1, id)
		}
		out = append(out, t)
	}
	return out, nil
}
