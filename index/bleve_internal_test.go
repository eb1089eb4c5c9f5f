package index

import (
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
