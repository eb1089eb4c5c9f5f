package debenv

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// An UnknownPackageError reports a library or package name that no package
// of the searched suite matches.
type UnknownPackageError struct {
	Suite   string   // suite searched, e.g. "sid" or "experimental and sid"
	Name    string   // as given
	Tried   []string // package names looked up
	Nearest []string // the suite's nearest package names, best first
}

func (e *UnknownPackageError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Debian %s has no package for %q (looked for %s)", e.Suite, e.Name, strings.Join(e.Tried, ", "))
	if len(e.Nearest) > 0 {
		fmt.Fprintf(&sb, "; nearest: %s", strings.Join(e.Nearest, ", "))
	} else {
		sb.WriteString("; no package has a similar name")
	}
	return sb.String()
}

// A NotPythonError reports a package that exists but installs no Python 3
// library: its name is not python3-* and it depends on no python3 package.
type NotPythonError struct {
	Suite, Name, Package string
}

func (e *NotPythonError) Error() string {
	return fmt.Sprintf("library %q: Debian %s package %s is not a Python 3 package (not python3-*, depends on no python3 package); install it with --packages if it is needed anyway",
		e.Name, e.Suite, e.Package)
}

// ResolveLibraries turns library names into libraries (docs/environments.md
// §3) of a suite whose
// Packages indexes are indexes (several for an overlay: experimental and
// sid; a package is found when any index has it). Names are expanded with
// [ExpandLibraries] first. Each name is, in order of preference:
//
//   - a catalogue name (case-insensitive): its curated packages;
//   - a name python3-NAME spells, NAME lower-cased with '_' and '.' also
//     read as '-' ("boltons", "typing_extensions");
//   - a Python 3 package's own name ("python3-boltons", or a package
//     named otherwise whose Depends name python3);
//   - a source package, NAME or python-NAME, that builds one main Python 3
//     package ("scikit-learn" gives python3-sklearn, "attrs"
//     python3-attr; -dev, -doc, -dbg and -lib packages aside, and add-ons
//     whose names extend the main one's);
//   - a virtual name one Python 3 package provides.
//
// A name that matches nothing is an [*UnknownPackageError] with the
// suite's nearest names; an existing package that is not a Python one is a
// [*NotPythonError]; a catalogue package missing from the suite is an
// [*UnknownPackageError] too. Libraries are returned in request order
// without repeats.
func ResolveLibraries(names []string, indexes ...*PackageIndex) ([]Library, error) {
	names, err := ExpandLibraries(names)
	if err != nil {
		return nil, err
	}
	var libs []Library
	for _, n := range names {
		l, err := resolveLibrary(n, indexes)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(libs, func(x Library) bool { return strings.EqualFold(x.Name, l.Name) }) {
			libs = append(libs, l)
		}
	}
	return libs, nil
}

// suiteLabel names the suite that indexes make up: "sid", or
// "experimental (over sid)" for the overlay.
func suiteLabel(indexes []*PackageIndex) string {
	if len(indexes) == 0 {
		return ""
	}
	label := indexes[0].Suite
	for _, ix := range indexes[1:] {
		label += " (over " + ix.Suite + ")"
	}
	return label
}

func lookup(indexes []*PackageIndex, name string) (*Package, bool) {
	for _, ix := range indexes {
		if p, ok := ix.Package(name); ok {
			return p, true
		}
	}
	return nil, false
}

