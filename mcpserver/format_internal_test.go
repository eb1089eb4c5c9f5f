package mcpserver

import (
	"slices"
	"testing"
)

// One path per Class.method ending: re-exports of a class through modules
// that import it are left out; functions keep every path.
func TestDistinctMethodPaths(t *testing.T) {
	got := distinctMethodPaths([]string{"pandas.DataFrame.any", "pandas.io.parquet.DataFrame.any",
		"pandas.io.feather_format.DataFrame.any", "pandas.read_csv", "pandas.io.parsers.read_csv"})
	want := []string{"pandas.DataFrame.any", "pandas.read_csv", "pandas.io.parsers.read_csv"}
	if !slices.Equal(got, want) {
		t.Errorf("distinctMethodPaths = %v; want %v", got, want)
	}
}
