// Command retrieval prints the retrieval figures of docs/retrieval.md in one run: for
// each natural-language query set under bench/queries (and the tasks pool
// when given), hybrid hit@1 / hit@5 / MRR, bm25 and vector hit@5, the
// paper baseline's hit@5 (condition Full, docs/protocol.md §6) and
// the hybrid / paper ratio; then the pooled figures of the held-out sets
// against the targets (hit@5 >= 0.90, >= 1.3x paper).
//
//	go run ./bench/retrieval --index DIR [--tasks tasks.jsonl] [SET.jsonl ...]
//
// Without SET arguments every bench/queries/nl*.jsonl is run. The sets a
// ranking rule was chosen on are marked in docs/retrieval.md; the pooled
// line is only as blind as the sets in it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/novelapi/novelapi/bench/internal/querysets"
	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

func main() {
	dir := flag.String("index", "", "index directory (required)")
	tasks := flag.String("tasks", "", "tasks.jsonl to evaluate as well (query = description + context)")
	flag.Parse()
	if err := run(*dir, *tasks, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bench/retrieval:", err)
		os.Exit(1)
	}
}

func run(dir, tasks string, sets []string) error {
	if dir == "" {
		return fmt.Errorf("--index is required")
	}
	sets, err := querysets.Files(sets, tasks)
	if err != nil {
		return err
	}
	ix, err := index.Open(dir, index.OpenOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer ix.Close()
	m := ix.Manifest()
	fmt.Printf("index %s: %d bundles, embedder %s, ranking %s\n", dir, m.Bundles, m.Embedder.ID, index.RankingVersion)
	fmt.Printf("%-22s %5s | %7s %7s %7s | %9s %11s %10s %11s | %6s %6s\n", "set", "n", "hit@1", "hit@5", "MRR", "bm25 h@5", "vector h@5", "paper h@5", "shared h@5", "ratio", "/shared")
	var pooledN int
	var pooledHit, pooledPaper, pooledShared float64
	for _, set := range sets {
		qs, err := index.LoadEvalQueries(set)
		if err != nil {
			return err
		}
		rep, err := index.Evaluate(context.Background(), ix, qs, index.EvalConfig{Conditions: index.SharedHitConditions})
		if err != nil {
			return err
		}
		h, _ := rep.Row(index.Hybrid, "", "")
		b, _ := rep.Row(index.BM25, "", "")
		v, _ := rep.Row(index.Vector, "", "")
		p, _ := rep.Row(index.Paper, string(bundles.CondFull), "")
		sh, _ := rep.Row(index.Paper, index.PaperShared, "")
		name := strings.TrimSuffix(filepath.Base(set), ".jsonl")
		fmt.Printf("%-22s %5d | %7.3f %7.3f %7.3f | %9.3f %11.3f %10.3f %11.3f | %5.2fx %5.2fx\n", name, h.N, h.HitAt1, h.HitAt5, h.MRR, b.HitAt5, v.HitAt5, p.HitAt5, sh.HitAt5,
			ratio(h.HitAt5, p.HitAt5), ratio(h.HitAt5, sh.HitAt5))
		if strings.HasPrefix(name, "nl-heldout") {
			pooledN += h.N
			pooledHit += h.HitAt5 * float64(h.N)
			pooledPaper += p.HitAt5 * float64(p.N)
			pooledShared += sh.HitAt5 * float64(sh.N)
		}
	}
	if pooledN > 0 {
		hit, paper, shared := pooledHit/float64(pooledN), pooledPaper/float64(pooledN), pooledShared/float64(pooledN)
		fmt.Printf("\nheld-out sets pooled (n=%d): hybrid hit@5 %.3f (target 0.90: %.2f of it), paper(Full) %.3f, ratio %.2fx (target 1.3x); paper shared-hit %.3f, ratio %.2fx\n",
			pooledN, hit, hit/0.90, paper, ratio(hit, paper), shared, ratio(hit, shared))
	}
	return nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
