package private

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/ini.v1"
)

// pyproject is what a source tree's pyproject.toml says about the
// distribution (PEP 621 [project]) and where its packages are
// ([tool.setuptools], [tool.poetry]).
type pyproject struct {
	Project *struct {
		Name         string   `toml:"name"`
		Version      string   `toml:"version"`
		Dependencies []string `toml:"dependencies"`
		Dynamic      []string `toml:"dynamic"`
	} `toml:"project"`
	Tool struct {
		Setuptools struct {
			Packages   any               `toml:"packages"` // list, or {find = {where = [...]}}
			PyModules  []string          `toml:"py-modules"`
			PackageDir map[string]string `toml:"package-dir"`
		} `toml:"setuptools"`
		Poetry *struct {
			Name         string         `toml:"name"`
			Version      string         `toml:"version"`
			Dependencies map[string]any `toml:"dependencies"`
			Packages     []struct {
				Include string `toml:"include"`
				From    string `toml:"from"`
			} `toml:"packages"`
		} `toml:"poetry"`
	} `toml:"tool"`
}

// treeLayout says where a tree's modules are: the directories searched
// for packages and the names declared.
type treeLayout struct {
	roots    []string // directories holding the top-level packages, relative
	packages []string // declared top-level packages; nil means look
	modules  []string // declared top-level single-file modules
}

// readTree reads a source tree (or an unpacked sdist) at dir: name,
// version and dependencies from PKG-INFO (an sdist's, when it has
// Requires-Dist or there is nothing else), pyproject.toml's [project] or
// [tool.poetry], setup.cfg's [metadata]/[options], or literal arguments of
// setup.py's setup() call; the modules from the declared packages or from
// the package directories under src/ or the top directory.
func (s *Source) readTree(ctx context.Context, dir, version string) error {
	var lay treeLayout
	var declared []string
	if b, err := os.ReadFile(filepath.Join(dir, "pyproject.toml")); err == nil {
		var pp pyproject
		if _, err := toml.Decode(string(b), &pp); err != nil {
			return fmt.Errorf("pyproject.toml: %w", err)
		}
		if pp.Project != nil {
			s.Name, s.Version = pp.Project.Name, pp.Project.Version
			if err := s.addRequires("pyproject.toml [project] dependencies", pp.Project.Dependencies); err != nil {
				return err
			}
			declared = append(declared, "pyproject.toml")
		} else if po := pp.Tool.Poetry; po != nil {
			s.Name, s.Version = po.Name, po.Version
			for name, spec := range po.Dependencies {
				if strings.EqualFold(name, "python") {
					continue
				}
				line := name
				if v, ok := spec.(string); ok && v != "*" {
					line += poetrySpec(v)
				}
				if err := s.addRequires("pyproject.toml [tool.poetry.dependencies]", []string{line}); err != nil {
					return err
				}
			}
			slices.SortFunc(s.Requires, func(a, b Requirement) int { return strings.Compare(a.Name, b.Name) })
			for _, p := range po.Packages {
				lay.packages = append(lay.packages, strings.Split(p.Include, "/")[0])
				lay.roots = appendNew(lay.roots, p.From)
			}
			declared = append(declared, "pyproject.toml [tool.poetry]")
		}
		st := pp.Tool.Setuptools
		if d, ok := st.PackageDir[""]; ok {
			lay.roots = appendNew(lay.roots, d)
		}
		switch p := st.Packages.(type) {
		case []any:
			for _, n := range p {
				if n, ok := n.(string); ok && !strings.Contains(n, ".") {
					lay.packages = append(lay.packages, n)
				}
			}
		case map[string]any:
			if find, ok := p["find"].(map[string]any); ok {
				if where, ok := find["where"].([]any); ok {
					for _, w := range where {
						if w, ok := w.(string); ok {
							lay.roots = appendNew(lay.roots, w)
						}
					}
				}
			}
		}
		lay.modules = append(lay.modules, st.PyModules...)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "setup.cfg")); err == nil && (s.Name == "" || s.Version == "" || len(lay.packages) == 0) {
		cfg, err := ini.LoadSources(ini.LoadOptions{AllowPythonMultilineValues: true, SkipUnrecognizableLines: true, Insensitive: false}, b)
		if err != nil {
			return fmt.Errorf("setup.cfg: %w", err)
		}
		md, opts := cfg.Section("metadata"), cfg.Section("options")
		if s.Name == "" {
			s.Name = md.Key("name").String()
		}
		if s.Version == "" {
			if v := md.Key("version").String(); !strings.HasPrefix(v, "attr:") && !strings.HasPrefix(v, "file:") {
				s.Version = v
			}
		}
		if s.Requires == nil {
			if err := s.addRequires("setup.cfg [options] install_requires", splitLines(opts.Key("install_requires").String())); err != nil {
				return err
			}
		}
		if pd := opts.Key("package_dir").String(); pd != "" {
			for _, l := range splitLines(pd) {
				if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "" {
					lay.roots = appendNew(lay.roots, strings.TrimSpace(v))
				}
			}
		}
		if len(lay.modules) == 0 {
			lay.modules = splitLines(opts.Key("py_modules").String())
		}
		declared = append(declared, "setup.cfg")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "setup.py")); err == nil && (s.Name == "" || s.Version == "") {
		if m := setupArg("name").FindSubmatch(b); m != nil && s.Name == "" {
			s.Name = string(m[1])
		}
		if m := setupArg("version").FindSubmatch(b); m != nil && s.Version == "" {
			s.Version = string(m[1])
		}
		if m := installRequires.FindSubmatch(b); m != nil && s.Requires == nil {
			var lines []string
			for _, q := range quoted.FindAllSubmatch(m[1], -1) {
				lines = append(lines, string(q[1]))
			}
			if err := s.addRequires("setup.py install_requires", lines); err != nil {
				return err
			}
		}
		declared = append(declared, "setup.py")
	}
	// An sdist's PKG-INFO is the metadata its build produced: authoritative
	// for name and version, and for dependencies from metadata 2.2 on.
	if _, err := os.Stat(filepath.Join(dir, "PKG-INFO")); err == nil {
		keep := s.Requires
		if err := s.readMetadata(filepath.Join(dir, "PKG-INFO")); err != nil {
			return err
		}
		if len(s.Requires) == 0 {
			s.Requires = keep
		}
		declared = append([]string{"PKG-INFO"}, declared...)
	}
	s.Declared = strings.Join(declared, ", ")
	if s.Name == "" {
		return fmt.Errorf("%w: no distribution name in %s (pyproject.toml [project] name, setup.cfg [metadata] name, or a literal name= in setup.py)", ErrNotProject, dir)
	}
	tops, err := findModules(dir, s.Name, lay)
	if err != nil {
		return err
	}
	s.Files = map[string]string{}
	for root, names := range tops {
		for _, n := range names {
			if isDir(filepath.Join(dir, root, n)) {
				err = addTree(s.Files, filepath.Join(dir, root), n)
			} else {
				s.Files[n+".py"] = filepath.Join(dir, root, n+".py")
			}
			if err != nil {
				return err
			}
		}
	}
	all := map[string]bool{}
	for _, names := range tops {
		for _, n := range names {
			all[n] = true
		}
	}
	if err := s.setImports(all); err != nil {
		return err
	}
	if s.Version == "" {
		return s.dynamicVersion(ctx, dir, tops, version)
	}
	return nil
}

