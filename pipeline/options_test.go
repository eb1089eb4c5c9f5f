package pipeline

import (
	"fmt"
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
	def := stageOptions{Rules: bundles.DiffRules}
	ext := stageOptions{Rules: bundles.DiffRules, NewIfMovedFrom: []string{"numpy.array_api"}}
	if why := discoverWhy(ext, cands); why != "" {
		t.Errorf("no candidates yet: discovery reason = %q; want \"\"", why)
	}
	if err := os.WriteFile(cands, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := discoverWhy(def, cands); !strings.Contains(why, "rules 0 → 3") {
		t.Errorf("unrecorded options vs the defaults: discovery reason = %q; want the rules change named", why)
	}
	if err := def.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := discoverWhy(ext, cands); !strings.Contains(why, "numpy.array_api") {
		t.Errorf("the defaults recorded vs %v: discovery reason = %q; want the change named", ext, why)
	}
	if err := ext.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := discoverWhy(ext, cands); why != "" {
		t.Errorf("same options: discovery reason = %q; want \"\"", why)
	}
	if why := discoverWhy(def, cands); why == "" {
		t.Error("recorded extension vs the defaults: discovery reason = \"\"; want a reason")
	}
}

// Bundles extracted under older extraction rules are extracted again; the
// candidates stay (no discovery reason).
func TestExtractRulesDiffer(t *testing.T) {
	cands := filepath.Join(t.TempDir(), "scipy.jsonl")
	cur := stageOptions{Rules: bundles.DiffRules, ExtractRules: bundles.ExtractRules}
	if why := extractWhy(cur, cands); why != "" {
		t.Errorf("no candidates yet: extraction reason = %q; want \"\"", why)
	}
	if err := os.WriteFile(cands, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := stageOptions{Rules: bundles.DiffRules}
	if err := old.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := discoverWhy(cur, cands); why != "" {
		t.Errorf("same discovery: discovery reason = %q; want \"\"", why)
	}
	want := fmt.Sprintf("extraction rules 0 → %d", bundles.ExtractRules)
	if why := extractWhy(cur, cands); why != want {
		t.Errorf("bundles of rules 0: extraction reason = %q; want %q", why, want)
	}
	if err := cur.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := extractWhy(cur, cands); why != "" {
		t.Errorf("same rules: extraction reason = %q; want \"\"", why)
	}
}

func discoverWhy(o stageOptions, cands string) string {
	d, _ := o.differences(cands)
	return d
}

func extractWhy(o stageOptions, cands string) string {
	_, e := o.differences(cands)
	return e
}
