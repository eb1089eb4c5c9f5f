package index

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// Field boosts of the lexical leg. A name term counts half a body term:
// the name field holds every segment of the qualified names, so a question's
// ordinary words ("sample", "dataframe", "array") matched module and class
// segments (scipy.stats.sampling, pandas.core.interchange.dataframe) and
// outranked the API whose documentation answers it. Queries that name an
// API are served by the exact-name rule (names.go), not by this boost
// (figures: docs/changelog.md).
const (
	nameBoost = 0.5
	bodyBoost = 1.0
)

// newMapping returns the lexical index mapping: BM25 scoring (bleve's
// v2 default is tf-idf), the identifier analyzer on the name and
// body fields, and keyword fields for the exact filters. Nothing is stored
// and there is no _all field: hits are resolved through their IDs.
func newMapping() *mapping.IndexMappingImpl {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bleveindex.BM25Scoring
	im.DefaultAnalyzer = identAnalyzerName
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false

	text := bleve.NewTextFieldMapping()
	text.Analyzer = identAnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	kw := bleve.NewKeywordFieldMapping()
	kw.Store = false
	kw.IncludeTermVectors = false
	kw.IncludeInAll = false
	kw.DocValues = false

	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("name", text)
	dm.AddFieldMappingsAt("body", text)
	for _, f := range []string{"api", "library", "version", "novelty", "component"} {
		dm.AddFieldMappingsAt(f, kw)
	}
	im.DefaultMapping = dm
	return im
}

// createLexical creates a new on-disk scorch index at path.
func createLexical(path string) (bleve.Index, error) {
	idx, err := bleve.NewUsing(path, newMapping(), "scorch", bleve.Config.DefaultKVStore, nil)
	if err != nil {
		return nil, fmt.Errorf("create lexical index %s: %w", path, err)
	}
	return idx, nil
}

// openLexical opens the scorch index at path, read-only unless writable.
func openLexical(path string, writable bool) (bleve.Index, error) {
	cfg := map[string]any{"bolt_timeout": "5s"}
	if !writable {
		cfg["read_only"] = true
	}
	idx, err := bleve.OpenUsing(path, cfg)
	if err != nil {
		return nil, fmt.Errorf("open lexical index %s: %w", path, err)
	}
	return idx, nil
}

// indexUnits adds units to idx in batches of 1000.
func indexUnits(ctx context.Context, idx bleve.Index, units []unit, progress func(int)) error {
	b := idx.NewBatch()
	for i := range units {
		if err := b.Index(units[i].ID, units[i].doc()); err != nil {
			return fmt.Errorf("index %s: %w", units[i].ID, err)
		}
		if b.Size() >= 1000 {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
			if err := idx.Batch(b); err != nil {
				return fmt.Errorf("write lexical batch: %w", err)
			}
			b.Reset()
		}
		if progress != nil {
			progress(1)
		}
	}
	if b.Size() > 0 {
		if err := idx.Batch(b); err != nil {
			return fmt.Errorf("write lexical batch: %w", err)
		}
	}
	return nil
}

// lexicalHit is one unit found by the lexical leg.
type lexicalHit struct {
	ID    string
	Score float64
}

// filterQuery returns the exact-filter part of a search ("" and nil mean
// no filter), or nil.
func filterQuery(library, version string, comps []string) query.Query {
	var qs []query.Query
	term := func(field, v string) query.Query {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		return t
	}
	if library != "" {
		qs = append(qs, term("library", library))
	}
	if version != "" {
		qs = append(qs, term("version", version))
	}
	if len(comps) > 0 {
		var cs []query.Query
		for _, c := range comps {
			cs = append(cs, term("component", c))
		}
		qs = append(qs, bleve.NewDisjunctionQuery(cs...))
	}
	switch len(qs) {
	case 0:
		return nil
	case 1:
		return qs[0]
	}
	return bleve.NewConjunctionQuery(qs...)
}

// A lexicalStore is the lexical leg of one generation: a bleve index of
// the S, E and M units (lexical.bleve) and one of the C units
// (lexical-code.bleve). Implementations are searched only when a query
// asks for component C: source code matched the words of a question by
// accident far more often than on purpose (no hit@5 was lost without it
// on the natural-language and docstring query sets), and its postings
// were half of the index, so of every query's and every build's time
// (docs/retrieval.md).
//
// Both indexes score with the BM25 statistics of all units together
// (number of units, total field lengths), as one index of every unit
// would: with the prose units alone the average body length shrinks to a
// third and long mechanism texts lose to short signatures
// (docs/changelog.md).
type lexicalStore struct {
	main, code bleve.Index
	stats      *search.BM25Stats // of main and code together; nil while building
	pool       sync.Pool         // analysis.Analyzer for queries
	// common holds, per text field, the terms found in more than
	// maxQueryDF of the main index's units (nil while building).
	common map[string]map[string]bool
}

