// Command docsmcp measures novelapi's hybrid retrieval against the method
// of docs-mcp-server, the most used local documentation server, in one
// run over the same bundles and queries: each bundle is one Markdown page
// (page.go), split at 500 / 1,500 / 5,000 characters on headings and code
// blocks (split.go), stored in SQLite FTS5 with the 'porter unicode61'
// tokenizer and ranked by bm25 with weights 10, 1, 5, 1 over content,
// title, url and path, the query sent as "whole query" OR ("t1" OR "t2"
// ...) (store.go). docs/retrieval.md gives the figures.
//
//	go run . --index DIR [--tasks tasks.jsonl] [--by-library] [SET.jsonl ...]
//
// (from bench/docsmcp, or bench/docsmcp.sh from anywhere). Without SET
// arguments every bench/queries/nl*.jsonl is run. For each set it prints
// hit@1, hit@5 and MRR of novelapi's hybrid ranking, of the peer over all
// libraries (no filter, as novelapi's figures), and of the peer scoped to
// the query's library (its search always names one), then the hybrid /
// peer ratios. This is a module of its own so that the SQLite driver stays
// out of novelapi's go.mod and build.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/novelapi/novelapi/bench/internal/querysets"
	"github.com/novelapi/novelapi/index"
)

func main() {
	dir := flag.String("index", "", "index directory (required)")
	tasks := flag.String("tasks", "", "tasks.jsonl to evaluate as well (query = description + context)")
	noSource := flag.Bool("no-source", false, "leave the implementation (C) out of the peer's pages")
	byLib := flag.Bool("by-library", false, "print a row per library under each set")
	flag.StringVar(&missesPath, "misses", "", "write a JSON line per query where hybrid or the peer misses rank 1 to this file")
	flag.Parse()
	if err := run(context.Background(), *dir, *tasks, !*noSource, *byLib, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bench/docsmcp:", err)
		os.Exit(1)
	}
}

// figures are hit@1, hit@5 and MRR over n queries.
type figures struct {
	n                  int
	hit1, hit5, mrrSum float64
}

func (f *figures) add(rank int) {
	f.n++
	if rank <= 0 {
		return
	}
	if rank == 1 {
		f.hit1++
	}
	if rank <= 5 {
		f.hit5++
	}
	f.mrrSum += 1 / float64(rank)
}

func (f figures) rates() (h1, h5, mrr float64) {
	if f.n == 0 {
		return 0, 0, 0
	}
	n := float64(f.n)
	return f.hit1 / n, f.hit5 / n, f.mrrSum / n
}

// missesPath, when not "", receives a JSON line per query that hybrid or
// the peer (over all libraries) does not rank first: the set, the target,
// both ranks and both top three.
var missesPath string

// A miss is one line of the --misses file.
type miss struct {
	Set    string   `json:"set"`
	API    string   `json:"api_name"`
	Query  string   `json:"query"`
	Hybrid int      `json:"hybrid_rank"`
	Peer   int      `json:"peer_rank"`
	TopH   []string `json:"hybrid_top"`
	TopP   []string `json:"peer_top"`
}

