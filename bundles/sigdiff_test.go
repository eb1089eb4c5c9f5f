package bundles_test

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

// The changes of real modified APIs: pandas.DataFrame.any (2.2 vs 1.5),
// numpy.cumulative_sum-like additions, a removed base-class parameter.
func TestSignatureChanges(t *testing.T) {
	for _, tt := range []struct {
		name, old, new string
		want           []string
	}{
		{"DataFrame.any", "(self, *, axis=0, bool_only=None, skipna=True, level=None, **kwargs)",
			"(self, *, axis: 'Axis | None' = 0, bool_only: 'bool' = False, skipna: 'bool' = True, **kwargs) -> 'Series | bool'",
			[]string{"removed level", "bool_only default None → False"}},
		{"triang_gen", "(self, momtype=1, a=None, b=None, xtol=1e-14, badvalue=None, name=None, longname=None, shapes=None, extradoc=None, seed=None)",
			"(self, momtype=1, a=None, b=None, xtol=1e-14, badvalue=None, name=None, longname=None, shapes=None, seed=None)",
			[]string{"removed extradoc", "seed moved position"}},
		{"added and kinds", "(a, axis=None, dtype=None)", "(x, /, *, axis=None, dtype=None, include_initial=False)",
			[]string{"removed a", "added x, include_initial=False", "axis, dtype became keyword-only"}},
		{"str vs repr defaults", "(x, mode=reflect, sep=None, d=_NoDefault.no_default)", "(x, mode='reflect', sep=',', d=<no_default>)", []string{"sep default None → ','"}},
		{"required", "(x, n=None)", "(x, n)", []string{"n is now required (was None)"}},
		{"only annotations", "(x)", "(x: 'int') -> 'int'", nil},
	} {
		old := tt.old
		b := bundles.Bundle{IsModified: true, OldSignature: &old, Provenance: &bundles.Provenance{Signature: tt.new}}
		got := b.SignatureChanges()
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: SignatureChanges = %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// An old default that str() printed as a raw newline is shown quoted, so
// the header stays one line.
func TestSignatureChanges_ControlCharacters(t *testing.T) {
	nl, sig := "\n", "(x, sep=',')"
	b := bundles.Bundle{IsModified: true, OldParameters: []bundles.ParamInfo{{Name: "x", Kind: bundles.KindPositionalOrKw}, {Name: "sep", Default: &nl, Kind: bundles.KindPositionalOrKw}},
		Provenance: &bundles.Provenance{Signature: sig}}
	if got, want := b.SignatureChanges(), []string{`sep default "\n" → ','`}; !slices.Equal(got, want) {
		t.Errorf("SignatureChanges = %q; want %q", got, want)
	}
}
