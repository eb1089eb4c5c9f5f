package importers_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/importers"
)

// The published mapping files: pandas' is JSON, numpy's has trailing
// commas (JWCC); each problem's renamed names translate back through the
// pool's keyword table.
func TestReadKeywordMapping(t *testing.T) {
	tests := []struct {
		name, mapping, table, problem string
		want                          []string
	}{
		{"Pandas", "pandas_keyword_mapping.json", "pandas_keywords.jsonl", "PandasEval/20", []string{"groupby", "sum"}},
		{"PandasThreeNames", "pandas_keyword_mapping.json", "pandas_keywords.jsonl", "PandasEval/34", []string{"groupby", "apply", "reset_index"}},
		{"NumpyTrailingCommas", "numpy_keyword_mapping.json", "numpy_keywords.jsonl", "NumpyEval/28", []string{"setxor1d"}},
		{"NotNamed", "numpy_keyword_mapping.json", "numpy_keywords.jsonl", "NumpyEval/1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := importers.ReadKeywordMapping("testdata/apicoder/" + tt.mapping)
			if err != nil {
				t.Fatal(err)
			}
			table, err := importers.ReadKeywordTable("testdata/apicoder/" + tt.table)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Leaves(tt.problem, table); !slices.Equal(got, tt.want) {
				t.Errorf("Leaves(%s) = %v; want %v", tt.problem, got, tt.want)
			}
		})
	}
}

func TestReadKeywordMapping_Bad(t *testing.T) {
	_, err := importers.ReadKeywordMapping("testdata/apicoder/pandas_keywords.jsonl")
	if err == nil || !strings.Contains(err.Error(), "pandas_keywords.jsonl: keyword mapping: no problem_to_keywords") {
		t.Errorf("a keyword table read as a mapping: %v; want an error naming the file", err)
	}
}
