package index

import (
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/novelapi/novelapi/bundles"
)

// Coverage re-ranking. The legs rank units (one component of one API), so
// an API whose mechanism says "variance" and whose example calls
// .resample() gets no credit for covering both words of "variance after
// resampling", while a unit of another API that has both wins. After
// fusion the scores of the first coverageDepth APIs (without the bonus of
// the APIs the query names) are scaled by 1 + coverageWeight × coverage, coverage being the share of the
// query's distinguishing terms (analysed like the lexical leg, those of
// maxQueryDF left out) found anywhere in the API's names, S, E or M text:
// the document-level view of BM25F (Robertson, Zaragoza & Taylor, "Simple
// BM25 extension to multiple weighted fields", CIKM 2004) applied as a
// re-ranking. Weight and depth were chosen on the nl, held-out 1–6, smoke
// and task sets (weights 0.3–3 all gained; 1.5–3 within noise of each
// other; depths 15, 30 and 50 gave the same figures) and measured blind on
// nl-heldout7 (docs/retrieval.md).
const (
	coverageWeight = 2.0
	coverageDepth  = 20
)

// apiTerms holds, for each API key, the sorted IDs of the distinct terms
// of its names and S, E and M text, over one term dictionary.
type apiTerms struct {
	dict map[string]uint32
	keys map[string][]uint32
}

func newAPITerms() *apiTerms {
	return &apiTerms{dict: map[string]uint32{}, keys: map[string][]uint32{}}
}

// build records the terms of each bundle in bs under its key, analysing
// the texts on all cores (Open of a 10k-bundle index: 3.2 s instead of
// 3.7 s on one core; 1.9 s without coverage).
func (at *apiTerms) build(bs []bundles.Bundle) {
	terms := make([][]string, len(bs))
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			a := newIdentAnalyzer()
			for i := w; i < len(bs); i += workers {
				terms[i] = analysedTerms(a, &bs[i])
			}
		})
	}
	wg.Wait()
	for i := range bs {
		b := &bs[i]
		at.set(apiKey(b.APIName, bundleVersion(b)), terms[i])
	}
}

// analysedTerms returns the distinct analysed terms of b's names and S, E
// and M text.
func analysedTerms(a analysis.Analyzer, b *bundles.Bundle) []string {
	text := strings.Join(b.Names(), " ") + "\n" + componentText(b, CompS) + "\n" + componentText(b, CompE) + "\n" + componentText(b, CompM)
	seen := map[string]bool{}
	var out []string
	for _, tok := range a.Analyze([]byte(text)) {
		if t := string(tok.Term); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// set records terms under key.
func (at *apiTerms) set(key string, terms []string) {
	ids := make([]uint32, len(terms))
	for i, t := range terms {
		id, ok := at.dict[t]
		if !ok {
			id = uint32(len(at.dict))
			at.dict[t] = id
		}
		ids[i] = id
	}
	slices.Sort(ids)
	at.keys[key] = slices.Compact(ids)
}

// coverage returns the share of terms (IDs, -1 for a term no API has)
// found in key's terms, 0 when terms is empty.
func (at *apiTerms) coverage(key string, terms []int64) float64 {
	if len(terms) == 0 {
		return 0
	}
	have := at.keys[key]
	n := 0
	for _, t := range terms {
		if t < 0 {
			continue
		}
		if _, ok := slices.BinarySearch(have, uint32(t)); ok {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}

// applyCoverage scales the first coverageDepth of fs by their coverage of
// the distinguishing ones of the query's terms qterms and re-sorts them
// (scores only grow, so they stay above the rest).
func (ix *Index) applyCoverage(fs []fused, qterms []queryTerm) {
	if ix.terms == nil {
		return
	}
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
	if len(terms) == 0 {
		return
	}
	n := min(len(fs), coverageDepth)
	for i := range fs[:n] {
		// An API the query names keeps its bonus as it is and first place;
		// the rest of its score is scaled like the others', so that the
		// scores shown stay comparable.
		legs := fs[i].score - fs[i].bonus
		fs[i].score = fs[i].bonus + legs*(1+coverageWeight*ix.terms.coverage(fs[i].key, terms))
	}
	sort.SliceStable(fs[:n], func(i, j int) bool { return fs[i].score > fs[j].score })
}
