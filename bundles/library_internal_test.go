package bundles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/internal/stamp"
	"github.com/novelapi/novelapi/sandbox"
)

func libraryConfig(dir string, newIfMovedFrom ...string) LibraryConfig {
	env := &sandbox.Environment{Name: "trixie-sci", Manifest: sandbox.Manifest{Key: "k1"}}
	old := &sandbox.Environment{Name: "bookworm-sci", Manifest: sandbox.Manifest{Key: "k0"}}
	return LibraryConfig{
		Discover:   DiscoverConfig{Library: "numpy", OldEnv: old, NewEnv: env, Diff: DiffOptions{NewIfMovedFrom: newIfMovedFrom}},
		Candidates: filepath.Join(dir, "numpy.jsonl"),
		Bundles:    filepath.Join(dir, "bundles", "numpy.jsonl"),
	}
}

func discoverWhy(t *testing.T, cfg LibraryConfig) string {
	t.Helper()
	s, err := cfg.discoverStamp()
	if err != nil {
		t.Fatal(err)
	}
	return stamp.Stale(cfg.Candidates, s)
}

// Candidates discovered with other options, older discovery rules or in
// other environments are discovered again; candidates without a stamp
// predate the record.
func TestLibraryConfig_DiscoverStamp(t *testing.T) {
	dir := t.TempDir()
	def, ext := libraryConfig(dir), libraryConfig(dir, "numpy.array_api")
	if why := discoverWhy(t, ext); !strings.HasPrefix(why, "no ") {
		t.Errorf("no candidates yet: discovery reason = %q; want the missing file named", why)
	}
	if err := os.WriteFile(def.Candidates, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := discoverWhy(t, def); !strings.HasPrefix(why, "no stamp") {
		t.Errorf("unstamped candidates: discovery reason = %q; want the missing stamp named", why)
	}
	write := func(cfg LibraryConfig) {
		s, err := cfg.discoverStamp()
		if err != nil {
			t.Fatal(err)
		}
		if err := stamp.Write(cfg.Candidates, s); err != nil {
			t.Fatal(err)
		}
	}
	write(def)
	if why := discoverWhy(t, ext); !strings.Contains(why, "numpy.array_api") {
		t.Errorf("the defaults recorded vs %v: discovery reason = %q; want the change named", ext.Discover.Diff, why)
	}
	write(ext)
	if why := discoverWhy(t, ext); why != "" {
		t.Errorf("same options: discovery reason = %q; want \"\"", why)
	}
	if why := discoverWhy(t, def); why == "" {
		t.Error("recorded extension vs the defaults: discovery reason = \"\"; want a reason")
	}
	rebuilt := libraryConfig(dir, "numpy.array_api")
	rebuilt.Discover.NewEnv.Manifest.Key = "k2"
	if why := discoverWhy(t, rebuilt); !strings.Contains(why, "new_env") {
		t.Errorf("another new environment: discovery reason = %q; want new_env named", why)
	}
}

// Bundles extracted under older extraction rules or from other candidates
// are extracted again; the candidates stay.
func TestLibraryConfig_ExtractStamp(t *testing.T) {
	dir := t.TempDir()
	cfg := libraryConfig(dir)
	if err := os.WriteFile(cfg.Candidates, []byte("{\"api_name\": \"numpy.unstack\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Bundles), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.Bundles, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cur, err := cfg.extractStamp()
	if err != nil {
		t.Fatal(err)
	}
	old := cur
	old.Rules = "0"
	if err := stamp.Write(cfg.Bundles, old); err != nil {
		t.Fatal(err)
	}
	if why, want := stamp.Stale(cfg.Bundles, cur), fmt.Sprintf("extract rules 0 → %d", ExtractRules); why != want {
		t.Errorf("bundles of rules 0: extraction reason = %q; want %q", why, want)
	}
	if err := stamp.Write(cfg.Bundles, cur); err != nil {
		t.Fatal(err)
	}
	if why := stamp.Stale(cfg.Bundles, cur); why != "" {
		t.Errorf("same rules: extraction reason = %q; want \"\"", why)
	}
	if err := os.WriteFile(cfg.Candidates, []byte("{\"api_name\": \"numpy.vecdot\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now, err := cfg.extractStamp()
	if err != nil {
		t.Fatal(err)
	}
	if why := stamp.Stale(cfg.Bundles, now); why != "changed: candidates" {
		t.Errorf("other candidates: extraction reason = %q; want \"changed: candidates\"", why)
	}
}
