package index_test

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// The paper's shared-hit row (docs/protocol.md §6) counts a query as a hit@5 only
// when it is one under each of S, S+M, S+E and Full, and is only reported
// when all four ran.
func TestEvaluate_PaperSharedHit(t *testing.T) {
	_, ix := buildIndex(t)
	qs := []index.EvalQuery{
		{Query: "split an array into a tuple of arrays along an axis", APIName: "numpy.unstack"},
		{Query: "read a comma separated file with pyarrow backed dtypes", APIName: "pandas.read_csv"},
		{Query: "choose values by conditions like a SQL CASE WHEN", APIName: "pandas.Series.case_when"},
		{Query: "numerical derivative by finite differences with error estimate", APIName: "scipy.differentiate.derivative"},
		{Query: "zebra giraffe carousel", APIName: "numpy.trapezoid"},
	}
	var allHits int
	for _, q := range qs {
		rep, err := index.Evaluate(t.Context(), ix, []index.EvalQuery{q}, index.EvalConfig{Retrievers: []index.Retriever{index.Paper}, Conditions: index.SharedHitConditions})
		if err != nil {
			t.Fatal(err)
		}
		all := true
		for _, c := range index.SharedHitConditions {
			row, ok := rep.Row(index.Paper, string(c), "")
			if !ok {
				t.Fatalf("no paper row for %s", c)
			}
			all = all && row.HitAt5 == 1
		}
		shared, ok := rep.Row(index.Paper, index.PaperShared, "")
		if !ok {
			t.Fatalf("%q: no shared row in %+v", q.Query, rep.Rows)
		}
		if (shared.HitAt5 == 1) != all {
			t.Errorf("%q: shared hit@5 %v; want %v (a hit under every condition)", q.Query, shared.HitAt5, all)
		}
		if all {
			allHits++
		}
	}
	if allHits == 0 || allHits == len(qs) {
		t.Errorf("%d of %d queries hit under all four conditions; the test wants both kinds", allHits, len(qs))
	}
	rep, err := index.Evaluate(t.Context(), ix, qs, index.EvalConfig{Retrievers: []index.Retriever{index.Paper}, Conditions: []bundles.Condition{bundles.CondFull}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rep.Row(index.Paper, index.PaperShared, ""); ok {
		t.Error("shared row reported with only Full run")
	}
}
