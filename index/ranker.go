package index

import (
	"context"
	"math"
	"sort"
	"strings"
)

// The ranker orders the fused APIs of a query by a linear score over
// features of what the legs found and of the API's own text: learning to
// rank with a linear model (Liu, "Learning to rank for information
// retrieval", 2009, §2). An internal-path prior, a library hint and
// coverage of the question's terms are features with fitted weights, not
// hand-tuned factors.
//
// The weights are fitted by bench/ltr (a pairwise logistic loss, RankNet)
// on the natural-language query sets and the task pool, and checked
// leave-one-set-out (figures: docs/retrieval.md, docs/changelog.md).

// Features of a candidate API, in this order (RankCandidate.Features,
// FeatureNames). None depends on a query set; the sets only fit weights.
const (
	featLexNorm      = iota // BM25 of the API's best unit / the query's best BM25 (0 when the lexical leg missed it)
	featLogFused            // ln of the API's RRF score (fuse), without the exact-name bonus
	featIDFCoverage         // idf-weighted share of the question's distinguishing terms in the API's names, S, E and M
	featBigram              // share of the question's adjacent term pairs adjacent in the API's names, S, E or M
	featInternal            // 1 when the API has no public import path (prior.go)
	featOtherLibrary        // 1 when the question names one library and the API is not in it
	featSimS                // cosine of the API's S unit to the query (0 when the vector leg missed it)
	featSimM                // cosine of the API's M unit
	featLexS                // ln(1 + BM25) of the API's S unit (0 when the lexical leg missed it)
	featLexE                // ln(1 + BM25) of its E unit
	featLexM                // ln(1 + BM25) of its M unit
	featObjectType          // 1 when the question names the API as the type of an object it holds ("a `C` object")
	featObjectMember        // 1 when the API is a method of such a class
	featContextCall         // 1 when the query's context (the lines after the question) calls the API's leaf
	nFeatures
)

// FeatureNames names the ranker's features, in RankCandidate.Features
// order.
var FeatureNames = [nFeatures]string{"lex_norm", "log_fused", "idf_coverage", "bigram", "internal", "other_library", "sim_s", "sim_m", "lex_s", "lex_e", "lex_m", "object_type", "object_member", "context_call"}

// rankerWeights are the ranker's weights, in FeatureNames order, as
// printed by `go run ./bench/ltr` (see the comment above). Refit them when
// a feature or a leg changes, and change RankingVersion.
var rankerWeights = [nFeatures]float64{1.555, 1.418, 5.936, 3.866, -3.269, -4.146, 1.857, 7.138, 0.3437, 1.722, -1.314, -0.9551, 1.581, -3.15}

// RankerWeights returns a copy of the ranker's weights, in FeatureNames
// order.
func RankerWeights() []float64 { return append([]float64(nil), rankerWeights[:]...) }

// features returns the feature vectors of the APIs of c.fs.
func (ix *Index) features(c *candidates, text string) [][nFeatures]float64 {
	out := make([][nFeatures]float64, len(c.fs))
	var (
		terms   []int64
		idf     []float64
		bigrams []uint64
	)
	if ix.terms != nil {
		terms = ix.distinguishing(c.qterms)
		idf = ix.terms.idf(terms)
		bigrams = ix.terms.queryBigrams(ix.lex, text)
	}
	var lexTop float64
	for _, s := range c.lexScore {
		lexTop = max(lexTop, s)
	}
	lib := ix.libWords.named(text)
	_, context, _ := strings.Cut(text, "\n")
	for i, fu := range c.fs {
		x := &out[i]
		if lexTop > 0 {
			x[featLexNorm] = c.lexScore[fu.key] / lexTop
		}
		if legs := fu.score - fu.bonus; legs > 0 {
			x[featLogFused] = math.Log(legs)
		}
		if ix.terms != nil {
			x[featIDFCoverage] = ix.terms.weightedCoverage(fu.key, terms, idf)
			x[featBigram] = ix.terms.bigramCoverage(fu.key, bigrams)
		}
		if !ix.public[fu.key] {
			x[featInternal] = 1
		}
		if b := ix.byKey[fu.key]; lib != "" && b != nil && b.Library != lib {
			x[featOtherLibrary] = 1
		}
		sim, lex := c.compSim[fu.key], c.compLex[fu.key]
		x[featSimS], x[featSimM] = sim[compIndex(CompS)], sim[compIndex(CompM)]
		x[featLexS] = math.Log1p(lex[compIndex(CompS)])
		x[featLexE] = math.Log1p(lex[compIndex(CompE)])
		x[featLexM] = math.Log1p(lex[compIndex(CompM)])
		api, _, _ := strings.Cut(fu.key, "@")
		owner := ownerOf(fu.key)
		for _, k := range c.objectTypes {
			t, _, _ := strings.Cut(k, "@")
			if t == api {
				x[featObjectType] = 1
			}
			if owner != "" && t == owner {
				x[featObjectMember] = 1
			}
		}
		if calledIn(context, leafOf(api)) {
			x[featContextCall] = 1
		}
	}
	return out
}

// compIndex returns the index of component S, E or M in the per-component
// arrays of candidates, -1 for others.
func compIndex(comp string) int {
	if len(comp) != 1 {
		return -1
	}
	return strings.Index("SEM", comp)
}

// rerank sets the score of each API of fs (c.fs) to its exact-name bonus
// plus the ranker's score, and sorts fs by it: the APIs the query names
// first, then the others by the ranker (ties keep the fused order).
func (ix *Index) rerank(fs []fused, c *candidates, text string) {
	for i, x := range ix.features(c, text) {
		s := 0.0
		for j, w := range rankerWeights {
			s += w * x[j]
		}
		fs[i].score = fs[i].bonus + s
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].score > fs[j].score })
}

// A RankCandidate is one fused API of a query with its ranking features,
// for fitting and checking the ranker (bench/ltr).
type RankCandidate struct {
	APIName  string    `json:"api_name"`
	Version  string    `json:"version"`
	Exact    bool      `json:"exact"`    // named by the query (ranked first regardless)
	Features []float64 `json:"features"` // in FeatureNames order
}

// RankFeatures returns the fused APIs of a Hybrid search for q in fused
// order (before the ranker), with their features. q is validated as by
// Search (the same errors); its retriever is ignored.
func (ix *Index) RankFeatures(ctx context.Context, q Query) ([]RankCandidate, error) {
	if ix.closed {
		return nil, ErrClosed
	}
	q.Retriever = Hybrid
	q, f, err := ix.validate(q)
	if err != nil {
		return nil, err
	}
	c, err := ix.candidates(ctx, q, f)
	if err != nil {
		return nil, err
	}
	xs := ix.features(c, q.Text)
	out := make([]RankCandidate, len(xs))
	for i := range xs {
		out[i] = RankCandidate{Exact: c.fs[i].exact(), Features: append([]float64(nil), xs[i][:]...)}
		if b := ix.byKey[c.fs[i].key]; b != nil {
			out[i].APIName, out[i].Version = b.APIName, bundleVersion(b)
		}
	}
	return out, nil
}
