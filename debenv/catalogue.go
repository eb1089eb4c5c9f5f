package debenv

import (
	"fmt"
	"slices"
	"strings"
)

// A Library is a Python library that environments can hold, installed from
// Debian packages (never from PyPI: the build machines reach Debian's archive
// only; docs/sandbox.md §4.5 step 4). Its distribution name, import names and
// version are read from its packages' files inside the environment after
// the build (sandbox.Manifest.Installed), never kept here.
type Library struct {
	// Name is the catalogue name ("numpy", "MDAnalysis") or, for a library
	// named by its Debian package, the name as given without "python3-"
	// ("boltons" for python3-boltons).
	Name     string
	Packages []string // Debian binary packages, e.g. ["python3-numpy"]
	// Import is the module to import to check that the library loads when
	// its main top-level module is not the right one (pymatgen is a
	// namespace package: "pymatgen.core"); "" means the main top-level
	// module found in its packages' files.
	Import string
}

// catalogue is the built-in library catalogue: curated defaults, sorted by
// lower-cased name. Any other Debian package can be asked for by name
// ([ResolveLibraries]).
var catalogue = []Library{
	{Name: "ase", Packages: []string{"python3-ase"}},
	{Name: "astropy", Packages: []string{"python3-astropy"}},
	{Name: "django", Packages: []string{"python3-django"}},
	{Name: "fastapi", Packages: []string{"python3-fastapi"}},
	{Name: "flask", Packages: []string{"python3-flask"}},
	{Name: "httpx", Packages: []string{"python3-httpx"}},
	{Name: "matplotlib", Packages: []string{"python3-matplotlib"}},
	{Name: "MDAnalysis", Packages: []string{"python3-mdanalysis"}},
	{Name: "networkx", Packages: []string{"python3-networkx"}},
	{Name: "numpy", Packages: []string{"python3-numpy"}},
	{Name: "pandas", Packages: []string{"python3-pandas"}},
	{Name: "pydantic", Packages: []string{"python3-pydantic"}},
	{Name: "pymatgen", Packages: []string{"python3-pymatgen"}, Import: "pymatgen.core"},
	{Name: "rdkit", Packages: []string{"python3-rdkit"}},
	{Name: "scikit-learn", Packages: []string{"python3-sklearn"}},
	{Name: "scipy", Packages: []string{"python3-scipy"}},
	{Name: "sqlalchemy", Packages: []string{"python3-sqlalchemy"}},
	{Name: "sympy", Packages: []string{"python3-sympy"}},
	{Name: "torch", Packages: []string{"python3-torch"}},
	{Name: "xarray", Packages: []string{"python3-xarray"}},
}

// presets are named lists of libraries, asked for as "@NAME" wherever
// libraries are taken.
var presets = map[string][]string{
	// sci is the default span's three libraries.
	"sci": {"numpy", "scipy", "pandas"},
	// wide holds the libraries the published benchmark and Debian share,
	// plus the usual scientific and web stack.
	"wide": {"numpy", "scipy", "pandas", "django", "flask", "httpx", "pydantic", "sqlalchemy", "astropy",
		"fastapi", "networkx", "sympy", "scikit-learn", "xarray", "matplotlib", "torch"},
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

// Presets returns the preset names, sorted, without the '@'.
func Presets() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Preset returns the libraries of preset name (without the '@').
func Preset(name string) ([]string, bool) {
	p, ok := presets[strings.ToLower(name)]
	return slices.Clone(p), ok
}

// ExpandLibraries replaces each "@NAME" in names by the preset's libraries
// and drops repeats (without regard to case), keeping the first
// occurrence's order. An unknown preset is an error listing the known ones.
func ExpandLibraries(names []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if k := strings.ToLower(n); !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if p, ok := strings.CutPrefix(n, "@"); ok {
			libs, ok := Preset(p)
			if !ok {
				return nil, fmt.Errorf("unknown library preset %q; known: @%s", n, strings.Join(Presets(), ", @"))
			}
			for _, l := range libs {
				add(l)
			}
			continue
		}
		add(n)
	}
	return out, nil
}

// LookupLibrary returns the catalogue entry for name, matched without regard
// to case ("mdanalysis" finds MDAnalysis). An unknown name gives an error
// listing the known ones; [ResolveLibraries] also takes Debian packages.
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
	return Library{}, fmt.Errorf("unknown library %q; known: %s (any Debian package is taken too when the suite is known, e.g. env build --libraries python3-boltons)",
		name, strings.Join(names, ", "))
}
