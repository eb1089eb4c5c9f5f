package importers

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// A RetrievalFigures row gives hit@k of one retriever over an imported
// pool's tasks, overall and per group.
type RetrievalFigures struct {
	Retriever string `json:"retriever"`
	K         int    `json:"k"`
	Query     string `json:"query"` // which task text was the query
	N         int    `json:"n"`
	// HitAPI counts tasks whose target API name is among the top K hits.
	HitAPI int `json:"hit_api"`
	// HitExact counts tasks whose own bundle (api_name and bundle_version,
	// the exact CodeUpdateArena update) is among the top K hits.
	HitExact int               `json:"hit_exact"`
	PerGroup map[string][2]int `json:"per_group_exact"` // group → {hits, n}
}

// RetrievalHits searches ix with each task's problem statement (for
// CodeUpdateArena the example's problem text, i.e. the description without
// its scenario and solution signature) and counts the tasks whose updated
// function is among the top k hits of retriever r, restricted to the
// task's library (the imported set): hit@5 of the updated function when
// the problem text is the query.
func RetrievalHits(ctx context.Context, ix *index.Index, tasks []*Task, k int, r index.Retriever) (RetrievalFigures, error) {
	f := RetrievalFigures{Retriever: string(r), K: k, Query: "problem", PerGroup: map[string][2]int{}}
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return f, context.Cause(ctx)
		}
		q := problemText(t)
		if len(q) > index.MaxQueryBytes {
			q = q[:index.MaxQueryBytes]
		}
		hits, err := ix.Search(ctx, index.Query{Text: q, Library: t.Library, K: k, Retriever: r})
		if err != nil {
			return f, err
		}
		f.N++
		g := f.PerGroup[t.Group]
		g[1]++
		if slices.ContainsFunc(hits, func(h index.Hit) bool { return h.APIName == t.APIName }) {
			f.HitAPI++
		}
		if slices.ContainsFunc(hits, func(h index.Hit) bool {
			return h.APIName == t.APIName && (t.BundleVersion == "" || h.Version == t.BundleVersion)
		}) {
			f.HitExact++
			g[0]++
		}
		f.PerGroup[t.Group] = g
	}
	return f, nil
}

// problemText is the task's problem statement: for imported
// CodeUpdateArena tasks the middle paragraph of the description (the
// example's problem), else the whole description.
func problemText(t *Task) string {
	if t.Origin == ArenaOrigin {
		parts := strings.Split(t.Description, "\n\n")
		if len(parts) >= 3 {
			return parts[1]
		}
	}
	return t.Description
}

// PoolRetrieval computes [RetrievalHits] for the hybrid, BM25 and vector
// retrievers over the pool in dir. idxDir "" means dir/index, built from
// dir/bundles.jsonl with the default embedder when it holds no index.
// log receives the index's messages; nil means slog.Default().
func PoolRetrieval(ctx context.Context, dir, idxDir string, k int, log *slog.Logger) ([]RetrievalFigures, error) {
	if idxDir == "" {
		idxDir = filepath.Join(dir, "index")
	}
	ix, err := index.Open(idxDir, index.OpenOptions{Logger: log})
	if errors.Is(err, index.ErrNoIndex) {
		bs, _, rerr := bundles.ReadBundles(filepath.Join(dir, BundlesFile), jsonl.ReadOptions{})
		if rerr != nil {
			return nil, rerr
		}
		if _, err := index.Build(ctx, idxDir, bs, index.BuildConfig{Logger: log}); err != nil {
			return nil, err
		}
		ix, err = index.Open(idxDir, index.OpenOptions{Logger: log})
	}
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	tasks, err := LoadPool(dir)
	if err != nil {
		return nil, err
	}
	var out []RetrievalFigures
	for _, r := range []index.Retriever{index.Hybrid, index.BM25, index.Vector} {
		f, err := RetrievalHits(ctx, ix, tasks, k, r)
		if errors.Is(err, index.ErrVectorDisabled) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}
