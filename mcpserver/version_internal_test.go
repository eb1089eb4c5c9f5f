package mcpserver

import "testing"

// T2, T3: PEP 440 labels, ranges and specifiers.
func TestResolveVersion(t *testing.T) {
	pep := []string{"1.20", "2.0.0rc1", "0.24.post1", "2024.1"}
	three := []string{"1.10", "2.5", "2.7"}
	tests := []struct {
		name   string
		req    string
		avail  []string
		served string
		match  string
	}{
		{"PaddedExact", "1.20.0", pep, "1.20", MatchExact},
		{"PinnedRC", "==2.0.0rc1", pep, "2.0.0rc1", MatchExact},
		{"Post", "0.24.post1", pep, "0.24.post1", MatchExact},
		{"CalVer", "2024.1", pep, "2024.1", MatchExact},
		{"LatestIsFinal", "latest", []string{"1.20", "2.0.0rc1"}, "1.20", MatchLatest},
		{"NoneIsLatest", "", pep, "2024.1", MatchLatest},
		{"OnlyPrerelease", "", []string{"2.0.0rc1", "2.0.0b2"}, "2.0.0rc1", MatchLatest},
		{"Compatible", "~=2.5", three, "2.7", MatchRange},
		{"XRange", "2.x", three, "2.7", MatchRange},
		{"Star", "==2.*", three, "2.7", MatchRange},
		{"Prefix", "2.5", []string{"2.5.1", "2.5.3", "2.7"}, "2.5.3", MatchRange},
		{"Upper", "<2.6", three, "2.5", MatchRange},
		{"Conjunction", ">=1.0,!=2.7", three, "2.5", MatchRange},
		{"Missing", "1.10.13", []string{"2.5", "2.7"}, "2.7", MatchFallback},
		{"MissingPinned", "==2.6", three, "2.7", MatchFallback},
		{"Garbage", "banana", three, "2.7", MatchFallback},
		{"Unversioned", "2.0", []string{""}, "", MatchFallback},
		{"UnversionedUnpinned", "", []string{""}, "", MatchLatest},
		{"VPrefix", "v2.7", three, "2.7", MatchExact},
		{"NumericOrder", "", []string{"2.9", "2.10"}, "2.10", MatchLatest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolveVersion(tt.req, tt.avail)
			if got.Served != tt.served || got.Match != tt.match {
				t.Errorf("resolveVersion(%q, %v) = %s (%s), want %s (%s)", tt.req, tt.avail, got.Served, got.Match, tt.served, tt.match)
			}
		})
	}
}

func TestResolveLibrary(t *testing.T) {
	known := []string{"pillow", "scikit-learn", "PyYAML", "beautifulsoup4", "numpy"}
	for in, want := range map[string]string{"PIL": "pillow", "sklearn": "scikit-learn", "yaml": "PyYAML", "bs4": "beautifulsoup4",
		"NumPy": "numpy", "scikit_learn": "scikit-learn"} {
		if got, ok := resolveLibrary(in, known); !ok || got != want {
			t.Errorf("resolveLibrary(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got, ok := resolveLibrary("tensorflow", known); ok {
		t.Errorf("tensorflow resolved to %q", got)
	}
	if got, ok := resolveLibrary("sklearn", []string{"sklearn"}); !ok || got != "sklearn" {
		t.Errorf("identity: %q", got)
	}
	if got, ok := resolveLibrary("scikit-learn", []string{"sklearn"}); !ok || got != "sklearn" {
		t.Errorf("dist → import key: %q", got)
	}
}