func run(ctx context.Context, dir, tasks string, withSource, byLib bool, sets []string) error {
	if dir == "" {
		return fmt.Errorf("--index is required")
	}
	sets, err := querysets.Files(sets, tasks)
	if err != nil {
		return err
	}
	if len(sets) == 0 {
		return fmt.Errorf("no query sets (run from the repository root, or name the sets)")
	}
	ix, err := index.Open(dir, index.OpenOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer ix.Close()
	start := time.Now()
	bs := ix.Bundles()
	pages := make([]page, len(bs))
	for i := range bs {
		pages[i] = pageOf(&bs[i], withSource)
	}
	st, err := openStore(ctx, pages)
	if err != nil {
		return err
	}
	defer st.Close()
	m := ix.Manifest()
	fmt.Printf("index %s: %d bundles, embedder %s, ranking %s\n", dir, m.Bundles, m.Embedder.ID, index.RankingVersion)
	fmt.Printf("peer (docs-mcp-server's method): %d pages, %d chunks, source in pages %v, built in %.1fs\n\n",
		st.pages, st.chunks, withSource, time.Since(start).Seconds())
	var misses *json.Encoder
	if missesPath != "" {
		f, err := os.Create(missesPath)
		if err != nil {
			return err
		}
		defer f.Close()
		misses = json.NewEncoder(f)
	}
	fmt.Printf("%-22s %5s | %-23s | %-23s | %-23s | %-13s\n", "", "", "hybrid (novelapi)", "peer, all libraries", "peer, own library", "hybrid / peer")
	fmt.Printf("%-22s %5s | %7s %7s %7s | %7s %7s %7s | %7s %7s %7s | %6s %6s\n", "set", "n",
		"hit@1", "hit@5", "MRR", "hit@1", "hit@5", "MRR", "hit@1", "hit@5", "MRR", "hit@1", "hit@5")
	for _, set := range sets {
		qs, err := index.LoadEvalQueries(set)
		if err != nil {
			return err
		}
		rep, err := index.Evaluate(ctx, ix, qs, index.EvalConfig{Retrievers: []index.Retriever{index.Hybrid}})
		if err != nil {
			return err
		}
		all, own := map[string]*figures{"": {}}, map[string]*figures{"": {}}
		var libs []string
		for _, q := range qs {
			target, lib := q.APIName, q.Library
			if b, ok := ix.Bundle(q.APIName); ok {
				target = b.APIName
				if lib == "" {
					lib = b.Library
				}
			}
			text := truncate(q.Query, index.MaxQueryBytes)
			ra, err := peerRank(ctx, st, text, "", target)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", set, q.APIName, err)
			}
			ro, err := peerRank(ctx, st, text, lib, target)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", set, q.APIName, err)
			}
			if misses != nil {
				if err := writeMiss(ctx, misses, ix, st, set, q.Query, text, target, ra); err != nil {
					return err
				}
			}
			if all[lib] == nil {
				all[lib], own[lib] = &figures{}, &figures{}
				libs = append(libs, lib)
			}
			for _, k := range []string{"", lib} {
				all[k].add(ra)
				own[k].add(ro)
			}
		}
		name := strings.TrimSuffix(filepath.Base(set), ".jsonl")
		printRow(name, rep, "", *all[""], *own[""])
		if byLib {
			slices.Sort(libs)
			for _, lib := range libs {
				printRow("  "+lib, rep, lib, *all[lib], *own[lib])
			}
		}
	}
	return nil
}

func printRow(name string, rep *index.EvalReport, lib string, all, own figures) {
	h, _ := rep.Row(index.Hybrid, "", lib)
	a1, a5, am := all.rates()
	o1, o5, om := own.rates()
	fmt.Printf("%-22s %5d | %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f | %5.2fx %5.2fx\n",
		name, h.N, h.HitAt1, h.HitAt5, h.MRR, a1, a5, am, o1, o5, om, ratio(h.HitAt1, a1), ratio(h.HitAt5, a5))
}

// writeMiss writes the line of one query to the --misses file when hybrid
// or the peer does not rank target first.
func writeMiss(ctx context.Context, enc *json.Encoder, ix *index.Index, st *store, set, query, text, target string, peer int) error {
	hits, err := ix.Search(ctx, index.Query{Text: text, Retriever: index.Hybrid, K: index.MaxK})
	if err != nil {
		return err
	}
	m := miss{Set: strings.TrimSuffix(filepath.Base(set), ".jsonl"), API: target, Query: query, Peer: peer}
	for _, h := range hits {
		if h.APIName == target {
			m.Hybrid = h.Rank
		}
		if len(m.TopH) < 3 {
			m.TopH = append(m.TopH, h.APIName)
		}
	}
	if m.Hybrid == 1 && peer == 1 {
		return nil
	}
	if m.TopP, err = st.search(ctx, text, "", 3); err != nil {
		return err
	}
	return enc.Encode(m)
}

// peerRank is the 1-based rank of target among the peer's first
// index.MaxK APIs for q (0 when not among them).
func peerRank(ctx context.Context, st *store, q, library, target string) (int, error) {
	apis, err := st.search(ctx, q, library, index.MaxK)
	if err != nil {
		return 0, err
	}
	return slices.Index(apis, target) + 1, nil
}

// truncate cuts s to at most n bytes at a rune boundary, as index.Evaluate
// cuts queries.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
