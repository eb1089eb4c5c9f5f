package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
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

// Candidates discovered with other options or older discovery rules are
// discovered again; a candidates file without recorded options predates
// the rules' record (rules 0).
func TestDiscoverOptionsDiffer(t *testing.T) {
	cands := filepath.Join(t.TempDir(), "numpy.jsonl")
	def := discoverOptions{Rules: bundles.DiffRules}
	ext := discoverOptions{Rules: bundles.DiffRules, NewIfMovedFrom: []string{"numpy.array_api"}}
	if why := ext.differ(cands); why != "" {
		t.Errorf("no candidates yet: differ = %q; want \"\"", why)
	}
	if err := os.WriteFile(cands, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := def.differ(cands); !strings.Contains(why, "rules 0 → 3") {
		t.Errorf("unrecorded options vs the defaults: differ = %q; want the rules change named", why)
	}
	if err := def.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := ext.differ(cands); !strings.Contains(why, "numpy.array_api") {
		t.Errorf("the defaults recorded vs %v: differ = %q; want the change named", ext, why)
	}
	if err := ext.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := ext.differ(cands); why != "" {
		t.Errorf("same options: differ = %q; want \"\"", why)
	}
	if why := def.differ(cands); why == "" {
		t.Error("recorded extension vs the defaults: differ = \"\"; want a reason")
	}
}
