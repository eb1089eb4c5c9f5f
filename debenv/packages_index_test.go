package debenv_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/ulikunitz/xz"
)

// The indexes in testdata/packages are stanzas copied unchanged from
// Debian's dists/SUITE/main/binary-amd64/Packages.xz (sid and
// experimental of 2026-10-30, trixie 13.x).

// readIndex parses testdata/packages/SUITE.txt.
func readIndex(t testing.TB, suite string) *debenv.PackageIndex {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "packages", suite+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ix, err := debenv.ParsePackages(f, suite)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// seedIndex puts testdata/packages/SUITE.txt, xz-compressed, where the
// store caches suite's index from the default mirror, so the store reads it
// without the network.
func seedIndex(t testing.TB, s *debenv.Store, suite string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "packages", suite+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := s.IndexPath(suite, "")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParsePackages(t *testing.T) {
	ix := readIndex(t, "sid")
	if ix.Len() != 26 {
		t.Errorf("Len = %d; want 26", ix.Len())
	}
	tests := []struct {
		name, version, source string
		provides, depends     string // one name each must contain
	}{
		{"python3-sklearn", "1.9.0+dfsg-2", "scikit-learn", "", "python3-sklearn-lib"},
		{"python3-numpy", "1:2.4.6+ds-5+b1", "numpy", "python3-f2py", "python3"},
		{"python3-attr", "", "python-attrs", "", ""},
		{"libre2-11", "20251105-1+b3", "re2", "libre2-11-absl20260526", ""},
		{"less", "", "less", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := ix.Package(tt.name)
			if !ok {
				t.Fatalf("no package %s", tt.name)
			}
			if tt.version != "" && p.Version != tt.version {
				t.Errorf("Version = %q; want %q", p.Version, tt.version)
			}
			if p.Source != tt.source {
				t.Errorf("Source = %q; want %q", p.Source, tt.source)
			}
			if tt.provides != "" && !slices.Contains(p.Provides, tt.provides) {
				t.Errorf("Provides = %v; want %s among them", p.Provides, tt.provides)
			}
			if tt.depends != "" && !slices.Contains(p.Depends, tt.depends) {
				t.Errorf("Depends = %v; want %s among them", p.Depends, tt.depends)
			}
		})
	}
	if got := ix.Providers("libre2-11-absl20260526"); len(got) != 1 || got[0].Name != "libre2-11" {
		t.Errorf("Providers(libre2-11-absl20260526) = %v; want libre2-11", got)
	}
	if p, _ := ix.Package("less"); p.IsPython() {
		t.Error("less IsPython")
	}
	if p, _ := ix.Package("python3-boltons"); !p.IsPython() {
		t.Error("python3-boltons is not IsPython")
	}
}

func TestParsePackages_Bad(t *testing.T) {
	_, err := debenv.ParsePackages(strings.NewReader("Package: a\nVersion: 1\n\nVersion: 2\nDescription: x\n"), "sid")
	if err == nil || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), "sid") {
		t.Errorf("err = %v; want one naming sid and line 4", err)
	}
	_, err = debenv.ParsePackages(strings.NewReader("Package: a\nnot a field\n"), "trixie")
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v; want one naming line 2", err)
	}
}

func TestPackageIndex_Nearest(t *testing.T) {
	ix := readIndex(t, "sid")
	tests := []struct {
		query string
		first string // "" means none
	}{
		{"boltonz", "python3-boltons"},
		{"python3-boltonz", "python3-boltons"},
		{"nmupy", "python3-numpy"}, // two neighbouring letters exchanged
		{"djangoo", "python3-django"},
		{"pandsa", "python3-pandas"},
		{"zzzzqqq", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := ix.Nearest(tt.query, 5)
			if tt.first == "" {
				if len(got) != 0 {
					t.Errorf("Nearest(%q) = %v; want none", tt.query, got)
				}
				return
			}
			if len(got) == 0 || got[0] != tt.first {
				t.Errorf("Nearest(%q) = %v; want %s first", tt.query, got, tt.first)
			}
			if len(got) > 5 {
				t.Errorf("Nearest returned %d names; want at most 5", len(got))
			}
		})
	}
}

// TestStore_PackageIndex reads a cached index without the network, and
// falls back to a stale cached one when the mirror cannot be reached.
func TestStore_PackageIndex(t *testing.T) {
	s := debenv.OpenStore(t.TempDir())
	seedIndex(t, s, "trixie")
	ix, err := s.PackageIndex(t.Context(), "trixie", debenv.IndexConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := ix.Package("python3-numpy"); !ok || p.Version != "1:2.2.4+ds-1" {
		t.Errorf("python3-numpy = %+v, %v; want version 1:2.2.4+ds-1", p, ok)
	}
	// The same unchanged file is parsed once per store.
	if again, err := s.PackageIndex(t.Context(), "trixie", debenv.IndexConfig{}); err != nil || again != ix {
		t.Errorf("second read of an unchanged index: %p, %v; want the first parse %p", again, err, ix)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(s.IndexPath("trixie", ""), old, old); err != nil {
		t.Fatal(err)
	}
	// A file that changed (here its modification time) is parsed again.
	if again, err := s.PackageIndex(t.Context(), "trixie", debenv.IndexConfig{MaxAge: 1000 * time.Hour}); err != nil || again == ix {
		t.Errorf("read of a changed index file: %p, %v; want a new parse, not %p", again, err, ix)
	}
	// A mirror on a closed local port: the download fails.
	ix, err = s.PackageIndex(t.Context(), "trixie", debenv.IndexConfig{Mirror: "http://127.0.0.1:9/debian"})
	if err == nil {
		t.Fatalf("index from an unreachable mirror without a cache: %d packages", ix.Len())
	}
	if !strings.Contains(err.Error(), "trixie") {
		t.Errorf("error %q does not name the suite", err)
	}
	seed := s.IndexPath("trixie", "")
	other := s.IndexPath("trixie", "http://127.0.0.1:9/debian")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(seed, other); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, old, old); err != nil {
		t.Fatal(err)
	}
	ix, err = s.PackageIndex(t.Context(), "trixie", debenv.IndexConfig{Mirror: "http://127.0.0.1:9/debian"})
	if err != nil {
		t.Fatalf("stale cache not used: %v", err)
	}

	if _, ok := ix.Package("python3-scipy"); !ok {
		t.Error("stale cached index lacks python3-scipy")
	}
}