func resolveLibrary(name string, indexes []*PackageIndex) (Library, error) {
	if l, err := LookupLibrary(name); err == nil {
		for _, p := range l.Packages {
			if _, ok := lookup(indexes, p); !ok {
				return Library{}, &UnknownPackageError{Suite: suiteLabel(indexes), Name: name, Tried: []string{p},
					Nearest: nearestIn(indexes, p, 5)}
			}
		}
		return l, nil
	}
	q := strings.ToLower(strings.TrimSpace(name))
	if !debNameRE.MatchString(strings.NewReplacer("_", "-").Replace(q)) {
		return Library{}, fmt.Errorf("library %q: not a catalogue name or a Debian package name", name)
	}
	libName := strings.TrimPrefix(q, "python3-")
	one := func(p *Package) (Library, error) {
		if !p.IsPython() {
			return Library{}, &NotPythonError{Suite: suiteLabel(indexes), Name: name, Package: p.Name}
		}
		return Library{Name: libName, Packages: []string{p.Name}}, nil
	}
	tried := []string{}
	try := func(pkg string) (*Package, bool) {
		if !slices.Contains(tried, pkg) {
			tried = append(tried, pkg)
		}
		return lookup(indexes, pkg)
	}
	if !strings.HasPrefix(q, "python3-") {
		for _, v := range []string{q, strings.ReplaceAll(q, "_", "-"), strings.NewReplacer("_", "-", ".", "-").Replace(q)} {
			if p, ok := try("python3-" + v); ok {
				return one(p)
			}
		}
	}
	if p, ok := try(q); ok {
		return one(p)
	}
	// A source package (Debian often calls it python-NAME), or a virtual
	// package, with one main Python 3 binary.
	for _, by := range []struct{ kind, name string }{{"source", q}, {"source", "python-" + q}, {"virtual", q}} {
		var cands []string
		for _, ix := range indexes {
			ps := ix.BySource(by.name)
			if by.kind == "virtual" {
				ps = ix.Providers(by.name)
			}
			for _, p := range ps {
				if strings.HasPrefix(p.Name, "python3-") && !auxiliary(p.Name) && !slices.Contains(cands, p.Name) {
					cands = append(cands, p.Name)
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		slices.Sort(cands)
		// One name that prefixes the others is the library and the
		// others its add-ons (python3-pil, python3-pil.imagetk).
		if !slices.ContainsFunc(cands[1:], func(c string) bool { return !strings.HasPrefix(c, cands[0]) }) {
			p, _ := lookup(indexes, cands[0])
			return one(p)
		}
		return Library{}, fmt.Errorf("library %q: Debian %s's %s package %s has several Python 3 packages: %s; name one",
			name, suiteLabel(indexes), by.kind, by.name, strings.Join(cands, ", "))
	}
	return Library{}, &UnknownPackageError{Suite: suiteLabel(indexes), Name: name, Tried: tried, Nearest: nearestIn(indexes, q, 5)}
}

// auxiliary reports whether a binary package name is a helper of a
// library's main package (headers, documentation, debug symbols, compiled
// parts split off, tests) rather than the library.
func auxiliary(name string) bool {
	for _, s := range []string{"-dev", "-doc", "-dbg", "-dbgsym", "-lib", "-tests", "-examples", "-data"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// ResolvePackages checks extra Debian packages against the suite's indexes:
// each must be a package or a virtual package something provides. A
// missing one is an [*UnknownPackageError] with the nearest names.
func ResolvePackages(pkgs []string, indexes ...*PackageIndex) error {
	for _, p := range pkgs {
		if !debNameRE.MatchString(p) {
			return fmt.Errorf("package %q: not a Debian package name", p)
		}
		if _, ok := lookup(indexes, p); ok {
			continue
		}
		provided := false
		for _, ix := range indexes {
			provided = provided || len(ix.Providers(p)) > 0
		}
		if !provided {
			return &UnknownPackageError{Suite: suiteLabel(indexes), Name: p, Tried: []string{p}, Nearest: nearestIn(indexes, p, 5)}
		}
	}
	return nil
}

// A Resolution is one library resolved in several suites by
// [Store.Resolve].
type Resolution struct {
	Library  string   `json:"library"`  // as requested (presets expanded)
	Packages []string `json:"packages"` // Debian packages, from the first suite that has them
	// Versions maps each suite to the version of the library's first
	// package there ("" where it is missing); for experimental, the
	// version experimental has, else sid's.
	Versions map[string]string `json:"versions"`
	// Errors maps each suite where the name does not resolve to why.
	Errors map[string]string `json:"errors,omitempty"`
}

// Resolve resolves library names (as [ResolveLibraries] takes them) in each
// of suites from their Packages indexes, without building anything. A
// name that one suite lacks is recorded in that suite's Errors and the
// others go on; an error is returned only for an unknown suite, an unknown
// preset or an index that cannot be read.
func (s *Store) Resolve(ctx context.Context, suiteNames, names []string, cfg IndexConfig) ([]Resolution, error) {
	names, err := ExpandLibraries(names)
	if err != nil {
		return nil, err
	}
	byName := map[string][]*PackageIndex{}
	for _, su := range suiteNames {
		if !slices.Contains(suites, su) {
			return nil, fmt.Errorf("unknown suite %q; known: %s", su, strings.Join(suites, ", "))
		}
		for _, x := range indexSuites(su) {
			ix, err := s.PackageIndex(ctx, x, cfg)
			if err != nil {
				return nil, err
			}
			byName[su] = append(byName[su], ix)
		}
	}
	var out []Resolution
	for _, n := range names {
		r := Resolution{Library: n, Versions: map[string]string{}, Errors: map[string]string{}}
		for _, su := range suiteNames {
			ixs := byName[su]
			libs, err := ResolveLibraries([]string{n}, ixs...)
			if err != nil {
				r.Errors[su] = err.Error()
				continue
			}
			if r.Packages == nil {
				r.Packages = libs[0].Packages
			}
			if p, ok := lookup(ixs, libs[0].Packages[0]); ok {
				r.Versions[su] = p.Version
			}
		}
		if len(r.Errors) == 0 {
			r.Errors = nil
		}
		out = append(out, r)
	}
	return out, nil
}
