package debenv_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
)

func TestLookupLibrary(t *testing.T) {
	tests := []struct {
		name, in, wantName, wantPkg, wantImport, wantDist string
	}{
		{"Numpy", "numpy", "numpy", "python3-numpy", "numpy", "numpy"},
		{"DjangoDist", "django", "django", "python3-django", "django", "Django"},
		{"SQLAlchemyDist", "sqlalchemy", "sqlalchemy", "python3-sqlalchemy", "sqlalchemy", "SQLAlchemy"},
		{"FlaskDist", "flask", "flask", "python3-flask", "flask", "Flask"},
		{"MDAnalysisAnyCase", "mdanalysis", "MDAnalysis", "python3-mdanalysis", "MDAnalysis", "MDAnalysis"},
		{"Rdkit", "rdkit", "rdkit", "python3-rdkit", "rdkit", "rdkit"},
		{"Torch", "torch", "torch", "python3-torch", "torch", "torch"},
		{"PymatgenImportsCore", "pymatgen", "pymatgen", "python3-pymatgen", "pymatgen.core", "pymatgen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := debenv.LookupLibrary(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.wantName || len(got.Packages) != 1 || got.Packages[0] != tt.wantPkg ||
				got.Import != tt.wantImport || got.Dist != tt.wantDist {
				t.Errorf("LookupLibrary(%q) = %+v; want %s %s %s %s", tt.in, got, tt.wantName, tt.wantPkg, tt.wantImport, tt.wantDist)
			}
		})
	}
}

func TestLookupLibrary_Unknown(t *testing.T) {
	_, err := debenv.LookupLibrary("leftpad")
	if err == nil {
		t.Fatal("LookupLibrary(leftpad) succeeded")
	}
	for _, want := range []string{`"leftpad"`, "numpy", "MDAnalysis", "torch", "--packages"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestCatalogue checks that the catalogue covers the libraries novelapi
// builds environments for, with Debian package names and import/distribution names filled in.
func TestCatalogue(t *testing.T) {
	need := []string{"numpy", "scipy", "pandas", "django", "flask", "sqlalchemy", "httpx", "pydantic", "fastapi",
		"astropy", "ase", "rdkit", "MDAnalysis", "pymatgen", "networkx", "torch", "sympy", "matplotlib"}
	have := map[string]bool{}
	for _, l := range debenv.Catalogue() {
		if have[strings.ToLower(l.Name)] {
			t.Errorf("duplicate library %s", l.Name)
		}
		have[strings.ToLower(l.Name)] = true
		if len(l.Packages) == 0 || l.Import == "" || l.Dist == "" {
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
