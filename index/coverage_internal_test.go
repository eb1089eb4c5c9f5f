package index

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

// TestAPITerms checks the document-level features: a query term in an
// API's names, S, E or M text counts towards its coverage, one only in C
// does not, an unknown term counts against it with the idf of a term no API
// has; and a question's word pair counts only when adjacent and in order.
func TestAPITerms(t *testing.T) {
	a := newIdentAnalyzer()
	at := newAPITerms()
	var b bundles.Bundle
	b.APIName = "pandas.api.typing.Resampler.var"
	b.Mechanism.Text = "Compute variance of groups, excluding missing values."
	b.Examples = []bundles.Example{{Code: "ser.resample('MS').var()"}}
	b.Implementation = "def var(self): return self._downsample('var')"
	at.set("k", termSequence(a, &b))
	var other bundles.Bundle
	other.APIName = "numpy.var"
	other.Mechanism.Text = "Variance along an axis."
	at.set("other", termSequence(a, &other))
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
	ids := func(words ...string) []int64 {
		var out []int64
		for _, w := range words {
			out = append(out, id(w))
		}
		return out
	}
	for _, tt := range []struct {
		terms []string
		want  string // "all", "some" or "none"
	}{
		{[]string{"variance", "resample"}, "all"},    // M and E
		{[]string{"variance", "resampler"}, "all"},   // the name counts
		{[]string{"variance", "downsample"}, "some"}, // C does not count
		{[]string{"variance", "quuxer"}, "some"},     // an unknown term counts against
		{[]string{"downsample", "quuxer"}, "none"},
	} {
		terms := ids(tt.terms...)
		got := at.weightedCoverage("k", terms, at.idf(terms))
		if ok := (tt.want == "all" && got == 1) || (tt.want == "some" && got > 0 && got < 1) || (tt.want == "none" && got == 0); !ok {
			t.Errorf("weightedCoverage(%v) = %v; want %s", tt.terms, got, tt.want)
		}
	}
	// "resample" is in one API, "variance" in both: covering the rarer
	// term weighs more.
	terms := ids("variance", "resample")
	if w := at.idf(terms); w[1] <= w[0] {
		t.Errorf("idf(variance, resample) = %v; want the rarer term heavier", w)
	}
	if got := at.weightedCoverage("missing", terms, at.idf(terms)); got != 0 {
		t.Errorf("coverage of an unknown key = %v; want 0", got)
	}
	ls := newLexicalStore(nil, nil)
	for q, want := range map[string]float64{
		"compute variance":           1, // adjacent, in order
		"variance compute":           0, // reversed
		"compute the variance":       1, // a stop word between is not a word of the text
		"compute variance of groups": 1, // "compute variance", "variance groups"
		"compute missing variance":   0,
		"missing values variance":    0.5, // "missing values" yes, "values variance" no
	} {
		if got := at.bigramCoverage("k", at.queryBigrams(ls, q)); got != want {
			t.Errorf("bigramCoverage(%q) = %v; want %v", q, got, want)
		}
	}
}
