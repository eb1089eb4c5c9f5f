package bundles_test

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

// pandas.Series.apply's live signature in pandas 2.2.
const applyNew = `(self, func: 'AggFuncType', convert_dtype: 'bool | lib.NoDefault' = <no_default>, args: 'tuple[Any, ...]' = (), *, by_row: "Literal[False, 'compat']" = 'compat', **kwargs) -> 'DataFrame | Series'`

func TestParseSignature(t *testing.T) {
	type p struct{ name, kind, def string }
	tests := []struct {
		name, sig string
		want      []p
	}{
		{"Markers", "(x, /, *, axis=0)", []p{{"x", "POSITIONAL_ONLY", ""}, {"axis", "KEYWORD_ONLY", "0"}}},
		{"AnnotatedWithReturn", applyNew, []p{{"self", "POSITIONAL_OR_KEYWORD", ""}, {"func", "POSITIONAL_OR_KEYWORD", ""},
			{"convert_dtype", "POSITIONAL_OR_KEYWORD", "<no_default>"}, {"args", "POSITIONAL_OR_KEYWORD", "()"},
			{"by_row", "KEYWORD_ONLY", "'compat'"}, {"kwargs", "VAR_KEYWORD", ""}}},
		{"VarPositional", "(*arrays, axis=0, out=None)", []p{{"arrays", "VAR_POSITIONAL", ""}, {"axis", "KEYWORD_ONLY", "0"}, {"out", "KEYWORD_ONLY", "None"}}},
		{"Empty", "()", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, ok := bundles.ParseSignature(tt.sig)
			if !ok {
				t.Fatalf("ParseSignature(%q): ok = false", tt.sig)
			}
			var got []p
			for _, x := range ps {
				d := ""
				if x.Default != nil {
					d = *x.Default
				}
				got = append(got, p{x.Name, x.Kind, d})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParseSignature(%q) = %v, want %v", tt.sig, got, tt.want)
			}
		})
	}
	if _, ok := bundles.ParseSignature("x, y"); ok {
		t.Error(`ParseSignature("x, y"): ok = true, want false`)
	}
}

func TestSameDefault(t *testing.T) {
	tests := []struct {
		name, str, repr string
		want            bool
	}{
		{"Equal", "None", "None", true},
		{"QuotedString", "C", "'C'", true},
		{"NumpyScalar", "1.0", "np.float64(1.0)", true},
		{"Enum", "Color.RED", "<Color.RED: 1>", true},
		{"PandasSentinel", "_NoDefault.no_default", "<no_default>", true},
		{"Address", "<function f at 0x7f00aa>", "<function f at 0x7f11bb>", true},
		{"Changed", "None", "<no_default>", false},
		{"Changed2", "True", "'compat'", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bundles.SameDefault(&tt.str, &tt.repr); got != tt.want {
				t.Errorf("SameDefault(%q, %q) = %v, want %v", tt.str, tt.repr, got, tt.want)
			}
		})
	}
	d := "None"
	if bundles.SameDefault(nil, &d) || !bundles.SameDefault(nil, nil) {
		t.Error("SameDefault: a default that appears is a change; two missing ones are not")
	}
}
