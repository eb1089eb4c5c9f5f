package private

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/pyversion"
)

// Kinds of [Source], as the user handed the library over.
const (
	KindTree      = "source tree"    // pyproject.toml, setup.cfg or setup.py
	KindWheel     = "wheel"          // *.whl
	KindSdist     = "sdist"          // *.tar.gz, *.tgz, *.zip with a PKG-INFO
	KindInstalled = "installed tree" // a site-packages directory with *.dist-info
)

// ErrNotProject reports a path that holds no Python project.
var ErrNotProject = errors.New("private: not a Python project")

// A Source is one library as handed to [Open], read but not installed.
type Source struct {
	// Path is the absolute path handed to Open; Revision the git commit it
	// was read at ("" for the working tree or a file).
	Path, Revision string
	Kind           string
	// Name is the distribution name as declared ("boltons"); Version its
	// version ("25.0.0").
	Name, Version string
	// VersionFrom says where the version of a source tree that declares it
	// dynamic was found: a version file ("src/pluggy/_version.py"), "git
	// tag v1.5.0" or "--version"; "" for a declared version.
	VersionFrom string
	// Requires are the declared dependencies, in declaration order.
	Requires []Requirement
	// Imports are the top-level import names the library installs,
	// sorted; Import is the main one: the one with the most modules, named
	// like the distribution on a tie.
	Imports []string
	Import  string
	// Files maps each installed file's path relative to site-packages
	// ("boltons/iterutils.py") to where it is read from.
	Files map[string]string
	// Wheel holds the tags of a wheel ("py3-none-any" →
	// {"py3"},{"none"},{"any"}); nil for other kinds.
	Wheel *WheelTags
	// Declared names where name, version and dependencies were read
	// ("pyproject.toml", "PKG-INFO", "boltons-25.0.0.dist-info/METADATA").
	Declared string
	// Project is the project directory a source tree, an sdist or a git
	// revision was read from, where its own docs/ and tests/ are ([Source.Docs],
	// [Source.Tests]); "" for a wheel or an installed tree. It lasts until
	// Close. ProjectLabel is how files under it are named to users: the
	// tree's path, PATH@COMMIT for a revision, the archive's path joined
	// with its top directory for an sdist ("/src/toolz-1.0.0.tar.gz/toolz-1.0.0").
	Project, ProjectLabel string

	tmp string // extraction directory, removed by Close
}

// Label is how bundles and list_libraries name where the library came
// from: the path, with "@REV" for a git revision.
func (s *Source) Label() string {
	if s.Revision != "" {
		return s.Path + "@" + s.Revision
	}
	return s.Path
}

// Docs returns the project's documentation folder, the first of docs/
// and doc/ it has, and how users name it; "" when it has neither.
func (s *Source) Docs() (dir, label string) { return s.projectDir("docs", "doc") }

// Tests returns the project's folder of test modules, the first of
// tests/, test/ and testing/ it has, and how users name it; "" when it
// has none (the tests of a package, src/PKG/tests, are installed with it).
func (s *Source) Tests() (dir, label string) { return s.projectDir("tests", "test", "testing") }

func (s *Source) projectDir(names ...string) (string, string) {
	if s.Project == "" {
		return "", ""
	}
	for _, n := range names {
		if p := filepath.Join(s.Project, n); isDir(p) {
			return p, s.ProjectLabel + "/" + n
		}
	}
	return "", ""
}

// Close removes what Open extracted. It is safe to call more than once.
func (s *Source) Close() error {
	if s.tmp == "" {
		return nil
	}
	err := os.RemoveAll(s.tmp)
	s.tmp = ""
	return err
}

// OpenOptions says what [Open] reads. The zero value reads the path as it
// is.
type OpenOptions struct {
	// Rev, when not "", is a git revision of the source tree at the path,
	// read with git archive without touching the working tree.
	Rev string
	// Version is the version of a source tree that declares its version
	// dynamic (setuptools-scm, versioneer, hatch-vcs compute it at build
	// time; docs/private.md §1); "" means find it. A version the library
	// declares (in its pyproject.toml, setup.cfg, setup.py, or a wheel's,
	// sdist's or installed tree's metadata) must equal it.
	Version string
}

