package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

func newEvalCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate predictions in sandboxes, merge shards and write reports",
	}
	cmd.AddCommand(newEvalRunCmd(g), newEvalMergeCmd(g), newEvalReportCmd(g), newEvalRetrievalCmd(g), newEvalSweepCmd(g))
	return cmd
}

// evalRunConfig holds the flags of `novelapi eval run`.
type evalRunConfig struct {
	tasks, predictions, expected, out string
	workers, samples                  int
	backend, shard, condition, source string
	noLabels, rescore, skipInvalid    bool
	allowCustomSetup, json            bool
	noTestCheck                       bool
	taxonomy, judgeEndpoint           string
	judgeModel                        string
}

// judgeName is the judge recorded in eval_meta.json: its model at its
// endpoint, or "" without a judge.
func (c evalRunConfig) judgeName() string {
	if c.judgeEndpoint == "" {
		return ""
	}
	return c.judgeModel + "@" + c.judgeEndpoint
}

func newEvalRunCmd(g *globals) *cobra.Command {
	var cfg evalRunConfig
	cmd := &cobra.Command{
		Use:   "run --tasks T --predictions P --out DIR",
		Short: "Evaluate predictions.jsonl against tasks.jsonl; writes results.jsonl, summary.json, eval_meta.json (resumable)",
		Long: `Evaluate every prediction (samples[0] greedy; all samples for pass@k) in the sandbox of its
task's library and write DIR/results.jsonl (appended and fsynced per task), DIR/summary.json and
DIR/eval_meta.json in the NovelAPIBench formats. Rerunning into DIR resumes without duplicates.

--shard i/n evaluates the predictions whose 0-based index is i modulo n; --shard auto takes i from
JOB_COMPLETION_INDEX (Kubernetes indexed job) or SLURM_ARRAY_TASK_ID (minus SLURM_ARRAY_TASK_MIN)
and n from auto/N, NOVELAPI_SHARDS or SLURM_ARRAY_TASK_COUNT. "{shard}" in --out is replaced by i.
Join shards with 'novelapi eval merge'. See docs/scaling.md.

Before scoring, each evaluated task is checked (docs/mutants.md): its reference must pass through
the full harness and its test must reject a fixed set of wrong answers (the output times zero, a
constant, a sibling API, a dropped argument, a changed input). Tasks that fail are listed with the
mutant that survived; the outcomes are kept in mutant_check.jsonl beside --tasks, so only new or
changed tasks are checked again. --no-test-check skips this.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvalRun(cmd.Context(), g, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.tasks, "tasks", "", "tasks.jsonl (docs/protocol.md §1.3)")
	f.StringVar(&cfg.predictions, "predictions", "", "predictions.jsonl (docs/protocol.md §1.8)")
	f.StringVar(&cfg.expected, "expected", "", "expected_calls.jsonl (default: expected_calls.jsonl beside --tasks, if present)")
	f.StringVar(&cfg.out, "out", "", "run directory to write (created; resumed if it exists)")
	f.IntVar(&cfg.workers, "workers", 0, "tasks evaluated at once (default: number of CPUs)")
	f.IntVar(&cfg.samples, "samples", 0, "evaluate at most this many samples per task (default: all)")
	f.StringVar(&cfg.backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.StringVar(&cfg.shard, "shard", "", "evaluate shard i/n only (0-based), or auto / auto/N from the job scheduler")
	f.StringVar(&cfg.condition, "condition", "", "knowledge condition recorded on results (default: each prediction's cell)")
	f.StringVar(&cfg.source, "source", "", "knowledge source recorded for sweep reports: oracle or retrieved")
	f.BoolVar(&cfg.noLabels, "no-failure-labels", false, "do not classify failures (label \"\")")
	f.StringVar(&cfg.taxonomy, "taxonomy", evalharness.TaxonomyRuntime, "how failures are labelled: runtime (from what the run recorded) or protocol (the published procedure on stderr text; docs/protocol.md §5.2)")
	f.StringVar(&cfg.judgeEndpoint, "judge-endpoint", "", "OpenAI-compatible API base URL of an LLM judge for failures the rules leave open (docs/protocol.md §5.2)")
	f.StringVar(&cfg.judgeModel, "judge-model", "", "model name sent to --judge-endpoint")
	f.BoolVar(&cfg.rescore, "rescore", false, "if DIR holds results of a different evaluation, delete them and re-score")
	f.BoolVar(&cfg.skipInvalid, "skip-invalid", false, "skip invalid tasks (logged) instead of failing")
	f.BoolVar(&cfg.allowCustomSetup, "allow-custom-setup", false, "accept tasks whose setup_code is not the stock monitor")
	f.BoolVar(&cfg.noTestCheck, "no-test-check", false, "skip the check that each evaluated task's reference passes and its test rejects a fixed set of mutants (docs/mutants.md)")
	f.BoolVar(&cfg.json, "json", false, "print summary.json to stdout")
	for _, name := range []string{"tasks", "predictions", "out"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runEvalRun(ctx context.Context, g *globals, cfg evalRunConfig) error {
	shard, err := resolveShard(cfg.shard, os.Getenv)
	if err != nil {
		return usagef("eval run: --shard: %v", err)
	}
	out := strings.ReplaceAll(cfg.out, "{shard}", strconv.Itoa(shard.Index))
	switch cfg.source {
	case "", evalharness.SourceOracle, evalharness.SourceRetrieved:
	default:
		return usagef("eval run: --source %q: want oracle or retrieved", cfg.source)
	}
	condition := cfg.condition
	if c, err := bundles.ParseCondition(condition); condition != "" && err == nil {
		condition = string(c) // canonical value for an enum name; other cell names stay as given
	}
	if cfg.workers < 0 || cfg.samples < 0 {
		return usagef("eval run: --workers and --samples must be >= 0")
	}
	if !slices.Contains(evalharness.Taxonomies, cfg.taxonomy) {
		return usagef("eval run: --taxonomy %q: want %s", cfg.taxonomy, strings.Join(evalharness.Taxonomies, " or "))
	}

	invalid := 0
	tp, err := evalharness.OpenPool(evalharness.OpenConfig{Tasks: cfg.tasks, Expected: cfg.expected, Load: pool.LoadOptions{
		SkipInvalid: cfg.skipInvalid, AllowCustomSetup: cfg.allowCustomSetup,
		Invalid: func(err error) { invalid++; g.log.Warn("skipping invalid task", "err", err) },
	}})
	if err != nil {
		return err
	}
	preds, err := pool.LoadPredictions(cfg.predictions)
	if err != nil {
		return err
	}
	if invalid > 0 {
		if preds, err = dropSkippedPredictions(cfg.tasks, tp.Tasks, preds, g); err != nil {
			return err
		}
	}
	if len(preds) == 0 {
		return fmt.Errorf("eval run: %s holds no predictions", cfg.predictions)
	}
	runner, err := newRunner(ctx, g, cfg.backend)
	if err != nil {
		return err
	}
	var judge *evalharness.JudgeConfig
	if cfg.judgeEndpoint != "" {
		c, err := llm.New(llm.Config{Endpoint: cfg.judgeEndpoint, Model: cfg.judgeModel})
		if err != nil {
			return usagef("eval run: --judge-endpoint: %v", err)
		}
		judge = &evalharness.JudgeConfig{Client: c}
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(g.home), NoLabels: cfg.noLabels,
		Taxonomy: cfg.taxonomy, Judge: judge, Log: g.log})
	if err != nil {
		return err
	}
	_, s, err := tp.Evaluate(ctx, evalharness.EvaluateConfig{
		Harness: h, NoTestCheck: cfg.noTestCheck,
		TestCheck: func(pc *evalharness.PoolCheck) {
			w := g.stdout
			if cfg.json {
				w = g.stderr
			}
			pc.WriteReport(w, 0)
		},
		Run: evalharness.RunConfig{
			Predictions: preds, OutDir: out,
			Workers: cfg.workers, Samples: cfg.samples, Shard: shard, Condition: condition, Source: cfg.source,
			ClassifyFailures: !cfg.noLabels, Taxonomy: cfg.taxonomy, Judge: cfg.judgeName(), Backend: runner.Name(), Rescore: cfg.rescore,
			PredictionsPath: cfg.predictions, ScoreMissing: true,
			Progress: progressWriter(g), Log: g.log,
		},
	})
	if me, ok := errors.AsType[*evalharness.MissingExpectedError](err); ok {
		return fmt.Errorf("eval run: %s; pass --expected or build tasks without --no-c1", me.Message())
	}
	if err != nil {
		return err
	}
	judged := evalharness.NothingJudged(out, s)
	if judged != nil {
		judged = fmt.Errorf("eval run: %w", judged)
	}
	if cfg.json {
		if err := writeJSONResult(g.stdout, s, judged); err != nil {
			return err
		}
		return judged
	}
	if err := printSummary(g.stdout, out, s, false); err != nil {
		return err
	}
	return judged
}

// newRunner returns the sandbox backend named by --backend.
func newRunner(ctx context.Context, g *globals, backend string) (sandbox.Runner, error) {
	switch backend {
	case sandbox.BackendAuto, sandbox.BackendBwrap, sandbox.BackendDocker:
	default:
		return nil, usagef("unknown --backend %q: want auto, bwrap or docker", backend)
	}
	return sandbox.Auto(ctx, sandbox.AutoConfig{Backend: backend, Log: g.log})
}

// progressWriter returns stderr for the progress bar when it is a terminal
// and output is not quieted; nil makes Run log progress lines instead.
func progressWriter(g *globals) io.Writer {
	if f, ok := g.stderr.(*os.File); ok && !g.quiet && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// resolveShard parses --shard: "" (all), "i/n", "auto" or "auto/N". For
// auto, i is JOB_COMPLETION_INDEX (Kubernetes indexed jobs) or
// SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN (Slurm arrays), and n is N,
// NOVELAPI_SHARDS or SLURM_ARRAY_TASK_COUNT.
func resolveShard(spec string, getenv func(string) string) (evalharness.Shard, error) {
	if spec != "auto" && !strings.HasPrefix(spec, "auto/") {
		return evalharness.ParseShard(spec)
	}
	var idx, count int
	var err error
	switch {
	case getenv("JOB_COMPLETION_INDEX") != "":
		if idx, err = strconv.Atoi(getenv("JOB_COMPLETION_INDEX")); err != nil {
			return evalharness.Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX=%q: %v", getenv("JOB_COMPLETION_INDEX"), err)
		}
	case getenv("SLURM_ARRAY_TASK_ID") != "":
		if idx, err = strconv.Atoi(getenv("SLURM_ARRAY_TASK_ID")); err != nil {
			return evalharness.Shard{}, fmt.Errorf("SLURM_ARRAY_TASK_ID=%q: %v", getenv("SLURM_ARRAY_TASK_ID"), err)
		}
		if m := getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			min, err := strconv.Atoi(m)
			if err != nil {
				return evalharness.Shard{}, fmt.Errorf("SLURM_ARRAY_TASK_MIN=%q: %v", m, err)
			}
			idx -= min
		}
	default:
		return evalharness.Shard{}, errors.New("auto: neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set")
	}
	n := strings.TrimPrefix(strings.TrimPrefix(spec, "auto"), "/")
	for _, src := range []string{"NOVELAPI_SHARDS", "SLURM_ARRAY_TASK_COUNT"} {
		if n == "" {
			n = getenv(src)
		}
	}
	if n == "" {
		return evalharness.Shard{}, errors.New("auto: the shard count is unknown; use --shard auto/N or set NOVELAPI_SHARDS")
	}
	if count, err = strconv.Atoi(n); err != nil {
		return evalharness.Shard{}, fmt.Errorf("auto: shard count %q: %v", n, err)
	}
	return evalharness.ParseShard(fmt.Sprintf("%d/%d", idx, count))
}

// printSummary prints s as JSON, or as a few human-readable lines.
func printSummary(w io.Writer, dir string, s evalharness.Summary, asJSON bool) error {
	if asJSON {
		return writeJSON(w, s)
	}
	fmt.Fprintf(w, "%s: %d tasks, pass@1 %.1f%%", dir, s.N, 100*s.PassAt1)
	if s.PassAt5 != nil {
		fmt.Fprintf(w, ", pass@5 %.1f%%", 100**s.PassAt5)
	}
	fmt.Fprintf(w, ", exec@1 %.1f%%", 100*s.ExecAt1)
	if s.NoPrediction > 0 {
		fmt.Fprintf(w, ", %d tasks without a prediction (failed)", s.NoPrediction)
	}
	if s.Missing > 0 {
		fmt.Fprintf(w, ", %d tasks missing (no prediction; HumanEval-style: not scored)", s.Missing)
	}
	if len(s.InfraErrors) > 0 {
		fmt.Fprintf(w, ", %d infra errors excluded", len(s.InfraErrors))
	}
	fmt.Fprintln(w)
	if s.NoPrediction > 0 || s.Missing > 0 || len(s.InfraErrors) > 0 {
		fmt.Fprintln(w, "  "+s.Denominator)
	}
	fmt.Fprintln(w, "  "+priCoderLine(s.Metrics))
	for _, l := range append([]string{pool.LabelPass}, pool.Labels...) {
		if c := s.Labels[l]; c > 0 {
			fmt.Fprintf(w, "  %-18s %d\n", l, c)
		}
	}
	if c := s.Labels[""]; c > 0 {
		fmt.Fprintf(w, "  %-18s %d\n", "(unlabelled)", c)
	}
	for _, st := range slices.Sorted(maps.Keys(s.Statuses)) {
		if st != pool.StatusPass {
			fmt.Fprintf(w, "  status %-18s %d\n", st, s.Statuses[st])
		}
	}
	return nil
}

// priCoderLine states PriCoder's four measures of m (summary.json's
// PriCoder-style rates, docs/protocol.md §1.8), saying which tasks a rate
// leaves out.
func priCoderLine(m evalharness.Metrics) string {
	inv := "target invoked " + rate(m.TargetInvocationRate)
	if m.SpyOffTasks > 0 {
		inv += fmt.Sprintf(" (of %d tasks with the spy on)", m.N-m.SpyOffTasks)
	}
	recall := "required-API recall " + rate(m.RequiredAPIRecall)
	if m.MultiAPITasks == 0 {
		recall += " (no task requires several APIs; with one target, recall is the invocation rate)"
	} else {
		recall += fmt.Sprintf(" (over %d multi-API tasks)", m.MultiAPITasks)
	}
	return fmt.Sprintf("%s · %s · non-existent calls %s · signature errors %s", inv, recall,
		rate(m.NonexistentCallRate), rate(m.SignatureErrorRate))
}

// rate formats a rate as a percentage, "–" when it is undefined (nil).
func rate(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

func newEvalMergeCmd(g *globals) *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Join shard run directories into one run (results.jsonl, summary.json, eval_meta.json)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := evalharness.Merge(out, args...)
			if err != nil {
				return err
			}
			return printSummary(g.stdout, out, s, asJSON)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the merged run to")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print summary.json to stdout")
	cmd.MarkFlagRequired("out")
	return cmd
}

func newEvalReportCmd(g *globals) *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report DIR [DIR...]",
		Short: "Write report.md and a self-contained report.html for a run, or a sweep comparison of several",
		Long: `With one run directory, write DIR/report.md and DIR/report.html (pass@1 per condition, label
stacks per condition, per-library, difficulty and novelty tables). With several directories (or
--out), write a sweep comparison (condition × knowledge source: oracle vs retrieved) to --out.
A directory may be a run cell (holding results.jsonl) or a run holding cells as subdirectories.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			var err error
			if len(args) == 1 && out == "" {
				err = evalharness.Report(dir)
			} else {
				if out == "" {
					return usagef("eval report: several directories need --out for the sweep report")
				}
				dir = out
				err = evalharness.ReportSweep(args, out)
			}
			if err != nil {
				return err
			}
			md, html := filepath.Join(dir, pool.ReportMDFile), filepath.Join(dir, pool.ReportHTML)
			if asJSON {
				return writeJSON(g.stdout, map[string]string{"markdown": md, "html": html})
			}
			fmt.Fprintln(g.stdout, md)
			fmt.Fprintln(g.stdout, html)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for a sweep report over all DIRs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the written paths as JSON")
	return cmd
}

// dropSkippedPredictions removes the predictions of tasks that --skip-invalid
// left out (present in tasksPath but not in kept), logging how many; a
// prediction naming a task the file does not hold at all stays, so the run
// still reports it.
func dropSkippedPredictions(tasksPath string, kept []*pool.Task, preds []*pool.Prediction, g *globals) ([]*pool.Prediction, error) {
	ids, _, err := jsonl.Read[struct {
		TaskID string `json:"task_id"`
	}](tasksPath, jsonl.ReadOptions{SkipBad: true})
	if err != nil {
		return nil, err
	}
	skipped := map[string]bool{}
	for _, r := range ids {
		skipped[r.TaskID] = true
	}
	for _, t := range kept {
		delete(skipped, t.TaskID)
	}
	out := preds[:0:0]
	for _, p := range preds {
		if !skipped[p.TaskID] {
			out = append(out, p)
		}
	}
	if n := len(preds) - len(out); n > 0 {
		g.log.Warn("dropping the predictions of skipped tasks", "predictions", n)
	}
	return out, nil
}
