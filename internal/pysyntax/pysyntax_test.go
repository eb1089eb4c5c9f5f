package pysyntax_test

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/internal/pysyntax"
)

func TestSplitTopLevel(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"Plain", "a, b", []string{"a", " b"}},
		{"Brackets", "x, axis=(0, 1), f=g(1, [2, 3])", []string{"x", " axis=(0, 1)", " f=g(1, [2, 3])"}},
		{"Quotes", `sep=",", q='a,b\',c'`, []string{`sep=","`, ` q='a,b\',c'`}},
		{"Empty", "", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pysyntax.SplitTopLevel(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("SplitTopLevel(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCutTopLevel(t *testing.T) {
	before, after, ok := pysyntax.CutTopLevel("x: dict[str, int] = {'a': 1}", '=')
	if !ok || before != "x: dict[str, int] " || after != " {'a': 1}" {
		t.Errorf("CutTopLevel = %q, %q, %v", before, after, ok)
	}
	if _, _, ok := pysyntax.CutTopLevel("f(a=1)", '='); ok {
		t.Error("CutTopLevel found a separator inside brackets")
	}
}

func TestMatchBracket(t *testing.T) {
	tests := []struct {
		in   string
		open int
		want int
	}{
		{"f(a, (b), ')')", 1, 13},
		{"f(a, [b]", 1, -1},
		{"x = 1", 0, -1},
		{"g({'a': [1, 2]})", 1, 15},
	}
	for _, tt := range tests {
		if got := pysyntax.MatchBracket(tt.in, tt.open); got != tt.want {
			t.Errorf("MatchBracket(%q, %d) = %d, want %d", tt.in, tt.open, got, tt.want)
		}
	}
}

func TestIsDottedName(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"numpy.linalg.norm", true},
		{"scipy.stats.distributions.triang_gen", true},
		{"math", true},
		{"pandas.DataFrame.map", true},
		{"numpy;print(6*7).x", false},
		{"numpy.x\nimport os", false},
		{"numpy..x", false},
		{".numpy", false},
		{"numpy.", false},
		{"numpy.x y", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := pysyntax.IsDottedName(tt.in); got != tt.want {
			t.Errorf("IsDottedName(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}