// Open reads the library at path: a wheel, an sdist, a source tree or an
// installed tree (a directory with exactly one *.dist-info), at opts.Rev
// when it is set. The caller must Close the Source. Errors name the path
// and what was looked for: [ErrNotProject] for a path that is none of
// these.
func Open(ctx context.Context, path string, opts OpenOptions) (src *Source, err error) {
	if opts.Version != "" {
		if _, ok := pyversion.Parse(opts.Version); !ok {
			return nil, fmt.Errorf("add %s: version %q is not a PEP 440 version", path, opts.Version)
		}
	}
	rev := opts.Rev
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("add %s: %w", path, err)
	}
	s := &Source{Path: abs}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	dir := abs
	switch {
	case rev != "":
		if !fi.IsDir() {
			return nil, fmt.Errorf("add %s@%s: a git revision needs a source tree, not a file", path, rev)
		}
		if s.tmp, err = os.MkdirTemp("", "novelapi-add-"); err != nil {
			return nil, err
		}
		if s.Revision, err = gitArchive(ctx, abs, rev, s.tmp); err != nil {
			return nil, fmt.Errorf("add %s@%s: %w", path, rev, err)
		}
		dir = s.tmp
	case !fi.IsDir() && strings.HasSuffix(abs, ".whl"):
		s.Kind = KindWheel
		if s.Wheel, err = ParseWheelName(filepath.Base(abs)); err != nil {
			return nil, fmt.Errorf("add %s: %w", path, err)
		}
		if s.tmp, err = os.MkdirTemp("", "novelapi-add-"); err != nil {
			return nil, err
		}
		if err := unzip(abs, s.tmp); err != nil {
			return nil, fmt.Errorf("add %s: %w", path, err)
		}
		if err := s.readInstalled(s.tmp); err != nil {
			return nil, fmt.Errorf("add %s: %w", path, err)
		}
		if err := s.checkVersion(opts.Version); err != nil {
			return nil, err
		}
		return s, nil
	case !fi.IsDir() && (strings.HasSuffix(abs, ".tar.gz") || strings.HasSuffix(abs, ".tgz") || strings.HasSuffix(abs, ".zip")):
		s.Kind = KindSdist
		if s.tmp, err = os.MkdirTemp("", "novelapi-add-"); err != nil {
			return nil, err
		}
		if strings.HasSuffix(abs, ".zip") {
			err = unzip(abs, s.tmp)
		} else {
			err = untarGz(abs, s.tmp)
		}
		if err != nil {
			return nil, fmt.Errorf("add %s: %w", path, err)
		}
		// An sdist holds one directory, NAME-VERSION/.
		ents, _ := os.ReadDir(s.tmp)
		if len(ents) != 1 || !ents[0].IsDir() {
			return nil, fmt.Errorf("add %s: %w: an sdist holds one directory NAME-VERSION/, this one holds %d entries", path, ErrNotProject, len(ents))
		}
		dir = filepath.Join(s.tmp, ents[0].Name())
	case !fi.IsDir():
		return nil, fmt.Errorf("add %s: %w: a file must be a wheel (*.whl) or an sdist (*.tar.gz, *.zip)", path, ErrNotProject)
	}
	has := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	switch {
	case has("pyproject.toml") || has("setup.cfg") || has("setup.py"):
		if s.Kind == "" {
			s.Kind = KindTree
		}
		s.Project, s.ProjectLabel = dir, s.Label()
		if s.Kind == KindSdist {
			s.ProjectLabel = abs + "/" + filepath.Base(dir)
		}
		err = s.readTree(ctx, dir, opts.Version)
	case s.Kind == "" && len(distInfos(dir)) > 0:
		s.Kind = KindInstalled
		err = s.readInstalled(dir)
	default:
		return nil, fmt.Errorf("add %s: %w: it has no pyproject.toml, setup.cfg, setup.py or *.dist-info", path, ErrNotProject)
	}
	if err != nil {
		return nil, fmt.Errorf("add %s: %w", s.Label(), err)
	}
	if err := s.checkVersion(opts.Version); err != nil {
		return nil, err
	}
	return s, nil
}

