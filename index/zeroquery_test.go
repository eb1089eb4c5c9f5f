package index_test

import (
	"testing"

	"github.com/novelapi/novelapi/index"
)

// A query of which no feature is known (only stop words or punctuation)
// has a zero vector: the vector leg returns nothing rather than every API
// in an arbitrary order, so hybrid search finds nothing either.
func TestSearch_ZeroQueryVector(t *testing.T) {
	_, ix := buildIndex(t)
	for _, r := range []index.Retriever{index.Hybrid, index.Vector} {
		for _, q := range []string{"the of and a to in", "?", "a"} {
			hits, err := ix.Search(t.Context(), index.Query{Text: q, Retriever: r})
			if err != nil {
				t.Fatalf("%s %q: %v", r, q, err)
			}
			if len(hits) != 0 {
				t.Errorf("%s %q: %d hits (%v), want none", r, q, len(hits), names(hits))
			}
		}
	}
}
