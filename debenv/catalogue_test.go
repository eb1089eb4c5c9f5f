package debenv_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
)

func TestLookupLibrary(t *testing.T) {
	tests := []struct {
		name, in, wantName, wantPkg, wantImport string
	}{
		{"Numpy", "numpy", "numpy", "python3-numpy", ""},
		{"Django", "django", "django", "python3-django", ""},
		{"MDAnalysisAnyCase", "mdanalysis", "MDAnalysis", "python3-mdanalysis", ""},
		{"ScikitLearn", "scikit-learn", "scikit-learn", "python3-sklearn", ""},
		{"Torch", "torch", "torch", "python3-torch", ""},
		{"PymatgenImportsCore", "pymatgen", "pymatgen", "python3-pymatgen", "pymatgen.core"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := debenv.LookupLibrary(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.wantName || len(got.Packages) != 1 || got.Packages[0] != tt.wantPkg || got.Import != tt.wantImport {
				t.Errorf("LookupLibrary(%q) = %+v; want %s %s %q", tt.in, got, tt.wantName, tt.wantPkg, tt.wantImport)
			}
		})
	}
}

func TestLookupLibrary_Unknown(t *testing.T) {
	_, err := debenv.LookupLibrary("leftpad")
	if err == nil {
		t.Fatal("LookupLibrary(leftpad) succeeded")
	}
	for _, want := range []string{`"leftpad"`, "numpy", "MDAnalysis", "torch", "python3-boltons"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestCatalogue checks that the catalogue covers the curated libraries and
// the wide preset, with Debian package names filled in.
func TestCatalogue(t *testing.T) {
	need := []string{"numpy", "scipy", "pandas", "django", "flask", "sqlalchemy", "httpx", "pydantic", "fastapi",
		"astropy", "ase", "rdkit", "MDAnalysis", "pymatgen", "networkx", "torch", "sympy", "matplotlib"}
	wide, ok := debenv.Preset("wide")
	if !ok {
		t.Fatal("no preset wide")
	}
	need = append(need, wide...)
	have := map[string]bool{}
	for _, l := range debenv.Catalogue() {
		if have[strings.ToLower(l.Name)] {
			t.Errorf("duplicate library %s", l.Name)
		}
		have[strings.ToLower(l.Name)] = true
		if len(l.Packages) == 0 {
			t.Errorf("incomplete entry %+v", l)
		}
		for _, p := range l.Packages {
			if !strings.HasPrefix(p, "python3-") {
				t.Errorf("%s: package %q is not a python3-* package", l.Name, p)
			}
		}
	}
	for _, n := range need {
		if !have[strings.ToLower(n)] {
			t.Errorf("catalogue lacks %s", n)
		}
	}
	// Catalogue returns a copy.
	c := debenv.Catalogue()
	c[0].Packages[0] = "changed"
	if debenv.Catalogue()[0].Packages[0] == "changed" {
		t.Error("Catalogue shares its package slices with the caller")
	}
}

func TestExpandLibraries(t *testing.T) {
	got, err := debenv.ExpandLibraries([]string{"boltons", "@sci", " SciPy", "", "@wide"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 17 || !slices.Equal(got[:4], []string{"boltons", "numpy", "scipy", "pandas"}) || got[16] != "torch" {
		t.Errorf("ExpandLibraries = %v; want boltons, the 3 of @sci, then the 13 other of @wide", got)
	}
	if _, err := debenv.ExpandLibraries([]string{"@nope"}); err == nil || !strings.Contains(err.Error(), "@sci, @wide") {
		t.Errorf("unknown preset: %v", err)
	}
}
