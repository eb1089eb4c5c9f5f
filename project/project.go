// Package project reads which version of each Python library an agent's
// project uses, from the files a Python project keeps (docs/projects.md):
// an installed *.dist-info in a virtual environment inside it, uv.lock,
// poetry.lock, requirements*.txt and pyproject.toml ([project]
// dependencies, [dependency-groups], Poetry's [tool.poetry.dependencies]).
// The MCP tools serve the version it finds; every declaration keeps the
// file and line it came from, so an answer can name them.
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/private"
)

// Kinds of declaration, most precise first: a project's files are read in
// this order and the first kind that declares a library decides its version.
const (
	KindInstalled    = "installed"    // a *.dist-info in a virtual environment of the project
	KindUVLock       = "uv.lock"      // uv's lock file
	KindPoetryLock   = "poetry.lock"  // Poetry's lock file
	KindRequirements = "requirements" // requirements*.txt, requirements/*.txt and the files they include
	KindPyproject    = "pyproject"    // pyproject.toml: [project], [dependency-groups], [tool.poetry]
)

// Kinds lists the kinds in precedence order.
var Kinds = []string{KindInstalled, KindUVLock, KindPoetryLock, KindRequirements, KindPyproject}

// A Requirement is one declaration of a library in a project file.
type Requirement struct {
	Name string // distribution name as written ("Typing_Extensions")
	// Specifiers are the versions the declaration allows: a version is
	// allowed when one of them contains it. A PEP 508 line has one (the
	// zero Specifier when it names no version); Poetry's "^1.0 || ^2.0"
	// and a lock file that locks one library at several versions (one per
	// Python) have several.
	Specifiers []pyversion.Specifier
	Marker     string // PEP 508 environment marker, "" when none
	Kind       string // one of Kinds
	File       string // relative to the project directory
	Line       int    // 1-based; 0 when the line is not known
	Text       string // the declaration as written ("numpy>=1.26,<2.5", "numpy 2.2.4")
	// Local is the path or file URL a declaration installs the library
	// from (a uv.lock or poetry.lock source directory, "name @ file:..."),
	// "" when it comes from a package index.
	Local string
}

// Where returns "FILE:LINE", or FILE when the line is not known.
func (r Requirement) Where() string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d", r.File, r.Line)
	}
	return r.File
}

// Allows reports whether v is a version the declaration allows.
func (r Requirement) Allows(v pyversion.Version) bool {
	if len(r.Specifiers) == 0 {
		return true
	}
	for _, s := range r.Specifiers {
		if s.Contains(v) {
			return true
		}
	}
	return false
}

// Pin returns the one version the declaration allows ("==2.2.4", a locked
// or installed version); ok is false for a range.
func (r Requirement) Pin() (pyversion.Version, bool) {
	if len(r.Specifiers) != 1 {
		return pyversion.Version{}, false
	}
	return r.Specifiers[0].Pin()
}

// Anchor returns the version the declaration is closest to (see
// [pyversion.Specifier.Anchor]): of several alternatives (a lock's
// versions, Poetry's "||"), the highest.
func (r Requirement) Anchor() (best pyversion.Version, ok bool) {
	for _, s := range r.Specifiers {
		if v, vok := s.Anchor(); vok && (!ok || v.Compare(best) > 0) {
			best, ok = v, true
		}
	}
	return best, ok
}

// A Warning is a line of a project file that could not be read. Name is
// the normalized name of the library it seems to declare, "" when even
// that is unknown.
type Warning struct {
	File string
	Line int
	Name string
	Msg  string
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
	}
	return w.File + ": " + w.Msg
}

// A FileError reports a project file that cannot be read at all (a
// pyproject.toml or lock file that is not TOML): no version in it is known.
type FileError struct {
	File string // relative to the project directory
	Line int    // 1-based; 0 when not known
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ErrNotDir is returned by [Read] for a path that is not a directory.
var ErrNotDir = errors.New("project: not a directory")

// CheckDir reports whether dir can be a project: an error wrapping
// fs.ErrNotExist for a missing path, ErrNotDir for a path that is not a
// directory. serve --project and up --project call it at startup, so that
// a mistyped path fails there and not on every call (docs/projects.md §2).
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("project %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s", ErrNotDir, dir)
	}
	return nil
}

