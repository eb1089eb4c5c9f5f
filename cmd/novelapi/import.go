package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newImportCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import task pools from other studies",
		Long: `Import task pools written by other studies into novelapi's formats:
bundles.jsonl (API knowledge, indexable and served over MCP), tasks.jsonl
(protocol task format), expected_calls.jsonl and reference_predictions.jsonl
(for C1 runs with novelapi eval run). See docs/importers.md.`,
	}
	cmd.AddCommand(newImportArenaCmd(g), newImportPriCoderCmd(g), newImportHumanEvalCmd(g), newImportCheckCmd(g), newImportTargetsCmd(g), newImportRetrievalCmd(g))
	return cmd
}

// printStats prints an import's figures: JSON with --json, else one line.
func printStats(g *globals, st importers.Stats, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(g.stdout).Encode(st)
	}
	_, err := fmt.Fprintf(g.stdout, "%s: %d bundles, %d tasks, %d skipped -> %s\n", st.Origin, st.Bundles, st.Tasks, st.Skipped, st.OutDir)
	return err
}

// newImportPoolCmd is one `novelapi import <format>` command: flags (which
// register adds) plus --out and --json, then run writes the pool into --out
// and the figures are printed. need names the flags run requires besides
// --out; check reports whether they are set.
func newImportPoolCmd(g *globals, use, short string, args cobra.PositionalArgs, register func(*pflag.FlagSet),
	need string, check func() bool, run func(args []string, out string) (importers.Stats, error)) *cobra.Command {
	var (
		out    string
		asJSON bool
	)
	name := strings.Fields(use)[0]
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  args,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" || (check != nil && !check()) {
				if need == "" {
					return usagef("import %s: --out is required", name)
				}
				return usagef("import %s: %s--out are required", name, need)
			}
			st, err := run(args, out)
			if err != nil {
				return err
			}
			return printStats(g, st, asJSON)
		},
	}
	f := cmd.Flags()
	register(f)
	f.StringVar(&out, "out", "", "output directory")
	f.BoolVar(&asJSON, "json", false, "print the import figures as JSON")
	return cmd
}

func newImportArenaCmd(g *globals) *cobra.Command {
	var cfg importers.ArenaConfig
	return newImportPoolCmd(g, "codeupdatearena FILE --out DIR",
		"Import CodeUpdateArena's arena.jsonl (updates as bundles, examples as tasks)", cobra.ExactArgs(1),
		func(f *pflag.FlagSet) {
			f.StringVar(&cfg.Environment, "env", importers.ArenaEnvironment, "environment the tasks name")
			f.StringSliceVar(&cfg.SkipPackages, "skip-packages", nil, "packages whose examples are listed as skipped, e.g. torch")
			f.StringVar(&cfg.SkipReason, "skip-reason", "", "reason recorded for skipped packages")
		}, "", nil,
		func(args []string, out string) (importers.Stats, error) {
			return importers.ImportCodeUpdateArena(args[0], out, cfg)
		})
}

func newImportPriCoderCmd(g *globals) *cobra.Command {
	var cfg importers.PriCoderConfig
	return newImportPoolCmd(g, "pricoder --tasks T --docs D --library NAME --out DIR",
		"Import a PriCoder-style pool (tasks with api_list plus API docs)", cobra.NoArgs,
		func(f *pflag.FlagSet) {
			f.StringVar(&cfg.TasksPath, "tasks", "", "tasks JSONL (id, task, prompt, canonical_solution, test, api_list)")
			f.StringVar(&cfg.DocsPath, "docs", "", "API docs JSONL (qualname, signature, docstring, code)")
			f.StringVar(&cfg.Library, "library", "", "library key of the bundles and tasks")
			f.StringVar(&cfg.Environment, "env", "", "environment the tasks name (default: the library's)")
			f.StringVar(&cfg.Domain, "domain", "", "protocol domain of the bundles and tasks")
		}, "--tasks, --docs, --library and ",
		func() bool { return cfg.TasksPath != "" && cfg.DocsPath != "" && cfg.Library != "" },
		func(_ []string, out string) (importers.Stats, error) { return importers.ImportPriCoder(out, cfg) })
}

