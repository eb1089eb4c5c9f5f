package index

import (
	"sort"
)

// RankingVersion names the ranking rules of this code (field boosts,
// fusion weights, RRF k, name rules, the ranker's features and weights). It
// changes whenever a rule changes, so that retrieval figures saved under
// older rules are recomputed rather than reused (docs/changelog.md).
const RankingVersion = "2026-12-07.1"

// Reciprocal rank fusion parameters. A small k and a heavier lexical leg
// keep exact lexical matches at rank 1 while the vector leg lifts recall
// (weighted RRF, BM25×2, vectors×1). k=5 rather than the 10 often used: a
// leg's first places count more against its tail, which the long
// task queries (description + context code) need; chosen on the nl,
// smoke and task sets together, with k=5..7 within noise of each other
// (docs/retrieval.md).
const (
	rrfK          = 5.0
	lexicalWeight = 2.0
	vectorWeight  = 1.0
	// exactBonus is added to the fused score of an API the query names, so
	// that it ranks above every API found only by the legs.
	exactBonus = 1000.0
)

// apiRanking is one leg's ranking of APIs: keys best first, and for each key
// the components of its units that the leg found.
type apiRanking struct {
	keys  []string
	comps map[string]map[string]bool
}

// rankAPIs collapses a ranked list of unit IDs into a ranking of APIs (an
// API's rank is that of its best unit), recording the matched components.
func rankAPIs(ids []string) apiRanking {
	r := apiRanking{comps: map[string]map[string]bool{}}
	for _, id := range ids {
		key, comp := unitKey(id)
		m := r.comps[key]
		if m == nil {
			m = map[string]bool{}
			r.comps[key] = m
			r.keys = append(r.keys, key)
		}
		m[comp] = true
	}
	return r
}

// fused is one API after fusion.
type fused struct {
	key   string
	score float64
	comps map[string]bool
	bonus float64 // the part of score the exact-name rule added; 0 unless the query names the API
}

// exact reports whether the query names the API (the exact-name rule gave
// it a bonus, which is never 0: exactBonus less a millionth per place).
func (f *fused) exact() bool { return f.bonus != 0 }

// fuse combines weighted API rankings with reciprocal rank fusion,
// score(api) = Σ w_leg / (rrfK + rank_leg(api)), and puts the APIs in
// exact (in the order given) first. Ties keep the first leg's order.
func fuse(rankings []apiRanking, weights []float64, exact []string) []fused {
	byKey := map[string]*fused{}
	var order []string
	get := func(key string) *fused {
		f := byKey[key]
		if f == nil {
			f = &fused{key: key, comps: map[string]bool{}}
			byKey[key] = f
			order = append(order, key)
		}
		return f
	}
	for li, r := range rankings {
		for rank, key := range r.keys {
			f := get(key)
			f.score += weights[li] / (rrfK + float64(rank+1))
			for c := range r.comps[key] {
				f.comps[c] = true
			}
		}
	}
	for i, key := range exact {
		f := get(key)
		f.bonus = exactBonus - float64(i)*1e-6
		f.score += f.bonus
	}
	out := make([]fused, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}
