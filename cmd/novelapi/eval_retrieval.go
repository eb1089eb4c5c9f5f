package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

func newEvalRetrievalCmd(g *globals) *cobra.Command {
	var (
		tasks, queries, dir string
		retrievers          []string
		conditions          []string
		jsonOut             bool
		ef                  embedderFlags
	)
	cmd := &cobra.Command{
		Use:   "retrieval (--tasks tasks.jsonl | --queries queries.jsonl) [--index DIR] [--json]",
		Short: "Measure hit@1, hit@5 and MRR of the target API per retriever, paper condition and library",
		Long: `For each task the query is its description plus context code (docs/protocol.md §6); a
queries file has {"query", "api_name"} lines. Every retriever is run: hybrid, bm25, vector and the
published paper baseline under each knowledge condition (for tasks, over the task's domain, §6).

Besides one row per condition, paper has a "shared" row when S, S+M, S+E and Full all run: the
protocol's shared-hit statistic. A query counts as a hit@5 there only when its target is in the top
five under each of the four (hit@1: first under each; MRR: of the worst of the four ranks). It is the
figure the paper reports as "960 of 1,670 tasks (57%)"; the per-condition rows are each higher.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := tasks
			if (tasks == "") == (queries == "") {
				return usagef("eval retrieval needs exactly one of --tasks or --queries")
			}
			if path == "" {
				path = queries
			}
			cfg := index.EvalConfig{}
			for _, r := range retrievers {
				if !slices.Contains(index.Retrievers, index.Retriever(r)) {
					return usagef("--retrievers: unknown retriever %q; want one of %s", r, strings.Join(retrieverNames(), ", "))
				}
				cfg.Retrievers = append(cfg.Retrievers, index.Retriever(r))
			}
			for _, c := range conditions {
				pc, err := bundles.ParseCondition(c)
				if err == nil && pc == bundles.CondNone {
					err = fmt.Errorf("condition none has no knowledge to retrieve")
				}
				if err != nil {
					return usagef("--conditions: %v (the paper retriever runs the 11 conditions other than none)", err)
				}
				cfg.Conditions = append(cfg.Conditions, pc)
			}
			emb, err := ef.embedder()
			if err != nil {
				return err
			}
			qs, err := index.LoadEvalQueries(path)
			if err != nil {
				return err
			}
			ix, err := index.Open(indexDirOr(g, dir), index.OpenOptions{Embedder: emb, Logger: g.log})
			if err != nil {
				return err
			}
			defer ix.Close()
			if w := progressWriter(g); w != nil {
				var bar *progressbar.ProgressBar
				cfg.Progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("queries"),
							progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
					}
					bar.Set(done)
				}
			}
			rep, err := index.Evaluate(cmd.Context(), ix, qs, cfg)
			if err != nil {
				return err
			}
			if jsonOut {
				return writeJSON(g.stdout, rep)
			}
			fmt.Fprintf(g.stdout, "%d queries from %s", rep.Queries, path)
			if n := len(rep.Missing); n > 0 {
				fmt.Fprintf(g.stdout, " (%d targets not in the index, counted as misses: %s)", n, strings.Join(rep.Missing[:min(n, 5)], ", "))
				if n > 5 {
					fmt.Fprintf(g.stdout, " and %d more", n-5)
				}
			}
			fmt.Fprintln(g.stdout)
			fmt.Fprintf(g.stdout, "%-9s %-6s %-8s %5s %7s %7s %7s\n", "retriever", "cond", "library", "n", "hit@1", "hit@5", "MRR")
			for _, r := range rep.Rows {
				lib := r.Library
				if lib == "" {
					lib = "all"
				}
				fmt.Fprintf(g.stdout, "%-9s %-6s %-8s %5d %7.3f %7.3f %7.3f\n", r.Retriever, r.Condition, lib, r.N, r.HitAt1, r.HitAt5, r.MRR)
			}
			if p, ok := rep.Row(index.Paper, index.PaperShared, ""); ok {
				fmt.Fprintf(g.stdout, "paper shared: %d of %d queries in the top five under each of S, S+M, S+E and Full (docs/protocol.md §6; the paper's 960 of 1,670 tasks, 57%%)\n",
					int(math.Round(p.HitAt5*float64(p.N))), p.N)
			} else if slices.Contains(cfg.Retrievers, index.Paper) || cfg.Retrievers == nil {
				fmt.Fprintln(g.stdout, "no paper shared row: it needs the conditions S, S+M, S+E and Full")
			}
			if h, ok := rep.Row(index.Hybrid, "", ""); ok {
				if p, ok := rep.Row(index.Paper, "Full", ""); ok && p.HitAt5 > 0 {
					fmt.Fprintf(g.stdout, "hybrid hit@5 / paper(Full) hit@5 = %.2fx\n", h.HitAt5/p.HitAt5)
				}
				if p, ok := rep.Row(index.Paper, index.PaperShared, ""); ok && p.HitAt5 > 0 {
					fmt.Fprintf(g.stdout, "hybrid hit@5 / paper shared-hit rate (top five under each of S, S+M, S+E, Full; docs/protocol.md §6) = %.2fx\n", h.HitAt5/p.HitAt5)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&tasks, "tasks", "", "tasks.jsonl (protocol format)")
	f.StringVar(&queries, "queries", "", `queries file: {"query", "api_name"} lines`)
	f.StringVar(&dir, "index", "", "index directory (default $NOVELAPI_HOME/index)")
	f.StringSliceVar(&retrievers, "retrievers", nil, "retrievers to run (default all: hybrid,bm25,vector,paper)")
	f.StringSliceVar(&conditions, "conditions", nil, "paper conditions (default all 11 non-none)")
	f.BoolVar(&jsonOut, "json", false, "print the report as JSON")
	ef.register(cmd)
	return cmd
}