// checkVersion reports a version the library declares that is not the one
// given (add's --version), which is only for a version declared dynamic.
func (s *Source) checkVersion(given string) error {
	if given == "" || s.VersionFrom != "" {
		return nil
	}
	v, _ := pyversion.Parse(s.Version)
	if g, _ := pyversion.Parse(given); v.Compare(g) == 0 {
		return nil
	}
	return fmt.Errorf("add %s: %s declares version %s (%s), not %s: --version is for a source tree whose version is dynamic",
		s.Label(), s.Name, s.Version, s.Declared, given)
}

// gitArchive extracts revision rev of the git work tree at repo into dst
// and returns the commit it names.
func gitArchive(ctx context.Context, repo, rev, dst string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--verify", rev+"^{commit}").Output()
	if err != nil {
		return "", fmt.Errorf("git revision %q: %w", rev, exitDetail(err))
	}
	commit := strings.TrimSpace(string(out))
	tarball := filepath.Join(dst, ".rev.tar")
	if out, err := exec.CommandContext(ctx, "git", "-C", repo, "archive", "--format=tar", "-o", tarball, commit).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git archive %s: %v: %s", rev, err, bytes.TrimSpace(out))
	}
	defer os.Remove(tarball)
	if err := untar(tarball, dst); err != nil {
		return "", err
	}
	return commit, nil
}

func exitDetail(err error) error {
	if ee, ok := errors.AsType[*exec.ExitError](err); ok && len(ee.Stderr) > 0 {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return err
}

// distInfos returns the *.dist-info and *.egg-info directories directly
// in dir.
func distInfos(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.dist-info"))
	e, _ := filepath.Glob(filepath.Join(dir, "*.egg-info"))
	return append(m, e...)
}

// readEggRequires reads an egg-info's requires.txt: one requirement a line,
// then sections "[extra]" (left out: no extra is requested) and
// "[:marker]" (their lines carry the marker).
func (s *Source) readEggRequires(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	marker, skip := "", false
	for l := range strings.Lines(string(b)) {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
			continue
		case strings.HasPrefix(l, "["):
			extra, m, _ := strings.Cut(strings.Trim(l, "[]"), ":")
			skip, marker = extra != "", m
			continue
		case skip:
			continue
		}
		if marker != "" {
			l += "; " + marker
		}
		r, err := ParseRequirement(l)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		s.Requires = append(s.Requires, r)
	}
	return nil
}

// readMetadata reads a core-metadata file (METADATA, PKG-INFO: RFC 822
// headers) and sets name, version and requirements from it. The body (the
// long description) is not read.
func (s *Source) readMetadata(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h, err := textproto.NewReader(bufio.NewReader(f)).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		return fmt.Errorf("%s: %w", path, err)
	}
	s.Name, s.Version = h.Get("Name"), h.Get("Version")
	if s.Name == "" || s.Version == "" {
		return fmt.Errorf("%s: no Name or Version field", path)
	}
	s.Requires = nil
	for _, line := range h.Values("Requires-Dist") {
		r, err := ParseRequirement(line)
		if err != nil {
			return fmt.Errorf("%s: Requires-Dist: %w", path, err)
		}
		s.Requires = append(s.Requires, r)
	}
	return nil
}