// maxQueryDF is the document frequency, as a fraction of the S, E and M
// units, above which a query term is left out of a field's clauses:
// static pruning of high-df terms (Manning, Raghavan & Schütze,
// Introduction to Information Retrieval, §7.1.1, "query terms with low
// idf"). Such a term's BM25 IDF is at most ln(1 + 0.8/0.2) ≈ 1.6 against
// 6–10 for the terms that tell APIs apart, but its postings are the
// longest the query walks: library names ("pandas" is in the name of a
// large share of the units), "array", "return", "default". Leaving them
// out keeps hit@5 and makes queries cheaper (docs/changelog.md). A field
// whose query terms are all common keeps them.
const maxQueryDF = 0.2

// Directories of a generation's lexical indexes.
const (
	lexicalDir     = "lexical.bleve"      // S, E and M units
	lexicalCodeDir = "lexical-code.bleve" // C units
)

func newLexicalStore(main, code bleve.Index) *lexicalStore {
	ls := &lexicalStore{main: main, code: code}
	ls.pool.New = func() any { return newIdentAnalyzer() }
	return ls
}

// createLexicalStore creates empty lexical indexes in gdir.
func createLexicalStore(gdir string) (*lexicalStore, error) {
	main, err := createLexical(filepath.Join(gdir, lexicalDir))
	if err != nil {
		return nil, err
	}
	code, err := createLexical(filepath.Join(gdir, lexicalCodeDir))
	if err != nil {
		main.Close()
		return nil, err
	}
	return newLexicalStore(main, code), nil
}

// openLexicalStore opens the lexical indexes in gdir, read-only unless
// writable.
func openLexicalStore(gdir string, writable bool) (*lexicalStore, error) {
	main, err := openLexical(filepath.Join(gdir, lexicalDir), writable)
	if err != nil {
		return nil, err
	}
	code, err := openLexical(filepath.Join(gdir, lexicalCodeDir), writable)
	if err != nil {
		main.Close()
		return nil, err
	}
	ls := newLexicalStore(main, code)
	if !writable {
		if ls.stats, err = bm25Stats(main, code); err != nil {
			ls.Close()
			return nil, err
		}
		if ls.common, err = commonTerms(main, maxQueryDF); err != nil {
			ls.Close()
			return nil, err
		}
	}
	return ls, nil
}

// statsFields are the fields a lexical query may search: text and filters.
var statsFields = []string{"name", "body", "api", "library", "version", "novelty", "component", "*"} // "*": bleve's filter clauses

