package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// indexStore adapts an *index.Index to [Store].
type indexStore struct {
	ix *index.Index
}

var _ Store = indexStore{}

// NewIndexStore wraps an open index; closing the Store closes it.
func NewIndexStore(ix *index.Index) Store { return indexStore{ix} }

// OpenIndex opens the index in dir (index.OpenLive with the embedder
// recorded in its manifest) as a [Snapshotter] that follows the directory:
// each new generation a build makes live is served from the first request
// after it, at most index.DefaultCheckEvery later. Notices, such as vector
// search being off, go to log (nil means slog.Default()).
func OpenIndex(ctx context.Context, dir string, log *slog.Logger) (Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := index.OpenLive(dir, index.LiveOptions{OpenOptions: index.OpenOptions{Logger: log}})
	if err != nil {
		return nil, err
	}
	return NewLiveStore(l), nil
}

// liveStore adapts an *index.Live to [Snapshotter].
type liveStore struct {
	l *index.Live
}

var _ Snapshotter = liveStore{}

// NewLiveStore wraps an index that follows its directory; closing the
// Store closes it.
func NewLiveStore(l *index.Live) Store { return liveStore{l} }

func (s liveStore) Snapshot() (Store, string, func()) {
	ix, release := s.l.Acquire()
	return indexStore{ix}, ix.Manifest().Generation, release
}

// now runs f on the generation live now.
func now[T any](s liveStore, f func(indexStore) T) T {
	ix, release := s.l.Acquire()
	defer release()
	return f(indexStore{ix})
}

func (s liveStore) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	ix, release := s.l.Acquire()
	defer release()
	return indexStore{ix}.Search(ctx, q)
}

func (s liveStore) Bundle(name, version string) (*bundles.Bundle, bool) {
	ix, release := s.l.Acquire()
	defer release()
	return indexStore{ix}.Bundle(name, version)
}

func (s liveStore) BundleFrom(name, version, source string) (*bundles.Bundle, bool) {
	ix, release := s.l.Acquire()
	defer release()
	return indexStore{ix}.BundleFrom(name, version, source)
}

func (s liveStore) Bundles() []bundles.Bundle {
	return now(s, func(st indexStore) []bundles.Bundle { return st.Bundles() })
}
func (s liveStore) Notices() []string { return now(s, indexStore.Notices) }
func (s liveStore) Info() StoreInfo   { return now(s, indexStore.Info) }
func (s liveStore) Close() error      { return s.l.Close() }

func (s indexStore) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	iq := index.Query{Text: q.Text, Library: q.Library, Version: q.Version, K: q.K}
	for _, c := range []struct {
		mask bundles.Components
		name string
	}{{bundles.CompS, index.CompS}, {bundles.CompE, index.CompE}, {bundles.CompM, index.CompM}, {bundles.CompC, index.CompC}} {
		if q.Components&c.mask != 0 {
			iq.Components = append(iq.Components, c.name)
		}
	}
	hits, err := s.ix.Search(ctx, iq)
	if err != nil {
		if ae, ok := errors.AsType[*index.ArgError](err); ok {
			return nil, argErrorf("search_apis: %v", ae)
		}
		if errors.Is(err, index.ErrEmptyQuery) || errors.Is(err, index.ErrQueryTooLong) {
			return nil, argErrorf("search_apis: %v", err)
		}
		return nil, err
	}
	// Vectors always return neighbours; when neither the lexical leg nor a
	// name matched, they are only that, and the answer stays small.
	weak := len(hits) > 0
	for _, h := range hits {
		weak = weak && !h.Exact
	}
	if weak {
		lq := iq
		lq.Retriever, lq.K = index.BM25, 1
		lex, err := s.ix.Search(ctx, lq)
		if err != nil {
			return nil, err
		}
		weak = len(lex) == 0
	}
	out := make([]SearchHit, len(hits))
	for i, h := range hits {
		out[i] = SearchHit{APIName: h.APIName, Library: h.Library, Version: h.Version, Source: h.Source, Score: h.Score, Weak: weak, Exact: h.Exact}
	}
	return out, nil
}

func (s indexStore) Bundle(name, version string) (*bundles.Bundle, bool) {
	return s.ix.BundleAt(name, version)
}

func (s indexStore) BundleFrom(name, version, source string) (*bundles.Bundle, bool) {
	return s.ix.BundleFrom(name, version, source)
}

func (s indexStore) Bundles() []bundles.Bundle { return s.ix.Bundles() }

func (s indexStore) Notices() []string {
	var out []string
	if !s.ix.VectorEnabled() {
		out = append(out, "vector search is off; results are lexical (BM25 and exact names) only")
	}
	for _, n := range s.ix.Notices() {
		out = append(out, fmt.Sprint(n))
	}
	return out
}

func (s indexStore) Info() StoreInfo {
	m := s.ix.Manifest()
	info := StoreInfo{Generation: m.Generation, Bundles: m.Bundles}
	if m.Skipped != nil {
		info.Skipped, info.SkippedNames = m.Skipped.Count, m.Skipped.Items
	}
	return info
}

func (s indexStore) Close() error { return s.ix.Close() }
