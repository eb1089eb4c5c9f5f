package private

import (
	"errors"
	"fmt"
	"strings"

	"github.com/novelapi/novelapi/debenv"
)

// A Dependency is one declared requirement of a library and what
// satisfies it: a private library added earlier, or a Debian package.
type Dependency struct {
	Requirement
	// Private is the library name of the added private library that
	// provides it; "" when Debian does.
	Private string
	// Package is the Debian binary package that provides it
	// ("python3-attr"); "" when a private library does.
	Package string
	// Note says what is approximate about the match (Debian's version
	// outside the specifier); "" when nothing is.
	Note string
}

// A MissingDependencyError reports a declared dependency that neither an
// added private library nor the suite's Debian packages provide.
type MissingDependencyError struct {
	Library     string // the library being added
	Requirement string // as declared
	Suite       string
	Tried       []string // Debian package names looked for
	Nearest     []string
}

func (e *MissingDependencyError) Error() string {
	msg := fmt.Sprintf("%s depends on %s, which no added private library provides and Debian %s lacks (looked for %s)",
		e.Library, e.Requirement, e.Suite, strings.Join(e.Tried, ", "))
	if len(e.Nearest) > 0 {
		msg += "; nearest Debian packages: " + strings.Join(e.Nearest, ", ")
	}
	return msg + "; add that library first with novelapi add PATH"
}

// MapDependencies returns what satisfies each of s's requirements that
// applies on p (PEP 508 markers): an added private library first
// (provided maps library names, [LibraryName], to their versions), else the
// Debian package that debenv resolves the distribution name to in the
// suite's indexes (python3-NAME, the source package python-NAME, a virtual
// package; docs/environments.md §3). A private library whose version is
// outside the requirement's specifier is an error; a Debian version outside
// it is noted. The first requirement nothing satisfies is a
// [*MissingDependencyError].
func MapDependencies(s *Source, p Platform, provided map[string]string, indexes ...*debenv.PackageIndex) ([]Dependency, error) {
	var out []Dependency
	for _, r := range s.Requires {
		if !r.Applies(p) {
			continue
		}
		name := LibraryName(r.Name)
		if name == LibraryName(s.Name) {
			continue
		}
		if v, ok := provided[name]; ok {
			if !r.Allows(v) {
				return nil, fmt.Errorf("%s depends on %s, but the private library %s added is version %s", s.Name, r.Line, name, v)
			}
			out = append(out, Dependency{Requirement: r, Private: name})
			continue
		}
		libs, err := debenv.ResolveLibraries([]string{r.Name}, indexes...)
		if err != nil {
			miss := &MissingDependencyError{Library: s.Name, Requirement: r.Line}
			if len(indexes) > 0 {
				miss.Suite = indexes[0].Suite
			}
			if ue, ok := errors.AsType[*debenv.UnknownPackageError](err); ok {
				miss.Tried, miss.Nearest, miss.Suite = ue.Tried, ue.Nearest, ue.Suite
				return nil, miss
			}
			return nil, fmt.Errorf("%s depends on %s: %w", s.Name, r.Line, err)
		}
		d := Dependency{Requirement: r, Package: libs[0].Packages[0]}
		for _, ix := range indexes {
			if pkg, ok := ix.Package(d.Package); ok {
				if up := upstreamVersion(pkg.Version); !r.Allows(up) {
					d.Note = fmt.Sprintf("Debian %s has %s %s, outside %s", ix.Suite, d.Package, pkg.Version, r.Specifier)
				}
				break
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// upstreamVersion strips a Debian version's epoch and revision
// ("1:2.3.0-1+b2" → "2.3.0") and Debian's repack suffixes ("+dfsg", "+ds").
func upstreamVersion(v string) string {
	if _, rest, ok := strings.Cut(v, ":"); ok {
		v = rest
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	if i := strings.IndexAny(v, "+~"); i > 0 {
		v = v[:i]
	}
	return v
}
