package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each library gets only the --new-if-moved-from prefixes under its name.
func TestPrefixesOf(t *testing.T) {
	in := []string{"numpy.array_api", "scipy._lib", "numpy.array_api", "numpyx.y", "numpy"}
	if got, want := prefixesOf("numpy", in), []string{"numpy", "numpy.array_api"}; !slices.Equal(got, want) {
		t.Errorf("prefixesOf(numpy) = %v; want %v", got, want)
	}
	if got := prefixesOf("pandas", in); len(got) != 0 {
		t.Errorf("prefixesOf(pandas) = %v; want none", got)
	}
}

// Candidates discovered with other options are discovered again; a
// candidates file without recorded options was made with the protocol's
// rules, so a rerun with the defaults reuses it.
func TestDiscoverOptionsDiffer(t *testing.T) {
	cands := filepath.Join(t.TempDir(), "numpy.jsonl")
	ext := discoverOptions{NewIfMovedFrom: []string{"numpy.array_api"}}
	if why := ext.differ(cands); why != "" {
		t.Errorf("no candidates yet: differ = %q; want \"\"", why)
	}
	if err := os.WriteFile(cands, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := (discoverOptions{}).differ(cands); why != "" {
		t.Errorf("unrecorded options vs the defaults: differ = %q; want \"\"", why)
	}
	if why := ext.differ(cands); !strings.Contains(why, "numpy.array_api") {
		t.Errorf("unrecorded options vs %v: differ = %q; want the change named", ext, why)
	}
	if err := ext.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := ext.differ(cands); why != "" {
		t.Errorf("same options: differ = %q; want \"\"", why)
	}
	if why := (discoverOptions{}).differ(cands); why == "" {
		t.Error("recorded extension vs the defaults: differ = \"\"; want a reason")
	}
}