// readInstalled reads a directory laid out as site-packages (an unpacked
// wheel, or an installed tree): one *.dist-info with METADATA, and the
// modules beside it. A wheel's NAME.data/purelib and platlib install into
// site-packages too; its scripts, headers and data are not installed.
func (s *Source) readInstalled(dir string) error {
	infos := distInfos(dir)
	switch len(infos) {
	case 0:
		return fmt.Errorf("%w: no *.dist-info or *.egg-info directory in %s", ErrNotProject, dir)
	case 1:
	default:
		names := make([]string, len(infos))
		for i, d := range infos {
			names[i] = filepath.Base(d)
		}
		return fmt.Errorf("%s holds several distributions (%s): add each from its own wheel or tree", dir, strings.Join(names, ", "))
	}
	info := infos[0]
	if strings.HasSuffix(info, ".egg-info") {
		s.Declared = filepath.Base(info) + "/PKG-INFO"
		if err := s.readMetadata(filepath.Join(info, "PKG-INFO")); err != nil {
			return err
		}
		if err := s.readEggRequires(filepath.Join(info, "requires.txt")); err != nil {
			return err
		}
	} else {
		s.Declared = filepath.Base(info) + "/METADATA"
		if err := s.readMetadata(filepath.Join(info, "METADATA")); err != nil {
			return err
		}
	}
	s.Files = map[string]string{}
	roots := []string{dir}
	for _, sub := range []string{"purelib", "platlib"} {
		if d := filepath.Join(dir, strings.TrimSuffix(filepath.Base(info), ".dist-info")+".data", sub); isDir(d) {
			roots = append(roots, d)
		}
	}
	tops := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(info, "top_level.txt")); err == nil {
		for l := range strings.Lines(string(b)) {
			if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "/") {
				tops[l] = true
			}
		}
	}
	for _, root := range roots {
		ents, err := os.ReadDir(root)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := e.Name()
			switch {
			case strings.HasSuffix(name, ".dist-info") || strings.HasSuffix(name, ".egg-info") || strings.HasSuffix(name, ".data") || name == "__pycache__" || strings.HasPrefix(name, "."):
				continue
			case e.IsDir():
				if err := addTree(s.Files, root, name); err != nil {
					return err
				}
				if len(tops) == 0 && isPackageDir(filepath.Join(root, name)) {
					tops[name] = true
				}
			case e.Type().IsRegular():
				s.Files[name] = filepath.Join(root, name)
				if len(tops) == 0 {
					if mod, ok := moduleName(name); ok {
						tops[mod] = true
					}
				}
			}
		}
	}
	if err := addTree(s.Files, dir, filepath.Base(info)); err != nil {
		return err
	}
	delete(s.Files, filepath.Base(info)+"/RECORD") // describes the wheel's files, not this install
	return s.setImports(tops)
}

// setImports records the import names and picks the main one.
func (s *Source) setImports(tops map[string]bool) error {
	for t := range tops {
		if t != "" && !strings.HasPrefix(t, "_") || len(tops) == 1 {
			s.Imports = append(s.Imports, t)
		}
	}
	slices.Sort(s.Imports)
	if len(s.Imports) == 0 {
		return fmt.Errorf("%w: %s %s installs no top-level module", ErrNotProject, s.Name, s.Version)
	}
	// The main import is the one holding most of the code (attrs' attr,
	// which its attrs package re-exports), named like the distribution on
	// a tie.
	want := strings.ReplaceAll(NormalizeName(s.Name), "-", "_")
	count := map[string]int{}
	for rel := range s.Files {
		if strings.HasSuffix(rel, ".py") {
			count[strings.TrimSuffix(strings.SplitN(rel, "/", 2)[0], ".py")]++
		}
	}
	s.Import = s.Imports[0]
	for _, imp := range s.Imports {
		if count[imp] > count[s.Import] || count[imp] == count[s.Import] && strings.EqualFold(imp, want) {
			s.Import = imp
		}
	}
	return nil
}

// moduleName returns the module a top-level file defines: "six.py" → six;
// an extension module "_speedups.cpython-313-x86_64-linux-gnu.so" →
// _speedups.
func moduleName(file string) (string, bool) {
	switch {
	case strings.HasSuffix(file, ".py"):
		return strings.TrimSuffix(file, ".py"), true
	case strings.HasSuffix(file, ".so"):
		return strings.SplitN(file, ".", 2)[0], true
	}
	return "", false
}

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

// isPackageDir reports whether dir is a regular Python package (it has an
// __init__.py).
func isPackageDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "__init__.py"))
	return err == nil
}

// addTree adds every regular file under root/rel to files, keyed by its
// slash path relative to root, leaving out byte-compiled files and hidden
// entries. Symbolic links are refused: a layer holds the library's own
// files, not what a link would reach.
func addTree(files map[string]string, root, rel string) error {
	return filepath.WalkDir(filepath.Join(root, rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == "__pycache__" || (strings.HasPrefix(name, ".") && p != filepath.Join(root, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".pyc") || strings.HasPrefix(name, ".") {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: a layer holds regular files only", p)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(r)] = p
		return nil
	})
}

// versionLiteral finds `__version__ = "1.2"` (or `version = ...`, or
// setuptools-scm's generated `__version__ = version = '1.5.0'`) in a
// module's source.
var versionLiteral = regexp.MustCompile(`(?m)^(?:(?:__version__|version|VERSION)\s*(?::\s*str\s*)?=\s*)+["']([^"']+)["']`)
