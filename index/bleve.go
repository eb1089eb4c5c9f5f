package index

import (
	"context"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// Field boosts of the lexical leg: names outrank prose.
const (
	nameBoost = 4.0
	bodyBoost = 1.0
)

// newMapping returns the lexical index mapping: BM25 scoring (bleve's
// default is tf-idf, go-libs §2), the identifier analyzer on the name and
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

// filterQuery returns the exact-filter part of a search, or nil.
func filterQuery(f filter) query.Query {
	var qs []query.Query
	term := func(field, v string) query.Query {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		return t
	}
	if f.Library != "" {
		qs = append(qs, term("library", f.Library))
	}
	if f.Version != "" {
		qs = append(qs, term("version", f.Version))
	}
	if len(f.Components) > 0 && len(f.Components) < len(AllComponents) {
		var cs []query.Query
		for _, c := range f.Components {
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

// searchLexical runs the BM25 leg: the query text matched against the name
// field (boosted) and the body field, under the exact filters, returning up
// to n units best first.
func searchLexical(ctx context.Context, idx bleve.Index, text string, f filter, n int) ([]lexicalHit, error) {
	name := bleve.NewMatchQuery(text)
	name.SetField("name")
	name.SetBoost(nameBoost)
	body := bleve.NewMatchQuery(text)
	body.SetField("body")
	body.SetBoost(bodyBoost)
	var q query.Query = bleve.NewDisjunctionQuery(name, body)
	if fq := filterQuery(f); fq != nil {
		bq := bleve.NewBooleanQuery()
		bq.AddMust(q)
		bq.AddFilter(fq)
		q = bq
	}
	req := bleve.NewSearchRequestOptions(q, n, 0, false)
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
