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

// Bundles extracted under older extraction rules are extracted again; the
// candidates stay (differ is "").
func TestExtractRulesDiffer(t *testing.T) {
	cands := filepath.Join(t.TempDir(), "scipy.jsonl")
	cur := stageOptions{Rules: bundles.DiffRules, ExtractRules: bundles.ExtractRules}
	if why := cur.extractDiffers(cands); why != "" {
		t.Errorf("no candidates yet: extractDiffers = %q; want \"\"", why)
	}
	if err := os.WriteFile(cands, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := stageOptions{Rules: bundles.DiffRules}
	if err := old.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := cur.differ(cands); why != "" {
		t.Errorf("same discovery: differ = %q; want \"\"", why)
	}
	want := fmt.Sprintf("extraction rules 0 → %d", bundles.ExtractRules)
	if why := cur.extractDiffers(cands); why != want {
		t.Errorf("bundles of rules 0: extractDiffers = %q; want %q", why, want)
	}
	if err := cur.write(cands); err != nil {
		t.Fatal(err)
	}
	if why := cur.extractDiffers(cands); why != "" {
		t.Errorf("same rules: extractDiffers = %q; want \"\"", why)
	}
}
