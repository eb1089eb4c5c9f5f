package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

func newTasksPredictionsCmd(g *globals) *cobra.Command {
	var tasks, out string
	var mutants, asJSON bool
	cmd := &cobra.Command{
		Use:   "predictions --tasks T --out P [--mutants]",
		Short: "Write a pool's reference completions, or a mutant set of them, as predictions.jsonl",
		Long: `Writes one prediction per task of --tasks to --out (predictions.jsonl, docs/protocol.md §1.8), for
novelapi eval run: its reference completion (cell "reference"), or with --mutants that reference broken
in one of the label suite's ways (docs/mutants.md §6: empty, prose, syntax error, misspelt import, wrong
keyword, wrong argument shape, constant return, exception after the call), each kind used about as
often over the pool (cell "mutant:KIND"). Evaluating both gives PriCoder's measures (target invocation,
required-API recall, non-existent calls, signature errors) on answers that are right and on answers
whose faults are known, for any pool, a private library's included (docs/private.md §3).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, err := pool.LoadTasks(tasks, pool.LoadOptions{})
			if err != nil {
				return err
			}
			preds := importers.ReferencePredictions(ts)
			if mutants {
				preds = evalharness.MutantSet(ts, nil)
			}
			if err := jsonl.Write(out, preds); err != nil {
				return err
			}
			counts := map[string]int{}
			for _, p := range preds {
				counts[p.Cell]++
			}
			if asJSON {
				return writeJSON(g.stdout, map[string]any{"predictions": out, "tasks": len(ts), "by_cell": counts})
			}
			fmt.Fprintf(g.stdout, "%s: %d predictions for %d tasks\n", out, len(preds), len(ts))
			for _, c := range slices.Sorted(maps.Keys(counts)) {
				fmt.Fprintf(g.stdout, "  %-28s %d\n", c, counts[c])
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&tasks, "tasks", "", "tasks.jsonl (docs/protocol.md §1.3)")
	f.StringVar(&out, "out", "", "predictions.jsonl to write (replaced)")
	f.BoolVar(&mutants, "mutants", false, "a mutant set of the references instead of the references")
	f.BoolVar(&asJSON, "json", false, "print the counts as JSON")
	for _, name := range []string{"tasks", "out"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}