// bm25Stats sums the BM25 statistics of the searched fields over idxs.
func bm25Stats(idxs ...bleve.Index) (*search.BM25Stats, error) {
	st := &search.BM25Stats{FieldCardinality: map[string]int{}}
	for _, idx := range idxs {
		n, err := idx.DocCount()
		if err != nil {
			return nil, fmt.Errorf("count lexical units: %w", err)
		}
		st.DocCount += float64(n)
		adv, err := idx.Advanced()
		if err != nil {
			return nil, fmt.Errorf("lexical statistics: %w", err)
		}
		r, err := adv.Reader()
		if err != nil {
			return nil, fmt.Errorf("lexical statistics: %w", err)
		}
		br, ok := r.(bleveindex.BM25Reader)
		for _, f := range statsFields {
			if !ok {
				break
			}
			c, err := br.FieldCardinality(f)
			if err != nil {
				r.Close()
				return nil, fmt.Errorf("lexical statistics: %w", err)
			}
			st.FieldCardinality[f] += c
		}
		if err := r.Close(); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// commonTerms returns, for each field of lexicalFields, the terms whose
// document frequency in idx exceeds ratio × its number of units.
func commonTerms(idx bleve.Index, ratio float64) (map[string]map[string]bool, error) {
	n, err := idx.DocCount()
	if err != nil {
		return nil, fmt.Errorf("count lexical units: %w", err)
	}
	out := make(map[string]map[string]bool, len(lexicalFields))
	for _, f := range lexicalFields {
		d, err := idx.FieldDict(f.name)
		if err != nil {
			return nil, fmt.Errorf("lexical dictionary of %s: %w", f.name, err)
		}
		m := map[string]bool{}
		for {
			e, err := d.Next()
			if err != nil {
				d.Close()
				return nil, fmt.Errorf("lexical dictionary of %s: %w", f.name, err)
			}
			if e == nil {
				break
			}
			if float64(e.Count) > ratio*float64(n) {
				m[e.Term] = true
			}
		}
		if err := d.Close(); err != nil {
			return nil, err
		}
		out[f.name] = m
	}
	return out, nil
}

// Close closes both indexes and returns the first error.
func (ls *lexicalStore) Close() error {
	err := ls.main.Close()
	if cerr := ls.code.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// add indexes units, the C units and the others concurrently.
func (ls *lexicalStore) add(ctx context.Context, units []unit, progress func(int)) error {
	var main, code []unit
	for _, u := range units {
		if u.Component == CompC {
			code = append(code, u)
		} else {
			main = append(main, u)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- indexUnits(ctx, ls.code, code, progress) }()
	err := indexUnits(ctx, ls.main, main, progress)
	if cerr := <-errc; cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// remove deletes the units with the given IDs.
func (ls *lexicalStore) remove(ids []string) error {
	for _, idx := range []bleve.Index{ls.main, ls.code} {
		b := idx.NewBatch()
		for _, id := range ids {
			b.Delete(id)
		}
		if err := idx.Batch(b); err != nil {
			return fmt.Errorf("delete replaced units: %w", err)
		}
	}
	return nil
}

// A queryTerm is one distinct analysed term of a query and how often it
// occurs there.
type queryTerm struct {
	term  string
	count int
}

// terms analyses text like the indexed fields and returns its distinct
// terms in first-seen order.
func (ls *lexicalStore) terms(text string) []queryTerm {
	a := ls.pool.Get().(analysis.Analyzer)
	toks := a.Analyze([]byte(text))
	ls.pool.Put(a)
	var out []queryTerm
	seen := map[string]int{}
	for _, t := range toks {
		s := string(t.Term)
		if i, ok := seen[s]; ok {
			out[i].count++
			continue
		}
		seen[s] = len(out)
		out = append(out, queryTerm{term: s, count: 1})
	}
	return out
}

// lexicalFields are the searched text fields and their boosts.
var lexicalFields = []struct {
	name  string
	boost float64
}{{"name", nameBoost}, {"body", bodyBoost}}

// textQuery returns the BM25 query for terms, nil when there are none:
// per field, a disjunction of one term query per distinct term, boosted by
// the field's boost times the term's count in the query, and a disjunction
// over the fields. The nesting keeps bleve's coordination factor per
// level, so that a unit matching in both its name and its body outranks
// one matching in its body alone, as with one match query per field; a
// repeated term is one boosted clause instead of several scans of its
// postings. Terms in common[field] are left out of that field's clauses
// (see maxQueryDF) unless that would leave the field no clause.
func textQuery(terms []queryTerm, common map[string]map[string]bool) query.Query {
	if len(terms) == 0 {
		return nil
	}
	fields := make([]query.Query, 0, len(lexicalFields))
	for _, f := range lexicalFields {
		kept := terms
		if c := common[f.name]; len(c) > 0 {
			kept = make([]queryTerm, 0, len(terms))
			for _, t := range terms {
				if !c[t.term] {
					kept = append(kept, t)
				}
			}
			if len(kept) == 0 {
				kept = terms
			}
		}
		clauses := make([]query.Query, len(kept))
		for i, t := range kept {
			tq := bleve.NewTermQuery(t.term)
			tq.SetField(f.name)
			tq.SetBoost(f.boost * float64(t.count))
			clauses[i] = tq
		}
		fields = append(fields, bleve.NewDisjunctionQuery(clauses...))
	}
	return bleve.NewDisjunctionQuery(fields...)
}

// search runs the BM25 leg: the query's terms (see [lexicalStore.terms])
// matched against the name field (boosted) and the body field of the units
// of the components in f (S, E and M when f names none), under the exact
// filters, returning up to n units best first.
func (ls *lexicalStore) search(ctx context.Context, terms []queryTerm, f filter, n int) ([]lexicalHit, error) {
	q := textQuery(terms, ls.common)
	if q == nil {
		return nil, nil
	}
	var mainComps []string
	wantCode := false
	for _, c := range f.Components {
		if c == CompC {
			wantCode = true
		} else {
			mainComps = append(mainComps, c)
		}
	}
	var out []lexicalHit
	if len(f.Components) == 0 || len(mainComps) > 0 {
		if len(mainComps) == len(AllComponents)-1 {
			mainComps = nil // all of S, E, M: no component filter
		}
		hits, err := searchLexical(ctx, ls.main, q, ls.stats, f.Library, f.Version, mainComps, n)
		if err != nil {
			return nil, err
		}
		out = hits
	}
	if wantCode {
		hits, err := searchLexical(ctx, ls.code, q, ls.stats, f.Library, f.Version, nil, n)
		if err != nil {
			return nil, err
		}
		out = append(out, hits...)
		sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
		out = out[:min(n, len(out))]
	}
	return out, nil
}

// searchLexical runs q on idx under the exact filters (components: any
// when empty) and returns up to n units best first; stats, when not nil,
// replace idx's own BM25 statistics.
func searchLexical(ctx context.Context, idx bleve.Index, q query.Query, stats *search.BM25Stats, library, version string, comps []string, n int) ([]lexicalHit, error) {
	if fq := filterQuery(library, version, comps); fq != nil {
		bq := bleve.NewBooleanQuery()
		bq.AddMust(q)
		bq.AddFilter(fq)
		q = bq
	}
	req := bleve.NewSearchRequestOptions(q, n, 0, false)
	if stats != nil {
		req.PreSearchData = map[string]any{search.BM25PreSearchDataKey: stats}
	}
	res, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	out := make([]lexicalHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		out = append(out, lexicalHit{ID: h.ID, Score: h.Score})
	}
	return out, nil
}

// unitKey returns the API key part of a unit ID ("api@version#C").
func unitKey(id string) (key, comp string) {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return id, ""
	}
	return id[:i], id[i+1:]
}
