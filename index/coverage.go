package index

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/novelapi/novelapi/bundles"
)

// Document-level text features of the ranker (ranker.go). The legs rank
// units (one component of one API), so an API whose mechanism says
// "variance" and whose example calls .resample() gets no credit for
// covering both words of "variance after resampling", while a unit of
// another API that has both wins. apiTerms records, per API, the terms and
// adjacent term pairs of its names and S, E and M text together, the
// document-level view of BM25F (Robertson, Zaragoza & Taylor, "Simple BM25
// extension to multiple weighted fields", CIKM 2004), so that the ranker
// can measure how much of the question an API covers (featIDFCoverage) and
// whether it has the question's word pairs in order (featBigram, the
// ordered-window feature of Metzler & Croft, "A Markov random field model
// for term dependencies", SIGIR 2005).

// apiTerms holds, for each API key, the sorted IDs of the distinct terms
// of its names and S, E and M text, over one term dictionary, and their
// adjacent pairs.
type apiTerms struct {
	dict map[string]uint32
	keys map[string][]uint32
	// bigrams holds, per API key, the sorted adjacent term-ID pairs
	// (first<<32 | second) of the same text.
	bigrams map[string][]uint64
	dfOnce  sync.Once
	df      []uint32 // term ID → APIs that have it (idf); built on first use
}

func newAPITerms() *apiTerms {
	return &apiTerms{dict: map[string]uint32{}, keys: map[string][]uint32{}, bigrams: map[string][]uint64{}}
}

// build records the terms of each bundle in bs under its key, analysing
// the texts on all cores (Open of a 10k-bundle index: 3.2 s instead of
// 3.7 s on one core; 1.9 s without these features).
func (at *apiTerms) build(bs []bundles.Bundle) {
	seqs := make([][]string, len(bs))
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			a := newIdentAnalyzer()
			for i := w; i < len(bs); i += workers {
				seqs[i] = termSequence(a, &bs[i])
			}
		})
	}
	wg.Wait()
	for i := range bs {
		b := &bs[i]
		at.set(bundleKey(b), seqs[i])
	}
}

// apiText is the text of b that apiTerms records.
func apiText(b *bundles.Bundle) string {
	return strings.Join(b.Names(), " ") + "\n" + componentText(b, CompS) + "\n" + componentText(b, CompE) + "\n" + componentText(b, CompM)
}

// termSequence returns the analysed terms of b's names and S, E and M
// text, in order.
func termSequence(a analysis.Analyzer, b *bundles.Bundle) []string {
	toks := a.Analyze([]byte(apiText(b)))
	out := make([]string, len(toks))
	for i, tok := range toks {
		out[i] = string(tok.Term)
	}
	return out
}

// set records the terms of seq, a sequence of analysed terms, and their
// adjacent pairs under key.
func (at *apiTerms) set(key string, seq []string) {
	ids := make([]uint32, len(seq))
	for i, t := range seq {
		id, ok := at.dict[t]
		if !ok {
			id = uint32(len(at.dict))
			at.dict[t] = id
		}
		ids[i] = id
	}
	var pairs []uint64
	for i := 1; i < len(ids); i++ {
		if ids[i-1] != ids[i] {
			pairs = append(pairs, uint64(ids[i-1])<<32|uint64(ids[i]))
		}
	}
	slices.Sort(pairs)
	at.bigrams[key] = slices.Compact(pairs)
	slices.Sort(ids)
	at.keys[key] = slices.Compact(ids)
}

// idf returns the BM25 inverse document frequency over the APIs of each of
// terms (IDs, -1 for a term no API has), ln(1 + (N − df + 0.5)/(df + 0.5))
// (Robertson & Zaragoza, "The probabilistic relevance framework: BM25 and
// beyond", 2009, eq. 3.3).
func (at *apiTerms) idf(terms []int64) []float64 {
	at.dfOnce.Do(func() {
		at.df = make([]uint32, len(at.dict))
		for _, ids := range at.keys {
			for _, id := range ids {
				at.df[id]++
			}
		}
	})
	n := float64(len(at.keys))
	out := make([]float64, len(terms))
	for i, t := range terms {
		df := 0.0
		if t >= 0 && int(t) < len(at.df) {
			df = float64(at.df[t])
		}
		out[i] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	return out
}

// weightedCoverage returns the share of terms (IDs, -1 for a term no API
// has) found in key's terms, each weighted by w (its idf); 0 when terms is
// empty.
func (at *apiTerms) weightedCoverage(key string, terms []int64, w []float64) float64 {
	have := at.keys[key]
	var got, all float64
	for i, t := range terms {
		all += w[i]
		if t < 0 {
			continue
		}
		if _, ok := slices.BinarySearch(have, uint32(t)); ok {
			got += w[i]
		}
	}
	if all == 0 {
		return 0
	}
	return got / all
}

// queryBigrams returns the adjacent term pairs of the question line of
// text (analysed like the fields) whose terms some API has.
func (at *apiTerms) queryBigrams(ls *lexicalStore, text string) []uint64 {
	a := ls.pool.Get().(analysis.Analyzer)
	toks := a.Analyze([]byte(questionLine(text)))
	ls.pool.Put(a)
	var out []uint64
	for i := 1; i < len(toks); i++ {
		x, ok1 := at.dict[string(toks[i-1].Term)]
		y, ok2 := at.dict[string(toks[i].Term)]
		if ok1 && ok2 && x != y {
			out = append(out, uint64(x)<<32|uint64(y))
		}
	}
	return out
}

// bigramCoverage returns the share of bigrams found in key's text, 0 when
// bigrams is empty.
func (at *apiTerms) bigramCoverage(key string, bigrams []uint64) float64 {
	if len(bigrams) == 0 {
		return 0
	}
	have := at.bigrams[key]
	n := 0
	for _, b := range bigrams {
		if _, ok := slices.BinarySearch(have, b); ok {
			n++
		}
	}
	return float64(n) / float64(len(bigrams))
}

// distinguishing returns the IDs in ix.terms of the query's terms that are
// not common (maxQueryDF), -1 for a term no API has.
func (ix *Index) distinguishing(qterms []queryTerm) []int64 {
	var terms []int64
	for _, t := range qterms {
		if ix.lex.common["body"][t.term] {
			continue
		}
		id, ok := ix.terms.dict[t.term]
		if !ok {
			terms = append(terms, -1)
			continue
		}
		terms = append(terms, int64(id))
	}
	return terms
}
