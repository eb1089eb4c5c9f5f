package importers_test

import (
	"testing"

	"github.com/novelapi/novelapi/importers"
)

func TestParseSignature(t *testing.T) {
	type p struct{ name, typ, def string }
	tests := []struct {
		name, in, wantName, wantRet string
		want                        []p
	}{
		{"Default", "math.sin(x, unit='radians')", "math.sin", "", []p{{"x", "", ""}, {"unit", "", "'radians'"}}},
		{"DefAndMarkers", "def math.nextafter(x, y, steps=1, /)", "math.nextafter", "", []p{{"x", "", ""}, {"y", "", ""}, {"steps", "", "1"}}},
		{"Annotations", "math.pow(x: Union[int, float], y: Union[int, float], fmt: Optional[bool]=False) -> Union[int, float, str]",
			"math.pow", "Union[int, float, str]", []p{{"x", "Union[int, float]", ""}, {"y", "Union[int, float]", ""}, {"fmt", "Optional[bool]", "False"}}},
		{"OptionalBrackets", "numpy.arange([start,] stop[, step,], dtype=None, *, like=None)", "numpy.arange", "",
			[]p{{"start", "", ""}, {"stop", "", ""}, {"step", "", ""}, {"dtype", "", "None"}, {"like", "", "None"}}},
		{"StarArgs", "sympy.diff(f, *symbols, order=1, **kwargs)", "sympy.diff", "", []p{{"f", "", ""}, {"*symbols", "", ""}, {"order", "", "1"}, {"**kwargs", "", ""}}},
		{"ReturnAfterColon", "def sympy.expand(e, deep=True): -> Tuple[sympy.Expr, int]", "sympy.expand", "Tuple[sympy.Expr, int]", []p{{"e", "", ""}, {"deep", "", "True"}}},
		{"Bare", "(a, axis=0, nan_policy='propagate')", "", "", []p{{"a", "", ""}, {"axis", "", "0"}, {"nan_policy", "", "'propagate'"}}},
		{"ListDefault", "f(x=[1, 2], y={'a': (1, 2)})", "f", "", []p{{"x", "", "[1, 2]"}, {"y", "", "{'a': (1, 2)}"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig, ok := importers.ParseSignature(tt.in)
			if !ok {
				t.Fatalf("ParseSignature(%q) failed", tt.in)
			}
			ret := ""
			if sig.ReturnType != nil {
				ret = *sig.ReturnType
			}
			if sig.Name != tt.wantName || ret != tt.wantRet {
				t.Errorf("name, return = %q, %q; want %q, %q", sig.Name, ret, tt.wantName, tt.wantRet)
			}
			var got []p
			for _, q := range sig.Params {
				var x p
				x.name = q.Name
				if q.Type != nil {
					x.typ = *q.Type
				}
				if q.Default != nil {
					x.def = *q.Default
				}
				got = append(got, x)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("params = %+v; want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("param %d = %+v; want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
	if _, ok := importers.ParseSignature("no parens"); ok {
		t.Error("ParseSignature(\"no parens\") ok; want failure")
	}
}
