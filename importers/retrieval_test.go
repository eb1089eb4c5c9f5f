package importers_test

import (
	"testing"

	"github.com/novelapi/novelapi/importers"
)

func TestPoolRetrieval(t *testing.T) {
	out, tasks, _ := importArena(t)
	figs, err := importers.PoolRetrieval(t.Context(), out, "", 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) == 0 {
		t.Fatal("no retrieval figures")
	}
	for _, f := range figs {
		if f.N != len(tasks) || f.HitExact > f.HitAPI || f.HitAPI > f.N {
			t.Errorf("%s: %+v; want n=%d and exact <= api <= n", f.Retriever, f, len(tasks))
		}
	}
	// Four updates only: every target is within the top 5 of the hybrid retriever.
	if figs[0].Retriever != "hybrid" || figs[0].HitExact != len(tasks) {
		t.Errorf("hybrid = %+v; want every exact update found", figs[0])
	}
}