func newImportHumanEvalCmd(g *globals) *cobra.Command {
	var cfg importers.HumanEvalConfig
	return newImportPoolCmd(g, "humaneval FILE --out DIR",
		"Import a HumanEval-style pool, plain or gzipped JSONL (no target API: the spy requirement is off)", cobra.ExactArgs(1),
		func(f *pflag.FlagSet) {
			f.StringVar(&cfg.Environment, "env", "", "environment the tasks name (default trixie-sci)")
			f.StringVar(&cfg.Library, "library", "", "library key of the tasks (default humaneval)")
			f.StringVar(&cfg.Original, "original", "", "for a renamed pool (APICoder's MonkeyEval, BeatNumEval): the pool it renames, whose prompts and tests run")
			f.StringVar(&cfg.Keywords, "keywords", "", "for a renamed pool: its keyword table (a JSON object original -> renamed), which translates the completion back")
		}, "", nil,
		func(args []string, out string) (importers.Stats, error) {
			return importers.ImportHumanEval(args[0], out, cfg)
		})
}

func newImportCheckCmd(g *globals) *cobra.Command {
	var (
		cfg     importers.CheckConfig
		backend string
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "check DIR",
		Short: "Run an imported pool's references in the sandbox (C1) under the original and the monitored assembly",
		Long: `Run every reference of the pool in DIR in its environment, under the
dataset's own assembly (named in the output: the pool's original harness
and how it joins the program) and under novelapi's monitored assembly, appending
to DIR/reference_check.jsonl (a rerun resumes) and writing
DIR/reference_check.md (figures per group and every failing reference).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if backend != "bwrap" {
				return usagef("import check: --backend %q: only bwrap is supported here", backend)
			}
			r, err := sandbox.NewBwrap(sandbox.BwrapConfig{Log: g.log})
			if err != nil {
				return err
			}
			cfg.Runner, cfg.Store, cfg.Log = r, debenv.OpenStore(g.home), g.log
			cfg.Progress = progressWriter(g)
			sum, err := importers.CheckPool(cmd.Context(), args[0], cfg)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(g.stdout).Encode(sum)
			}
			var b strings.Builder
			for _, a := range sum.Assemblies {
				fmt.Fprintf(&b, "original assembly (%s, %d tasks): %s\n  %s\n", a.Origin, a.Tasks, a.Harness, a.Program)
			}
			for _, gr := range append(sum.Groups, sum.Total) {
				fmt.Fprintf(&b, "%-10s tasks %4d  original %4d  monitored %4d  infra %d\n", gr.Group, gr.Tasks, gr.OriginalPassed, gr.MonitorPassed, gr.InfraErrors)
			}
			_, err = fmt.Fprint(g.stdout, b.String())
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Workers, "workers", 1, "tasks checked at once")
	f.StringVar(&backend, "backend", "bwrap", "sandbox backend (bwrap)")
	f.BoolVar(&asJSON, "json", false, "print the figures as JSON")
	return cmd
}

func newImportRetrievalCmd(g *globals) *cobra.Command {
	var (
		idxDir string
		k      int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "retrieval DIR [--index IDX] [--k 5]",
		Short: "hit@k of each task's API when its problem text is the query (builds DIR/index from DIR/bundles.jsonl if needed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			figs, err := importers.PoolRetrieval(cmd.Context(), args[0], idxDir, k, g.log)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(g.stdout).Encode(figs)
			}
			for _, f := range figs {
				fmt.Fprintf(g.stdout, "%-7s hit@%d exact update %d/%d (%.3f)  api name %d/%d (%.3f)\n", f.Retriever, f.K,
					f.HitExact, f.N, ratio(f.HitExact, f.N), f.HitAPI, f.N, ratio(f.HitAPI, f.N))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&idxDir, "index", "", "index directory (default DIR/index, built if missing)")
	cmd.Flags().IntVar(&k, "k", 5, "hits considered")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the figures as JSON")
	return cmd
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
