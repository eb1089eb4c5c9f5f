package index

import "testing"

func TestNearestNames(t *testing.T) {
	names := []string{"numpy.unstack", "numpy.stack", "pandas.read_csv", "pandas.io.parsers.read_csv", "scipy.stats.quantile"}
	if got := NearestNames("numpy.unstak", names, 2); len(got) == 0 || got[0] != "numpy.unstack" {
		t.Errorf("NearestNames(numpy.unstak) = %v", got)
	}
	if got := NearestNames("read_csv", names, 3); len(got) < 2 || got[0] != "pandas.read_csv" {
		t.Errorf("NearestNames(read_csv) = %v", got)
	}
	if got := NearestNames("zzzzqqqq", names, 3); len(got) != 0 {
		t.Errorf("NearestNames(nonsense) = %v", got)
	}
}

// SuggestNames also tries each identifier-like word of a question.
func TestSuggestNames(t *testing.T) {
	names := []string{"numpy.quantile", "pandas.DataFrame.quantile", "numpy.unique_counts"}
	if got := SuggestNames("how do I get the qunatile of an array", names, 3); len(got) == 0 || got[0] != "numpy.quantile" {
		t.Errorf("SuggestNames(typo in a question) = %v; want numpy.quantile first", got)
	}
}
