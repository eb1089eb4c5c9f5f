package debenv

import (
	"fmt"
	"slices"
	"strings"
)

// A Library is a Python library that environments can hold, installed from
// Debian packages (never from PyPI: the build machines reach Debian's archive
// only; docs/sandbox.md §4.5 step 4).
type Library struct {
	Name     string   // catalogue name, e.g. "numpy", "MDAnalysis"
	Packages []string // Debian binary packages, e.g. ["python3-numpy"]
	Import   string   // module to import to check it loads, e.g. "numpy"
	Dist     string   // distribution name for importlib.metadata.version, e.g. "Django"
}

// catalogue is the built-in library catalogue, sorted by lower-cased name.
// Package names were checked with `apt-cache show` against bookworm.
var catalogue = []Library{
	{Name: "ase", Packages: []string{"python3-ase"}, Import: "ase", Dist: "ase"},
	{Name: "astropy", Packages: []string{"python3-astropy"}, Import: "astropy", Dist: "astropy"},
	{Name: "django", Packages: []string{"python3-django"}, Import: "django", Dist: "Django"},
	{Name: "fastapi", Packages: []string{"python3-fastapi"}, Import: "fastapi", Dist: "fastapi"},
	{Name: "flask", Packages: []string{"python3-flask"}, Import: "flask", Dist: "Flask"},
	{Name: "httpx", Packages: []string{"python3-httpx"}, Import: "httpx", Dist: "httpx"},
	{Name: "matplotlib", Packages: []string{"python3-matplotlib"}, Import: "matplotlib", Dist: "matplotlib"},
	{Name: "MDAnalysis", Packages: []string{"python3-mdanalysis"}, Import: "MDAnalysis", Dist: "MDAnalysis"},
	{Name: "networkx", Packages: []string{"python3-networkx"}, Import: "networkx", Dist: "networkx"},
	{Name: "numpy", Packages: []string{"python3-numpy"}, Import: "numpy", Dist: "numpy"},
	{Name: "pandas", Packages: []string{"python3-pandas"}, Import: "pandas", Dist: "pandas"},
	{Name: "pydantic", Packages: []string{"python3-pydantic"}, Import: "pydantic", Dist: "pydantic"},
	{Name: "pymatgen", Packages: []string{"python3-pymatgen"}, Import: "pymatgen.core", Dist: "pymatgen"},
	{Name: "rdkit", Packages: []string{"python3-rdkit"}, Import: "rdkit", Dist: "rdkit"},
	{Name: "scipy", Packages: []string{"python3-scipy"}, Import: "scipy", Dist: "scipy"},
	{Name: "sqlalchemy", Packages: []string{"python3-sqlalchemy"}, Import: "sqlalchemy", Dist: "SQLAlchemy"},
	{Name: "sympy", Packages: []string{"python3-sympy"}, Import: "sympy", Dist: "sympy"},
	{Name: "torch", Packages: []string{"python3-torch"}, Import: "torch", Dist: "torch"},
}

// Catalogue returns a copy of the built-in library catalogue, sorted by
// lower-cased name.
func Catalogue() []Library {
	out := make([]Library, len(catalogue))
	for i, l := range catalogue {
		l.Packages = slices.Clone(l.Packages)
		out[i] = l
	}
	return out
}

// LookupLibrary returns the catalogue entry for name, matched without regard
// to case ("mdanalysis" finds MDAnalysis). An unknown name gives an error
// listing the known ones; use --packages for anything else.
func LookupLibrary(name string) (Library, error) {
	for _, l := range catalogue {
		if strings.EqualFold(l.Name, name) {
			l.Packages = slices.Clone(l.Packages)
			return l, nil
		}
	}
	names := make([]string, len(catalogue))
	for i, l := range catalogue {
		names[i] = l.Name
	}
	return Library{}, fmt.Errorf("unknown library %q; known: %s (add other Debian packages with --packages)",
		name, strings.Join(names, ", "))
}
