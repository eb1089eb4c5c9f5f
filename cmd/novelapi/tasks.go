package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/sandbox"
)

func newTasksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Build task pools from bundles (Stage 3) and filter them (Stage 4)",
	}
	cmd.AddCommand(newTasksBuildCmd(g), newTasksFilterCmd(g), newTasksPredictionsCmd(g))
	return cmd
}

type tasksBuildConfig struct {
	bundles, env, oldEnv, out string
	backend                   string
	maxExamples, workers      int
	noMedium, noC1, skipBad   bool
	changeOnly, protocolOnly  bool
	json, rebuild             bool
	keepWeak, noTestCheck     bool
	generator                 string        // offline or llm
	ep                        endpointFlags // --generator llm
}

func newTasksBuildCmd(g *globals) *cobra.Command {
	var cfg tasksBuildConfig
	cmd := &cobra.Command{
		Use:   "build --bundles B --env ENV [--out tasks.jsonl]",
		Short: "Build tasks from the bundles' executed examples, record reference calls and run C1",
		Long: `Builds tasks offline from each bundle's executed examples (docs/protocol.md §7 Stage 3): the context
is the example's lines before the target call, the masked region assigns that call to result, and
execution_test asserts what held on two reference runs and fails with a null stub of the target.
Each task gets an easy and, where the call takes context variables, a medium variant.

For signature-modified APIs each task records the changed parameters and whether its call passes
one of them (changed_params, exercises_change; §7 Stage 3 "every task must exercise the change");
examples and calls that pass a changed parameter are preferred, and --change-only drops the tasks
whose call does not. The static rule (construct.Change.Exercised) counts a call that the old
release would reject or bind differently, or that relies on a changed default. With --old-env
(the old release's environment) each modified-API task's reference and assertions run there
instead: a task exercises the change when they fail (old_env_check "fails") and passes there;
one that fails only because a module or name is missing in the old release (old_env_check
"fails_elsewhere", e.g. numpy.strings in numpy 1.24) keeps the static rule.
It is off by default: most examples (docstrings) call a modified API the old way.

A stamp beside --out (OUT.stamp.json) records the task rules, the options and the digest of
--bundles; a rerun reuses --out only when all three are the same, and says on stderr why it
rebuilds.

Then, unless --no-c1, it records the reference call records (§4.5) into expected_calls.jsonl and
runs the C1 filter (the reference passes the full harness) into filters/c1.jsonl and
instances/c1.txt, all beside --out. Reruns reuse the call records and C1 verdicts already written
while the harness's embedded scripts are the ones that wrote them (filters/c1.jsonl.stamp.json).

The assertions compare result values with tolerances derived from the executed reference, and each
built task's test must reject a fixed set of mutants of its reference (the output times zero, a
constant, a sibling API, a dropped argument, a changed input; docs/mutants.md): tasks whose test
lets one pass are dropped (--keep-weak keeps them), and the outcomes, with C1's verdicts on the
references, are recorded in mutant_check.jsonl beside --out, where 'eval run' reads them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTasksBuild(cmd, g, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.bundles, "bundles", "", "bundles.jsonl with executed examples")
	f.StringVar(&cfg.env, "env", "trixie-sci", "environment the examples run in (the new release)")
	f.StringVar(&cfg.oldEnv, "old-env", "", "old-release environment (e.g. bookworm-sci): modified-API tasks run their reference and assertions there, and exercise the change when they fail (old_env_check)")
	f.StringVar(&cfg.out, "out", "tasks.jsonl", "tasks.jsonl to write; expected_calls.jsonl, filters/ and instances/ go beside it")
	f.StringVar(&cfg.backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.IntVar(&cfg.maxExamples, "max-examples", 2, "executed examples used per API")
	f.IntVar(&cfg.workers, "workers", 0, "concurrent sandbox runs (default: number of CPUs)")
	f.BoolVar(&cfg.protocolOnly, "protocol-only", false, "build tasks only for the bundles the published protocol lists (provenance.extension empty: no methods, no APIs without Python source)")
	f.BoolVar(&cfg.noMedium, "no-medium", false, "build only easy tasks")
	f.BoolVar(&cfg.changeOnly, "change-only", false, "drop tasks of signature-modified APIs whose call does not exercise the change (offline generator)")
	f.BoolVar(&cfg.noC1, "no-c1", false, "skip call records and the C1 filter")
	f.BoolVar(&cfg.keepWeak, "keep-weak", false, "keep tasks whose test accepts a mutant of the reference (they stay flagged in mutant_check.jsonl)")
	f.BoolVar(&cfg.noTestCheck, "no-test-check", false, "skip the mutant check of the built tests (docs/mutants.md)")
	f.BoolVar(&cfg.rebuild, "rebuild", false, "build the tasks again even if the stamp beside --out allows reusing them")
	f.BoolVar(&cfg.skipBad, "skip-bad", false, "skip malformed bundle lines instead of failing")
	f.BoolVar(&cfg.json, "json", false, "print the summary as JSON")
	f.StringVar(&cfg.generator, "generator", "offline", "task generator: offline (from executed examples) or llm (the protocol's LLM generation; needs --endpoint and --model)")
	cfg.ep.register(cmd)
	cmd.MarkFlagRequired("bundles")
	return cmd
}

func runTasksBuild(cmd *cobra.Command, g *globals, cfg tasksBuildConfig) error {
	ctx := cmd.Context()
	bs, stats, err := bundles.ReadBundles(cfg.bundles, jsonl.ReadOptions{SkipBad: cfg.skipBad})
	if err != nil {
		return err
	}
	if stats.Skipped > 0 {
		g.log.Warn("skipped malformed bundle lines", "file", cfg.bundles, "skipped", stats.Skipped)
	}
	store := debenv.OpenStore(g.home)
	env, err := store.Get(cfg.env)
	if err != nil {
		return err
	}
	runner, err := newRunner(ctx, g, cfg.backend)
	if err != nil {
		return err
	}
	progress := progressWriter(g)
	var oldEnv *sandbox.Environment
	if cfg.oldEnv != "" {
		if oldEnv, err = store.Get(cfg.oldEnv); err != nil {
			return err
		}
	}
	pcfg := construct.PoolConfig{
		Out: cfg.out, BundlesPath: cfg.bundles, Rebuild: cfg.rebuild, Log: g.log, ProtocolOnly: cfg.protocolOnly,
		Build: construct.BuildConfig{
			Bundles: bs, Env: env, Runner: runner, MaxExamples: cfg.maxExamples, Medium: !cfg.noMedium, ChangeOnly: cfg.changeOnly, OldEnv: oldEnv,
			Workers: cfg.workers, Progress: progress, Log: g.log,
			SkipMutantCheck: cfg.noTestCheck, KeepWeak: cfg.keepWeak, CheckPath: evalharness.CheckPath(cfg.out),
		},
	}
	switch cfg.generator {
	case "", "offline":
	case "llm":
		client, err := cfg.ep.client()
		if err != nil {
			return err
		}
		if cfg.ep.model == "" {
			return usagef("tasks build --generator llm needs --model NAME")
		}
		pcfg.LLM = &construct.LLMConfig{Bundles: bs, Env: env, Runner: runner, Client: client, Workers: cfg.workers, Progress: progress, Log: g.log}
		pcfg.Model = cfg.ep.model
	default:
		return usagef("tasks build: unknown --generator %q: want offline or llm", cfg.generator)
	}
	if !cfg.noC1 {
		h, err := evalharness.New(evalharness.Config{Runner: runner, Store: store, Log: g.log})
		if err != nil {
			return err
		}
		pcfg.C1 = &construct.C1Config{Harness: h, Workers: cfg.workers, Progress: progress, Log: g.log, TestCheck: !cfg.noTestCheck}
	}
	res, err := construct.BuildPool(ctx, pcfg)
	if err != nil {
		return err
	}
	bsum := res.Build
	out := struct {
		Tasks string                 `json:"tasks"`
		Build construct.BuildSummary `json:"build"`
		C1    *construct.C1Summary   `json:"c1,omitempty"`
	}{Tasks: cfg.out, Build: bsum, C1: res.C1}
	if cfg.json {
		return writeJSON(g.stdout, out)
	}
	if bsum.Reused {
		fmt.Fprintf(g.stdout, "reused %d tasks from %s\n", bsum.Tasks, cfg.out)
	} else {
		fmt.Fprintf(g.stdout, "bundles %d (with executed examples %d), examples tried %d -> %d tasks (%s), %d with the example's own checks, %d checking inputs changed in place\n",
			bsum.APIs, bsum.WithExamples, bsum.Examples, bsum.Tasks, countList(bsum.ByDifficulty), bsum.ExampleChecked, bsum.InPlace)
		if bsum.ModifiedAPIs > 0 {
			fmt.Fprintf(g.stdout, "signature-modified: %d APIs, %d with a task exercising the change; %d tasks, %d exercising (static rule %d",
				bsum.ModifiedAPIs, bsum.ExercisedAPIs, bsum.ModifiedTasks, bsum.ExercisingTasks, bsum.StaticExercising)
			if bsum.OldEnvCheck != nil {
				fmt.Fprintf(g.stdout, "; in %s: %s", cfg.oldEnv, countList(bsum.OldEnvCheck))
				if bsum.OldEnvCheck[construct.OldEnvFailsElsewhere] > 0 {
					fmt.Fprint(g.stdout, " [fails_elsewhere: a module or name missing there; static rule kept]")
				}
			}
			fmt.Fprintln(g.stdout, ")")
		}
	}
	var reasons []string
	for r := range bsum.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(g.stdout, "  skipped %4d  %s\n", bsum.Skipped[r], r)
	}
	if m := bsum.Mutants; m != nil {
		fmt.Fprintf(g.stdout, "mutant check: %d tasks checked (%s); %d weak dropped; of the %d kept, %.1f%% have value assertions and %.1f%% have tests that reject every mutant\n",
			m.Checked, countList(m.ByStatus), m.Dropped, m.Kept, 100*m.ValueShare, 100*m.DiscriminatingShare)
	}
	if out.C1 != nil {
		fmt.Fprintf(g.stdout, "C1: %d of %d tasks pass (%s); call records: %s -> %s\n",
			out.C1.Passed, out.C1.Tasks, countList(out.C1.ByLibrary), countList(out.C1.CallStatus), out.C1.Instance)
		if out.C1.Tests != nil {
			out.C1.Tests.WriteReport(g.stdout, 20)
		}
	}
	fmt.Fprintf(g.stdout, "tasks written to %s\n", cfg.out)
	return nil
}

// countList formats counts as "a 3, b 5", keys sorted.
func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
