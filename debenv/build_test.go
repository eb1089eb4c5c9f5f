package debenv_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

func TestKey(t *testing.T) {
	pkgs := []string{"python3", "python3-numpy", "python3-pandas", "python3-scipy"}
	// The key must stay stable across releases: it decides whether a cached
	// environment is reused.
	const want = "35cd7134f3f2376a786180f2da1a835490bf1cf15d228f22d2054e8a0afd002f"
	if got := debenv.Key("trixie", pkgs); got != want {
		t.Errorf("Key(trixie, %v) = %s; want %s", pkgs, got, want)
	}
	shuffled := []string{"python3-scipy", "python3", "python3-numpy", "python3-pandas", "python3-numpy"}
	if got := debenv.Key("trixie", shuffled); got != want {
		t.Errorf("Key depends on order or duplicates: %s", got)
	}
	if debenv.Key("bookworm", pkgs) == want {
		t.Error("Key ignores the suite")
	}
	if debenv.Key("trixie", pkgs[:3]) == want {
		t.Error("Key ignores a package")
	}
}

func TestRequestedPackages(t *testing.T) {
	np, _ := debenv.LookupLibrary("numpy")
	sp, _ := debenv.LookupLibrary("scipy")
	got := debenv.RequestedPackages([]debenv.Library{sp, np}, []string{"less", "python3-numpy"})
	want := []string{"less", "python3", "python3-numpy", "python3-scipy"}
	if !slices.Equal(got, want) {
		t.Errorf("RequestedPackages = %v; want %v", got, want)
	}
}

// TestStore_Build_BadInput covers the errors Build gives before running
// anything, which need neither root nor network (the suites' Packages
// indexes are real excerpts, seeded into the store's cache).
func TestStore_Build_BadInput(t *testing.T) {
	tests := []struct {
		name string
		cfg  debenv.BuildConfig
		want []string
	}{
		{"UnknownSuite", debenv.BuildConfig{Suite: "jessie", Libraries: []string{"numpy"}},
			[]string{`"jessie"`, "bookworm", "trixie", "sid", "experimental"}},
		{"UnknownLibrary", debenv.BuildConfig{Suite: "trixie", Libraries: []string{"numpy", "boltonz"}},
			[]string{`"boltonz"`, "Debian trixie", "nearest: python3-boltons"}},
		{"UnknownLibraryOverlay", debenv.BuildConfig{Suite: "experimental", Libraries: []string{"pandsa"}},
			[]string{`"pandsa"`, "experimental (over sid)", "python3-pandas"}},
		{"NotPython", debenv.BuildConfig{Suite: "trixie", Libraries: []string{"less"}},
			[]string{`"less"`, "not a Python 3 package"}},
		{"UnknownPreset", debenv.BuildConfig{Suite: "trixie", Libraries: []string{"@big"}},
			[]string{`"@big"`, "@wide"}},
		{"UnknownPackage", debenv.BuildConfig{Suite: "sid", Libraries: []string{"numpy"}, Packages: []string{"pandocc"}},
			[]string{`"pandocc"`, "Debian sid", "pandoc"}},
		{"BadPackage", debenv.BuildConfig{Suite: "trixie", Packages: []string{"a,b"}},
			[]string{`"a,b"`}},
		{"BadName", debenv.BuildConfig{Suite: "trixie", Name: "../x"},
			[]string{`"../x"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := debenv.OpenStore(t.TempDir())
			for _, su := range []string{"trixie", "sid", "experimental"} {
				seedIndex(t, s, su)
			}
			_, err := s.Build(t.Context(), tt.cfg)
			if err == nil {
				t.Fatal("Build succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
			if _, err := os.Stat(s.Dir); err == nil {
				ents, _ := os.ReadDir(s.Dir)
				if len(ents) > 0 {
					t.Errorf("rejected build left %d entries in the store", len(ents))
				}
			}
		})
	}
}

// TestParseMissingDebs parses real debootstrap output, captured from
// `debootstrap --variant=minbase --include=python3,python3-bogus-nonexistent trixie ...`.
func TestParseMissingDebs(t *testing.T) {
	data, err := os.ReadFile("testdata/debootstrap/missing-package.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := debenv.ParseMissingDebs(string(data)), []string{"python3-bogus-nonexistent"}; !slices.Equal(got, want) {
		t.Errorf("ParseMissingDebs = %v; want %v", got, want)
	}
	if got := debenv.ParseMissingDebs("I: Retrieving InRelease\nE: Failed getting release file\n"); got != nil {
		t.Errorf("ParseMissingDebs(other failure) = %v; want nil", got)
	}
	if got, want := debenv.ParseMissingDebs("E: Couldn't find these debs: a b\n"), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("ParseMissingDebs(two) = %v; want %v", got, want)
	}
	msg := (&debenv.MissingPackagesError{Suite: "trixie", Packages: []string{"python3-bogus-nonexistent"}}).Error()
	for _, w := range []string{"trixie", "python3-bogus-nonexistent"} {
		if !strings.Contains(msg, w) {
			t.Errorf("MissingPackagesError %q does not name %s", msg, w)
		}
	}
}

// TestStore_Remove checks that Remove deletes an environment and the
// leftovers of an interrupted build, which List never shows.
func TestStore_Remove(t *testing.T) {
	s := debenv.OpenStore(t.TempDir())
	for _, d := range []string{"demo/rootfs", ".build-demo-123/rootfs"} {
		if err := os.MkdirAll(filepath.Join(s.Dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"demo", ".build-demo-123"} {
		if err := debenv.WriteManifest(filepath.Join(s.Dir, d), sandbox.Manifest{Name: "demo", Suite: "trixie"}); err != nil {
			t.Fatal(err)
		}
	}
	envs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 1 || envs[0].Name != "demo" {
		t.Fatalf("List = %v; want only demo (an interrupted build is never listed)", envs)
	}
	if err := s.Remove(t.Context(), "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("demo"); !errors.Is(err, debenv.ErrUnknownEnvironment) {
		t.Errorf("Get after Remove: %v; want ErrUnknownEnvironment", err)
	}
	ents, _ := os.ReadDir(s.Dir)
	for _, e := range ents {
		if e.IsDir() {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if err := s.Remove(t.Context(), "demo"); !errors.Is(err, debenv.ErrUnknownEnvironment) {
		t.Errorf("second Remove: %v; want ErrUnknownEnvironment", err)
	}
}
