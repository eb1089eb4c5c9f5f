package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

func newSearchCmd(g *globals) *cobra.Command {
	var (
		dir       string
		q         index.Query
		comps     []string
		retriever string
		condition string
		jsonOut   bool
		ef        embedderFlags
	)
	cmd := &cobra.Command{
		Use:   "search [--index DIR] [--library L] [--version V] [--components S,E] [--k 5] [--retriever hybrid|bm25|vector|paper] [--json] QUERY...",
		Short: "Find the novel APIs matching a query in words or identifiers",
		Long: `Find the novel APIs matching a query in words or identifiers.

Each line is: rank, API, (library version, novelty), [the components whose
text matched the query], score. The score orders one answer only: under
hybrid and bm25 it is the ranker's (unbounded; negative for the weakest
matches), under vector the cosine similarity of the API's best unit. "exact"
marks an API the query names; it ranks first, whatever its score. --k only
truncates one ranking.

--retriever paper is the published baseline (docs/protocol.md §6): it
ranks 512-word chunks of the rendered --condition, --k counts chunks (an API
with several chunks in the top k is listed once, at its best rank, so fewer
than k APIs may be listed), the score is 1/rank, and --components does not
apply.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if q.K < 1 {
				return usagef("search: --k %d: want 1 to %d", q.K, index.MaxK)
			}
			if q.K > index.MaxK {
				g.log.Warn("search: --k above the maximum; returning at most the maximum", "k", q.K, "max", index.MaxK)
			}
			emb, err := ef.embedder()
			if err != nil {
				return err
			}
			q.Text = strings.Join(args, " ")
			if strings.TrimSpace(q.Text) == "" {
				return usagef("search: %v", index.ErrEmptyQuery)
			}
			if len(q.Text) > index.MaxQueryBytes {
				return usagef("search: query is %d bytes; the limit is %d (keep the question and the code around the call)", len(q.Text), index.MaxQueryBytes)
			}
			q.Components = comps
			q.Retriever = index.Retriever(retriever)
			if !slices.Contains(index.Retrievers, q.Retriever) {
				return usagef("search: --retriever %q: want one of %s", retriever, strings.Join(retrieverNames(), ", "))
			}
			q.Condition = bundles.Condition(condition)
			ix, err := index.Open(indexDirOr(g, dir), index.OpenOptions{Embedder: emb, Logger: g.log})
			if err != nil {
				return err
			}
			defer ix.Close()
			hits, err := ix.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			if jsonOut {
				if hits == nil {
					hits = []index.Hit{}
				}
				return writeJSON(g.stdout, hits)
			}
			if len(hits) == 0 {
				fmt.Fprintln(g.stdout, "no results")
				if near := index.SuggestNames(q.Text, ix.Names(), 5); len(near) > 0 {
					fmt.Fprintf(g.stdout, "near names: %s\n", strings.Join(near, ", "))
				}
				return nil
			}
			for _, h := range hits {
				extra := ""
				if h.Exact {
					extra = "  exact"
				}
				if len(h.Chunks) > 0 {
					extra += fmt.Sprintf("  %d chunk(s)", len(h.Chunks))
				}
				fmt.Fprintf(g.stdout, "%2d. %s  (%s %s, %s)  [%s]  %.4f%s\n", h.Rank, h.APIName, h.Library, h.Version,
					h.Novelty, strings.Join(h.Components, " "), h.Score, extra)
				if len(h.Instances) > 0 {
					fmt.Fprintf(g.stdout, "    call through the public instance: %s\n", h.Instances[0])
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "index", "", "index directory (default $NOVELAPI_HOME/index)")
	f.StringVar(&q.Library, "library", "", "only this library")
	f.StringVar(&q.Version, "version", "", "only this library version")
	f.StringSliceVar(&comps, "components", nil, "only these components (S, E, M, C; comma-separated)")
	f.IntVarP(&q.K, "k", "k", index.DefaultK, fmt.Sprintf("number of APIs to return (1 to %d; chunks under --retriever paper)", index.MaxK))
	f.StringVar(&retriever, "retriever", string(index.Hybrid), "hybrid, bm25, vector or paper (the published dense-chunk baseline)")
	f.StringVar(&condition, "condition", "Full", "knowledge condition rendered by --retriever paper")
	f.BoolVar(&jsonOut, "json", false, "print hits as JSON")
	ef.register(cmd)
	return cmd
}

// retrieverNames lists index.Retrievers as strings.
func retrieverNames() []string {
	out := make([]string, len(index.Retrievers))
	for i, r := range index.Retrievers {
		out[i] = string(r)
	}
	return out
}
