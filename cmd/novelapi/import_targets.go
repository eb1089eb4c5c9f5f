package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/sandbox"
)

func newImportTargetsCmd(g *globals) *cobra.Command {
	var (
		cfg                    importers.SpyPoolConfig
		mapping, keywords, lib string
		asJSON                 bool
	)
	cmd := &cobra.Command{
		Use:   "targets DIR --mapping FILE --library LIB[,LIB]",
		Short: "Give an imported APICoder pool a spy on the APIs each problem is about",
		Long: `For each task of the HumanEval-style pool in DIR that APICoder's keyword
mapping (pandas_keyword_mapping.json, numpy_keyword_mapping.json) names APIs
for, find the public APIs of the --library list (pandas, numpy) its reference calls under those names
(run in the task's environment with the spy on every candidate) and make the
task watch them: the spy on, counting the calls made inside the entry point.
Tasks whose reference calls none keep the spy off. Rewrites DIR's tasks,
expected calls and reference predictions; DIR/targets.jsonl says what was
found for each task. --keywords translates the mapping's renamed names for an
original pool (PandasEval, NumpyEval); a renamed pool's tasks carry their table.
See docs/importers.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for l := range strings.SplitSeq(lib, ",") {
				s, ok := importers.TargetSpaces[strings.TrimSpace(l)]
				if !ok {
					return usagef("import targets: --library %q: want a comma-separated list of %s", lib, strings.Join(slices.Sorted(maps.Keys(importers.TargetSpaces)), ", "))
				}
				cfg.Spaces = append(cfg.Spaces, s)
			}
			m, err := importers.ReadKeywordMapping(mapping)
			if err != nil {
				return err
			}
			if keywords != "" {
				if cfg.Keywords, err = importers.ReadKeywordTable(keywords); err != nil {
					return err
				}
			}
			r, err := sandbox.NewBwrap(sandbox.BwrapConfig{Log: g.log})
			if err != nil {
				return err
			}
			cfg.Mapping = m
			cfg.Runner, cfg.Store, cfg.Log = r, debenv.OpenStore(g.home), g.log
			res, err := importers.SpyPool(cmd.Context(), args[0], cfg)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(g.stdout).Encode(res)
			}
			spied := 0
			for _, r := range res {
				if len(r.Called) > 0 {
					spied++
				} else {
					fmt.Fprintf(g.stdout, "spy off: %s: %s\n", r.TaskID, r.Reason)
				}
			}
			_, err = fmt.Fprintf(g.stdout, "%d of %d named tasks now spy on their APIs -> %s\n", spied, len(res), args[0])
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&mapping, "mapping", "", "APICoder keyword mapping (problem_to_keywords)")
	f.StringVar(&keywords, "keywords", "", "keyword table translating the mapping's names, for an original pool")
	f.StringVar(&lib, "library", "", "libraries whose APIs the names stand for, the pool's own first, comma-separated: pandas, numpy (a pandas pool calls numpy too)")
	f.IntVar(&cfg.Workers, "workers", 1, "tasks resolved at once")
	f.BoolVar(&asJSON, "json", false, "print what was found for each task as JSON")
	_ = cmd.MarkFlagRequired("mapping")
	_ = cmd.MarkFlagRequired("library")
	return cmd
}