// A Project is what an agent's project directory declares about the
// libraries it uses. It is read once by [Read] and safe for concurrent use.
type Project struct {
	Dir string // absolute
	// Python is the version of the project's virtual environment
	// (pyvenv.cfg), against which environment markers are evaluated; ""
	// when the project has none, and markers on the Python version then
	// count as true.
	Python string
	// Files lists the files read, relative to Dir, in precedence order.
	Files []string
	// Warnings lists the lines that could not be read.
	Warnings []Warning
	reqs     map[string][]Requirement // by normalized name, in precedence order
}

// Read reads the project in dir. It fails with ErrNotDir when dir is not
// a directory and with a *[FileError] when a TOML file (pyproject.toml,
// uv.lock, poetry.lock) does not parse; a line it cannot read in a file it
// can is a [Warning]. A directory with none of the files is a Project
// that declares nothing.
func Read(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNotDir, dir)
	}
	p := &Project{Dir: abs, reqs: map[string][]Requirement{}}
	for _, read := range []func() error{p.readInstalled, p.readUVLock, p.readPoetryLock, p.readRequirements, p.readPyproject} {
		if err := read(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// add records r under its normalized name.
func (p *Project) add(r Requirement) {
	n := private.NormalizeName(r.Name)
	p.reqs[n] = append(p.reqs[n], r)
}

// warn records a line that could not be read.
func (p *Project) warn(file string, line int, name, format string, a ...any) {
	if name != "" {
		name = private.NormalizeName(name)
	}
	p.Warnings = append(p.Warnings, Warning{File: file, Line: line, Name: name, Msg: fmt.Sprintf(format, a...)})
}

// readFile returns the content of rel, or ok false when it does not exist
// (or is not a regular file).
func (p *Project) readFile(rel string) (data []byte, ok bool, err error) {
	path := filepath.Join(p.Dir, rel)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	p.Files = append(p.Files, rel)
	return data, true, nil
}

// Lookup returns how the project declares a library, by any of its
// distribution names (compared in PEP 503 normal form): the declarations
// of the most precise kind that has any whose environment marker holds
// ([Kinds]), in file order. ok is false when the project does not mention
// the library (or only under markers that do not hold).
func (p *Project) Lookup(names ...string) ([]Requirement, bool) {
	var all []Requirement
	for _, n := range names {
		for _, r := range p.reqs[private.NormalizeName(n)] {
			if !slices.ContainsFunc(all, func(o Requirement) bool { return o.File == r.File && o.Line == r.Line && o.Text == r.Text }) {
				all = append(all, r)
			}
		}
	}
	plat := private.Platform{Python: p.Python, Machine: private.Machine()}
	for _, kind := range Kinds {
		var out []Requirement
		for _, r := range all {
			if r.Kind == kind && (private.Requirement{Marker: r.Marker}).Applies(plat) {
				out = append(out, r)
			}
		}
		if len(out) > 0 {
			return out, true
		}
	}
	return nil, false
}

// WarningsFor returns the warnings about lines that declare one of names,
// or whose library is unknown.
func (p *Project) WarningsFor(names ...string) []Warning {
	var out []Warning
	for _, w := range p.Warnings {
		if w.Name == "" || slices.ContainsFunc(names, func(n string) bool { return private.NormalizeName(n) == w.Name }) {
			out = append(out, w)
		}
	}
	return out
}

// Libraries returns the normalized names of every library the project
// declares, sorted.
func (p *Project) Libraries() []string {
	out := make([]string, 0, len(p.reqs))
	for n := range p.reqs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// exact returns the specifier set "==v" of a locked or installed version;
// a version that is not PEP 440 becomes "===v".
func exact(v string) (pyversion.Specifier, error) {
	if _, ok := pyversion.Parse(v); ok {
		return pyversion.ParseSpecifierSet("==" + v)
	}
	return pyversion.ParseSpecifierSet("===" + v)
}

// lineOf returns the 1-based number of the first line at or after from
// (0-based) for which match holds, 0 when none does.
func lineOf(lines []string, from int, match func(string) bool) int {
	for i := max(from, 0); i < len(lines); i++ {
		if match(lines[i]) {
			return i + 1
		}
	}
	return 0
}

// splitLines splits data into lines without their line ends.
func splitLines(data []byte) []string {
	return strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
}

func specs(s ...pyversion.Specifier) []pyversion.Specifier { return s }
