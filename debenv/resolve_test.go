package debenv_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
)

func TestResolveLibraries(t *testing.T) {
	sid := readIndex(t, "sid")
	tests := []struct {
		name, in, wantName string
		wantPkgs           []string
	}{
		{"Catalogue", "numpy", "numpy", []string{"python3-numpy"}},
		{"CatalogueAnyCase", "Django", "django", []string{"python3-django"}},
		{"CatalogueSourceName", "scikit-learn", "scikit-learn", []string{"python3-sklearn"}},
		{"BareName", "boltons", "boltons", []string{"python3-boltons"}},
		{"PackageName", "python3-boltons", "boltons", []string{"python3-boltons"}},
		{"Underscore", "typing_extensions", "typing_extensions", []string{"python3-typing-extensions"}},
		{"SourcePackage", "pyyaml", "pyyaml", []string{"python3-yaml"}},
		{"PythonDashSource", "attrs", "attrs", []string{"python3-attr"}},
		{"MainOfAddOns", "Pillow", "pillow", []string{"python3-pil"}},
		{"SourceWithDifferentBinary", "beautifulsoup4", "beautifulsoup4", []string{"python3-bs4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			libs, err := debenv.ResolveLibraries([]string{tt.in}, sid)
			if err != nil {
				t.Fatal(err)
			}
			if len(libs) != 1 || libs[0].Name != tt.wantName || !slices.Equal(libs[0].Packages, tt.wantPkgs) {
				t.Errorf("ResolveLibraries(%q) = %+v; want %s %v", tt.in, libs, tt.wantName, tt.wantPkgs)
			}
		})
	}
}

func TestResolveLibraries_Preset(t *testing.T) {
	sid := readIndex(t, "sid")
	libs, err := debenv.ResolveLibraries([]string{"@sci", "numpy", "boltons"}, sid)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range libs {
		names = append(names, l.Name)
	}
	if want := []string{"numpy", "scipy", "pandas", "boltons"}; !slices.Equal(names, want) {
		t.Errorf("names = %v; want %v", names, want)
	}
}

func TestResolveLibraries_BadInput(t *testing.T) {
	sid, exp := readIndex(t, "sid"), readIndex(t, "experimental")
	t.Run("Unknown", func(t *testing.T) {
		_, err := debenv.ResolveLibraries([]string{"numpy", "boltonz"}, sid)
		e, ok := errors.AsType[*debenv.UnknownPackageError](err)
		if !ok {
			t.Fatalf("err = %v; want *UnknownPackageError", err)
		}
		if e.Suite != "sid" || e.Name != "boltonz" || len(e.Nearest) == 0 || e.Nearest[0] != "python3-boltons" {
			t.Errorf("error = %+v; want suite sid, name boltonz, nearest python3-boltons first", e)
		}
		for _, w := range []string{"sid", `"boltonz"`, "python3-boltonz", "nearest: python3-boltons"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("message %q lacks %q", err, w)
			}
		}
	})
	t.Run("UnknownOverlay", func(t *testing.T) {
		_, err := debenv.ResolveLibraries([]string{"pandsa"}, exp, sid)
		if err == nil || !strings.Contains(err.Error(), "experimental (over sid)") || !strings.Contains(err.Error(), "python3-pandas") {
			t.Errorf("err = %v; want one naming experimental (over sid) and python3-pandas", err)
		}
	})
	t.Run("NotPython", func(t *testing.T) {
		_, err := debenv.ResolveLibraries([]string{"less"}, sid)
		if _, ok := errors.AsType[*debenv.NotPythonError](err); !ok || !strings.Contains(err.Error(), "less") {
			t.Errorf("err = %v; want *NotPythonError naming less", err)
		}
	})
	t.Run("CatalogueMissingFromSuite", func(t *testing.T) {
		_, err := debenv.ResolveLibraries([]string{"rdkit"}, sid)
		if e, ok := errors.AsType[*debenv.UnknownPackageError](err); !ok || !slices.Equal(e.Tried, []string{"python3-rdkit"}) {
			t.Errorf("err = %v; want *UnknownPackageError for python3-rdkit", err)
		}
	})
	t.Run("UnknownPreset", func(t *testing.T) {
		_, err := debenv.ResolveLibraries([]string{"@widest"}, sid)
		if err == nil || !strings.Contains(err.Error(), "@widest") || !strings.Contains(err.Error(), "@wide") {
			t.Errorf("err = %v; want one naming @widest and the known presets", err)
		}
	})
	t.Run("NotAName", func(t *testing.T) {
		_, err := debenv.ResolveLibraries([]string{"a b"}, sid)
		if err == nil || !strings.Contains(err.Error(), `"a b"`) {
			t.Errorf("err = %v; want one quoting the name", err)
		}
	})
}

func TestResolvePackages(t *testing.T) {
	sid := readIndex(t, "sid")
	if err := debenv.ResolvePackages([]string{"less", "libre2-11-absl20260526"}, sid); err != nil {
		t.Errorf("a package and a virtual package: %v", err)
	}
	err := debenv.ResolvePackages([]string{"pandocc"}, sid)
	if e, ok := errors.AsType[*debenv.UnknownPackageError](err); !ok || len(e.Nearest) == 0 || e.Nearest[0] != "pandoc" {
		t.Errorf("err = %v; want *UnknownPackageError with pandoc nearest", err)
	}
}

// TestAptTargets checks the experimental overlay: only packages
// experimental has are taken from it.
func TestAptTargets(t *testing.T) {
	sid, exp := readIndex(t, "sid"), readIndex(t, "experimental")
	pkgs := []string{"python3", "python3-django", "python3-numpy", "python3-pandas"}
	got := debenv.AptTargets(pkgs, "experimental", []*debenv.PackageIndex{exp, sid})
	want := []string{"python3", "python3-django/experimental", "python3-numpy", "python3-pandas/experimental"}
	if !slices.Equal(got, want) {
		t.Errorf("AptTargets(experimental) = %v; want %v", got, want)
	}
	if got := debenv.AptTargets(pkgs, "sid", []*debenv.PackageIndex{sid}); !slices.Equal(got, pkgs) {
		t.Errorf("AptTargets(sid) = %v; want %v", got, pkgs)
	}
}

func TestParseAptMissing(t *testing.T) {
	out := "Reading package lists...\nE: Unable to locate package python3-nope\nE: Release 'experimental' for 'python3-numpy' was not found\n"
	if got, want := debenv.ParseAptMissing(out), []string{"python3-nope", "python3-numpy"}; !slices.Equal(got, want) {
		t.Errorf("ParseAptMissing = %v; want %v", got, want)
	}
}