// findModules returns, per root directory (relative to dir), the
// top-level packages and modules a tree installs.
func findModules(dir, name string, lay treeLayout) (map[string][]string, error) {
	roots := lay.roots
	if len(roots) == 0 {
		roots = []string{"."}
		if isDir(filepath.Join(dir, "src")) {
			roots = []string{"src", "."}
		}
	}
	out := map[string][]string{}
	found := 0
	want := strings.ReplaceAll(NormalizeName(name), "-", "_")
	for _, root := range roots {
		rdir := filepath.Join(dir, root)
		if len(lay.packages) > 0 {
			for _, p := range lay.packages {
				if isDir(filepath.Join(rdir, p)) && !slices.Contains(out[root], p) {
					out[root] = append(out[root], p)
					found++
				}
			}
		} else {
			ents, _ := os.ReadDir(rdir)
			for _, e := range ents {
				n := e.Name()
				if e.IsDir() && isPackageDir(filepath.Join(rdir, n)) && !notShipped[strings.ToLower(n)] && !strings.HasPrefix(n, ".") {
					out[root] = append(out[root], n)
					found++
				}
			}
		}
		for _, m := range lay.modules {
			if _, err := os.Stat(filepath.Join(rdir, m+".py")); err == nil {
				out[root] = append(out[root], m)
				found++
			}
		}
		if found == 0 {
			if _, err := os.Stat(filepath.Join(rdir, want+".py")); err == nil {
				out[root] = append(out[root], want)
				found++
			}
		}
		if found > 0 {
			break
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("%w: %s declares %s but no package was found (looked for PKG/__init__.py under %s, and %s.py)", ErrNotProject, dir, name, strings.Join(roots, ", "), want)
	}
	return out, nil
}

// notShipped are top-level directories of a source tree that hold the
// project's own tooling, not the library.
var notShipped = map[string]bool{"test": true, "tests": true, "testing": true, "doc": true, "docs": true,
	"example": true, "examples": true, "benchmarks": true, "bench": true, "build": true, "dist": true,
	"scripts": true, "tools": true, "misc": true, "venv": true, ".venv": true}

func (s *Source) addRequires(where string, lines []string) error {
	for _, l := range lines {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		r, err := ParseRequirement(l)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		s.Requires = append(s.Requires, r)
	}
	return nil
}

// poetrySpec turns a Poetry version constraint into a PEP 440 specifier:
// "^1.2" → ">=1.2,<2.0", "~1.2" → ">=1.2,<1.3"; others as they are.
func poetrySpec(v string) string {
	v = strings.TrimSpace(v)
	for _, op := range []string{"^", "~"} {
		rest, ok := strings.CutPrefix(v, op)
		if !ok || strings.HasPrefix(rest, "=") {
			continue
		}
		parts := strings.Split(rest, ".")
		var n int
		fmt.Sscan(parts[0], &n)
		upper := fmt.Sprintf("%d.0", n+1)
		if op == "~" && len(parts) > 1 || op == "^" && n == 0 && len(parts) > 1 {
			var m int
			fmt.Sscan(parts[1], &m)
			upper = fmt.Sprintf("%d.%d", n, m+1)
		}
		return ">=" + rest + ",<" + upper
	}
	if v != "" && strings.IndexAny(v[:1], "<>=!~") < 0 {
		return "==" + v
	}
	return v
}

func splitLines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func appendNew(xs []string, x string) []string {
	if x == "" || slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

func setupArg(name string) *regexp.Regexp {
	return regexp.MustCompile(`\b` + name + `\s*=\s*["']([^"']+)["']`)
}

var (
	installRequires = regexp.MustCompile(`(?s)install_requires\s*=\s*\[(.*?)\]`)
	quoted          = regexp.MustCompile(`["']([^"']+)["']`)
)
