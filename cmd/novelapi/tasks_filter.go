package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
)

type tasksFilterConfig struct {
	tasks, bundles, exclude, backend string
	c2Model, c3Model                 string
	endpoint, c3Endpoint             string
	samples, workers                 int
	temperature                      float64
	json                             bool
}

func newTasksFilterCmd(g *globals) *cobra.Command {
	var cfg tasksFilterConfig
	cmd := &cobra.Command{
		Use:   "filter --tasks T --bundles B --c2-model M --c3-model M2 --endpoint URL [--c3-endpoint URL]",
		Short: "Run the Stage 4 filters (C1, C2 novelty, C3 solvability) and write the model's instance file",
		Long: `Runs the protocol's Stage 4 for one backbone model M (docs/protocol.md §7):
C1 (reference call records and the reference passing the harness; reused when already beside
--tasks), C2 (three samples of M at T=0.8 without knowledge all fail: the task is novel for M),
C3 (the stronger model M2 with the Full bundle solves it in at least one of three samples; its
samples are also rescored with the call-record check) and writes, beside --tasks:
filters/c2/<M>.jsonl, filters/c3/<M>.jsonl, excluded_tasks.tsv and instances/<M>.txt =
C1 ∩ C2(M) ∩ C3(M) − exclusions. Every step resumes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTasksFilter(cmd.Context(), g, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.tasks, "tasks", "", "tasks.jsonl; filters/, instances/ and expected_calls.jsonl live beside it")
	f.StringVar(&cfg.bundles, "bundles", "", "bundles.jsonl (the Full bundle of C3)")
	f.StringVar(&cfg.c2Model, "c2-model", "", "backbone model whose novelty is filtered (C2) and whose instance is written")
	f.StringVar(&cfg.c3Model, "c3-model", "", "stronger model that must solve the task with the Full bundle (C3)")
	f.StringVar(&cfg.endpoint, "endpoint", os.Getenv("NOVELAPI_ENDPOINT"), "OpenAI-compatible API base URL of the C2 model (env NOVELAPI_ENDPOINT)")
	f.StringVar(&cfg.c3Endpoint, "c3-endpoint", "", "API base URL of the C3 model (default: --endpoint)")
	f.StringVar(&cfg.exclude, "exclude", "", "manual exclusions, task_id<TAB>reason per line (excluded_tasks.tsv format)")
	f.IntVar(&cfg.samples, "samples", construct.DefaultFilterSamples, "samples per task for C2 and C3")
	f.Float64Var(&cfg.temperature, "temperature", construct.DefaultFilterTemperature, "sampling temperature for C2 and C3")
	f.IntVar(&cfg.workers, "workers", 0, "tasks in flight (0 = number of CPUs)")
	f.StringVar(&cfg.backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.BoolVar(&cfg.json, "json", false, "print the summary as JSON")
	for _, name := range []string{"tasks", "bundles", "c2-model", "c3-model"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runTasksFilter(ctx context.Context, g *globals, cfg tasksFilterConfig) error {
	if cfg.endpoint == "" {
		return usagef("tasks filter: no model endpoint: pass --endpoint URL or set NOVELAPI_ENDPOINT")
	}
	if cfg.c3Endpoint == "" {
		cfg.c3Endpoint = cfg.endpoint
	}
	key := os.Getenv("NOVELAPI_API_KEY")
	c2, err := llm.New(llm.Config{Endpoint: cfg.endpoint, APIKey: key, Model: cfg.c2Model})
	if err != nil {
		return err
	}
	c3Key := os.Getenv("NOVELAPI_C3_API_KEY")
	if c3Key == "" {
		c3Key = key
	}
	c3, err := llm.New(llm.Config{Endpoint: cfg.c3Endpoint, APIKey: c3Key, Model: cfg.c3Model})
	if err != nil {
		return err
	}
	tasks, err := pool.LoadTasks(cfg.tasks, pool.LoadOptions{})
	if err != nil {
		return err
	}
	bs, _, err := bundles.ReadBundles(cfg.bundles, jsonl.ReadOptions{})
	if err != nil {
		return err
	}
	byAPI := make(map[string]*bundles.Bundle, len(bs))
	for i := range bs {
		byAPI[bs[i].APIName] = &bs[i]
	}
	var manual []construct.Exclusion
	if cfg.exclude != "" {
		if manual, err = construct.ReadExclusions(cfg.exclude); err != nil {
			return err
		}
	}
	runner, err := newRunner(ctx, g, cfg.backend)
	if err != nil {
		return err
	}
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(g.home), NoLabels: true, Log: g.log})
	if err != nil {
		return err
	}
	dir := filepath.Dir(cfg.tasks)
	progress := progressWriter(g)
	out := struct {
		C1       construct.C1Summary       `json:"c1"`
		C2       construct.FilterSummary   `json:"c2"`
		C3       construct.FilterSummary   `json:"c3"`
		Instance construct.InstanceSummary `json:"instance"`
	}{}
	if out.C1, err = construct.RecordAndFilterC1(ctx, tasks, construct.C1Config{
		Harness: h, Dir: dir, Workers: cfg.workers, Progress: progress, Log: g.log,
	}); err != nil {
		return err
	}
	passedC1, err := keptTasks[construct.C1Record](tasks, filepath.Join(dir, "filters", "c1.jsonl"), func(r construct.C1Record) (string, bool) { return r.TaskID, r.Passed })
	if err != nil {
		return err
	}
	fc := construct.FilterConfig{Harness: h, Dir: dir, Model: cfg.c2Model, Samples: cfg.samples, Temperature: cfg.temperature,
		Workers: cfg.workers, Progress: progress, Log: g.log}
	if cfg.temperature == 0 {
		fc.Temperature = -1 // greedy asked for explicitly
	}
	fc.Client = c2
	if out.C2, err = construct.FilterC2(ctx, passedC1, fc); err != nil {
		return err
	}
	novel, err := keptTasks[construct.C2Record](passedC1, construct.C2Path(dir, cfg.c2Model), func(r construct.C2Record) (string, bool) { return r.TaskID, r.Novel })
	if err != nil {
		return err
	}
	var expected map[string]*pool.ExpectedCalls
	if p := filepath.Join(dir, "expected_calls.jsonl"); fileExists(p) {
		if expected, err = pool.LoadExpectedCalls(p); err != nil {
			return err
		}
	}
	fc.Client = c3
	if out.C3, err = construct.FilterC3(ctx, novel, construct.C3Config{FilterConfig: fc, Bundles: byAPI, Expected: expected}); err != nil {
		return err
	}
	if out.Instance, err = construct.WriteInstance(dir, cfg.c2Model, tasks, manual); err != nil {
		return err
	}
	if cfg.json {
		return writeJSON(g.stdout, out)
	}
	fmt.Fprintf(g.stdout, "C1: %d of %d tasks pass\n", out.C1.Passed, out.C1.Tasks)
	fmt.Fprintf(g.stdout, "C2 (%s): %d of %d novel -> %s\n", cfg.c2Model, out.C2.Kept, out.C2.Tasks, out.C2.Path)
	fmt.Fprintf(g.stdout, "C3 (%s): %d of %d solvable -> %s\n", cfg.c3Model, out.C3.Kept, out.C3.Tasks, out.C3.Path)
	fmt.Fprintf(g.stdout, "instance: %d tasks, %d APIs, %d excluded %v -> %s\n",
		out.Instance.Tasks, out.Instance.APIs, out.Instance.Excluded, out.Instance.ByDomain, out.Instance.Path)
	return nil
}

// keptTasks returns the tasks whose record in the filter file at path is
// kept, in tasks' order.
func keptTasks[R any](tasks []*pool.Task, path string, id func(R) (string, bool)) ([]*pool.Task, error) {
	recs, _, err := jsonl.Read[R](path, jsonl.ReadOptions{SkipBad: true})
	if err != nil {
		return nil, err
	}
	kept := map[string]bool{}
	for _, r := range recs {
		k, v := id(r)
		kept[k] = v
	}
	var out []*pool.Task
	for _, t := range tasks {
		if kept[t.TaskID] {
			out = append(out, t)
		}
	}
	return out, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
