package index

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// TestLexical_BM25 checks that the lexical leg really scores with BM25
// (bleve's default is tf-idf) and that identifiers are split while the
// whole identifier is kept.
func TestLexical_BM25(t *testing.T) {
	idx, err := createLexical(filepath.Join(t.TempDir(), "lex"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	u := unit{ID: "numpy.cumulative_sum@2#S", Names: []string{"numpy.cumulative_sum"}, Body: "Return the cumulative sum", Library: "numpy", Component: "S"}
	if err := indexUnits(t.Context(), idx, []unit{u}, nil); err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{"numpy.cumulative_sum", "cumulative_sum", "cumul", "sum"} {
		q := bleve.NewTermQuery(term)
		q.SetField("name")
		req := bleve.NewSearchRequest(q)
		req.Explain = true
		res, err := idx.Search(req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 {
			t.Errorf("term %q: %d hits; want 1", term, len(res.Hits))
			continue
		}
		if expl := res.Hits[0].Expl.String(); !strings.Contains(expl, "bm25") {
			t.Errorf("term %q scored without BM25: %s", term, expl)
		}
	}
}

// TestLexical_CommonTermsPruned checks the static pruning of high-df query
// terms (maxQueryDF): a term in every unit is found as common, left out of
// a query that has other terms, and still searched when it is all there is.
func TestLexical_CommonTermsPruned(t *testing.T) {
	gdir := t.TempDir()
	ls, err := createLexicalStore(gdir)
	if err != nil {
		t.Fatal(err)
	}
	var units []unit
	for i, body := range []string{"frame rolling mean", "frame expanding sum", "frame cumulative product", "frame median absolute deviation", "frame interpolate gaps"} {
		name := "lib.f" + string(rune('a'+i))
		units = append(units, unit{ID: name + "@1#M", Names: []string{name}, Body: body, Library: "lib", Component: CompM})
	}
	if err := ls.add(t.Context(), units, nil); err != nil {
		t.Fatal(err)
	}
	if err := ls.Close(); err != nil {
		t.Fatal(err)
	}
	ls, err = openLexicalStore(gdir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	if !ls.common["body"]["frame"] || ls.common["body"]["rolling"] {
		t.Fatalf("common body terms = %v; want frame, not rolling", ls.common["body"])
	}
	q := textQuery(ls.terms("frame rolling"), ls.common)
	if s := fmt.Sprint(q); strings.Contains(s, "frame") {
		t.Errorf("query keeps the common term: %s", s)
	}
	hits, err := ls.search(t.Context(), ls.terms("frame rolling"), filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != "lib.fa@1#M" {
		t.Errorf("frame rolling: %v; want lib.fa only", hits)
	}
	hits, err = ls.search(t.Context(), ls.terms("frame"), filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != len(units) {
		t.Errorf("frame alone: %d hits; want all %d", len(hits), len(units))
	}
}
