package index

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

// TestAPITerms checks the coverage of query terms by an API's names and
// S, E and M text: a term in any of them counts, one only in C does not,
// unknown terms count against it.
func TestAPITerms(t *testing.T) {
	a := newIdentAnalyzer()
	at := newAPITerms()
	var b bundles.Bundle
	b.APIName = "pandas.api.typing.Resampler.var"
	b.Mechanism.Text = "Compute variance of groups, excluding missing values."
	b.Examples = []bundles.Example{{Code: "ser.resample('MS').var()"}}
	b.Implementation = "def var(self): return self._downsample('var')"
	at.set("k", analysedTerms(a, &b))
	id := func(term string) int64 {
		ta := a.Analyze([]byte(term))
		if len(ta) == 0 {
			t.Fatalf("%q analyses to nothing", term)
		}
		v, ok := at.dict[string(ta[0].Term)]
		if !ok {
			return -1
		}
		return int64(v)
	}
	for _, tt := range []struct {
		terms []string
		want  float64
	}{
		{[]string{"variance", "resample"}, 1},     // M and E
		{[]string{"variance", "downsample"}, 0.5}, // C does not count
		{[]string{"variance", "resampler"}, 1},    // the name counts
		{[]string{"variance", "quuxer"}, 0.5},     // an unknown term counts against
	} {
		var ids []int64
		for _, w := range tt.terms {
			ids = append(ids, id(w))
		}
		if got := at.coverage("k", ids); got != tt.want {
			t.Errorf("coverage(%v) = %v; want %v", tt.terms, got, tt.want)
		}
	}
	if got := at.coverage("other", []int64{id("variance")}); got != 0 {
		t.Errorf("coverage of an unknown key = %v; want 0", got)
	}
}
