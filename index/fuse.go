package index

import (
	"sort"
)

// Reciprocal rank fusion parameters. A small k and a heavier lexical leg
// keep exact lexical matches at rank 1 while the vector leg lifts recall
// (go-libs §5: weighted RRF k=10, BM25×2, vectors×1).
const (
	rrfK          = 10.0
	lexicalWeight = 2.0
	vectorWeight  = 1.0
	// exactBonus is added to the fused score of an API the query names, so
	// that it ranks above every API found only by the legs.
	exactBonus = 1000.0
	// hintBonus is added for an API named only through an unknown receiver
	// ("df.groupby("): as much as one more first place in the lexical leg.
	hintBonus = lexicalWeight / (rrfK + 1)
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
	exact bool
}

// fuse combines weighted API rankings with reciprocal rank fusion,
// score(api) = Σ w_leg / (rrfK + rank_leg(api)), and puts the APIs in
// exact (in the order given) first; APIs in hinted get hintBonus. Ties
// keep the first leg's order.
func fuse(rankings []apiRanking, weights []float64, exact, hinted []string) []fused {
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
	for _, key := range hinted {
		get(key).score += hintBonus
	}
	for i, key := range exact {
		f := get(key)
		f.exact = true
		f.score += exactBonus - float64(i)*1e-6
	}
	out := make([]fused, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}
