package project

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/private"
)

// decodeTOML decodes a TOML file of the project into v; a syntax error is
// a *FileError with its line.
func (p *Project) decodeTOML(rel string, v any) (lines []string, ok bool, err error) {
	data, ok, err := p.readFile(rel)
	if err != nil || !ok {
		return nil, false, err
	}
	if _, err := toml.Decode(string(data), v); err != nil {
		fe := &FileError{File: rel, Err: err}
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			fe.Line, fe.Err = pe.Position.Line, errors.New(pe.Message)
		}
		return nil, false, fe
	}
	return splitLines(data), true, nil
}

// lockFile is what uv.lock and poetry.lock have in common: a
// [[package]] array of name, version and source.
type lockFile struct {
	Package []struct {
		Name    string         `toml:"name"`
		Version string         `toml:"version"`
		Source  map[string]any `toml:"source"`
	} `toml:"package"`
}

// readUVLock reads uv.lock: each [[package]]'s name and version, and the
// directory of one installed from a path (source directory, path,
// editable).
func (p *Project) readUVLock() error {
	return p.readLock("uv.lock", KindUVLock, "directory", "path", "editable", "virtual")
}

// readPoetryLock reads poetry.lock: each [[package]]'s name and version,
// and the url of a [package.source] of type directory or file.
func (p *Project) readPoetryLock() error {
	return p.readLock("poetry.lock", KindPoetryLock, "url")
}

// readLock reads a lock file; localKeys are the source keys that hold a
// local path. A library locked at several versions (uv locks one per
// Python when they differ) is one declaration allowing each.
func (p *Project) readLock(rel, kind string, localKeys ...string) error {
	var lf lockFile
	lines, ok, err := p.decodeTOML(rel, &lf)
	if err != nil || !ok {
		return err
	}
	type locked struct {
		req  Requirement
		vers []string
	}
	var order []string
	byName := map[string]*locked{}
	for _, pkg := range lf.Package {
		if pkg.Name == "" || pkg.Version == "" {
			continue // uv's own project ("virtual") may have no version
		}
		nameLine := lineOf(lines, 0, tomlKeyIs("name", pkg.Name))
		line := nameLine
		if v := lineOf(lines, nameLine, tomlKeyIs("version", pkg.Version)); v > 0 {
			line = v
		}
		spec, err := exact(pkg.Version)
		if err != nil {
			p.warn(rel, line, pkg.Name, "version %q: %v", pkg.Version, err)
			continue
		}
		n := private.NormalizeName(pkg.Name)
		l := byName[n]
		if l == nil {
			l = &locked{req: Requirement{Name: pkg.Name, Kind: kind, File: rel, Line: line}}
			byName[n] = l
			order = append(order, n)
		}
		if slices.Contains(l.vers, pkg.Version) {
			continue
		}
		l.vers = append(l.vers, pkg.Version)
		l.req.Specifiers = append(l.req.Specifiers, spec)
		if pkg.Source != nil && (kind != KindPoetryLock || pkg.Source["type"] == "directory" || pkg.Source["type"] == "file") {
			for _, k := range localKeys {
				if s, ok := pkg.Source[k].(string); ok && l.req.Local == "" {
					l.req.Local = s
				}
			}
		}
	}
	for _, n := range order {
		l := byName[n]
		l.req.Text = l.req.Name + " " + strings.Join(l.vers, " | ")
		p.add(l.req)
	}
	return nil
}

// tomlKeyIs matches a line `key = "value"` (either quote).
func tomlKeyIs(key, value string) func(string) bool {
	re := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=\s*["']` + regexp.QuoteMeta(value) + `["']`)
	return re.MatchString
}

// pyproject is the part of pyproject.toml that declares dependencies.
type pyproject struct {
	Project struct {
		Dependencies         []string            `toml:"dependencies"`
		OptionalDependencies map[string][]string `toml:"optional-dependencies"`
	} `toml:"project"`
	// DependencyGroups is PEP 735's table: lists of PEP 508 strings and
	// {include-group = NAME} tables.
	DependencyGroups map[string][]any `toml:"dependency-groups"`
	Tool             struct {
		Poetry struct {
			Dependencies    map[string]any `toml:"dependencies"`
			DevDependencies map[string]any `toml:"dev-dependencies"`
			Group           map[string]struct {
				Dependencies map[string]any `toml:"dependencies"`
			} `toml:"group"`
		} `toml:"poetry"`
	} `toml:"tool"`
}

// readPyproject reads pyproject.toml: PEP 621's [project] dependencies,
// then its optional-dependencies and PEP 735's [dependency-groups], then
// Poetry's [tool.poetry.dependencies], dev-dependencies and groups.
func (p *Project) readPyproject() error {
	const rel = "pyproject.toml"
	var pp pyproject
	lines, ok, err := p.decodeTOML(rel, &pp)
	if err != nil || !ok {
		return err
	}
	pep508 := func(s string) {
		line := lineOf(lines, 0, func(l string) bool {
			return strings.Contains(l, strconv.Quote(s)) || strings.Contains(l, "'"+s+"'")
		})
		r, err := private.ParseRequirement(s)
		if err != nil {
			name := ""
			if m := leadingName.FindStringSubmatch(s); m != nil {
				name = m[1]
			}
			p.warn(rel, line, name, "%v", err)
			return
		}
		spec, err := pyversion.ParseSpecifierSet(r.Specifier)
		if err != nil {
			p.warn(rel, line, r.Name, "%v", err)
			return
		}
		p.add(Requirement{Name: r.Name, Specifiers: specs(spec), Marker: r.Marker, Kind: KindPyproject, File: rel, Line: line, Text: s})
	}
	for _, d := range pp.Project.Dependencies {
		pep508(d)
	}
	for _, extra := range sortedKeys(pp.Project.OptionalDependencies) {
		for _, d := range pp.Project.OptionalDependencies[extra] {
			pep508(d)
		}
	}
	for _, g := range sortedKeys(pp.DependencyGroups) {
		for _, d := range pp.DependencyGroups[g] {
			if s, ok := d.(string); ok {
				pep508(s)
			}
		}
	}
	poetry := pp.Tool.Poetry
	p.poetryTable(rel, lines, "tool.poetry.dependencies", poetry.Dependencies)
	p.poetryTable(rel, lines, "tool.poetry.dev-dependencies", poetry.DevDependencies)
	for _, g := range sortedKeys(poetry.Group) {
		p.poetryTable(rel, lines, "tool.poetry.group."+g+".dependencies", poetry.Group[g].Dependencies)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// poetryTable reads one of Poetry's dependency tables: NAME = "constraint",
// NAME = {version = ..., markers = ..., path = ...}, or a list of such
// tables (one per Python or platform). "python" is the project's Python,
// not a library.
func (p *Project) poetryTable(rel string, lines []string, table string, deps map[string]any) {
	header := lineOf(lines, 0, func(l string) bool { return strings.TrimSpace(l) == "["+table+"]" })
	for _, name := range sortedKeys(deps) {
		if strings.EqualFold(name, "python") {
			continue
		}
		line := lineOf(lines, header, regexp.MustCompile(`^\s*["']?`+regexp.QuoteMeta(name)+`["']?\s*=`).MatchString)
		req := Requirement{Name: name, Kind: KindPyproject, File: rel, Line: line}
		entries := []any{deps[name]}
		if list, ok := deps[name].([]any); ok {
			entries = list
		}
		var texts []string
		for _, e := range entries {
			var constraint string
			switch v := e.(type) {
			case string:
				constraint = v
			case map[string]any:
				constraint, _ = v["version"].(string)
				if m, ok := v["markers"].(string); ok && len(entries) == 1 {
					req.Marker = m
				}
				for _, k := range []string{"path", "url"} {
					if s, ok := v[k].(string); ok && req.Local == "" {
						req.Local = localPath(s)
					}
				}
			default:
				p.warn(rel, line, name, "%s.%s is a %T, not a version constraint or table", table, name, e)
				continue
			}
			texts = append(texts, constraint)
			if constraint == "" {
				req.Specifiers = append(req.Specifiers, pyversion.Specifier{}) // a path or git dependency: any version
				continue
			}
			alts, err := PoetryConstraint(constraint)
			if err != nil {
				p.warn(rel, line, name, "%s.%s: %v", table, name, err)
				req.Specifiers = nil
				break
			}
			req.Specifiers = append(req.Specifiers, alts...)
		}
		if len(req.Specifiers) == 0 {
			continue
		}
		req.Text = fmt.Sprintf("%s = %s", name, strings.Join(quoteAll(texts), " | "))
		p.add(req)
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// PoetryConstraint translates a Poetry version constraint to PEP 440
// specifier sets, one per "||" alternative (Poetry's "Dependency
// specification"): "^1.2.3" is ">=1.2.3,<2.0.0" ("^0.2.3" ">=0.2.3,<0.3.0"),
// "~1.2.3" is ">=1.2.3,<1.3.0", "1.2.*" and PEP 440 operators stand as
// they are, "*" is any version, and a bare "1.2.3" is "==1.2.3".
func PoetryConstraint(c string) ([]pyversion.Specifier, error) {
	var out []pyversion.Specifier
	for alt := range strings.SplitSeq(c, "||") {
		var clauses []string
		for raw := range strings.SplitSeq(alt, ",") {
			for _, f := range poetryClauses(raw) {
				pep, err := poetryClause(f)
				if err != nil {
					return nil, fmt.Errorf("constraint %q: %w", c, err)
				}
				clauses = append(clauses, pep...)
			}
		}
		s, err := pyversion.ParseSpecifierSet(strings.Join(clauses, ","))
		if err != nil {
			return nil, fmt.Errorf("constraint %q: %w", c, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// poetryClauses splits space-separated clauses (">=1.2 <2.0"), keeping an
// operator with the version after it (">= 1.2").
func poetryClauses(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if n := len(out); n > 0 && strings.TrimRight(out[n-1], "<>=!~^") == "" {
			out[n-1] += f
			continue
		}
		out = append(out, f)
	}
	return out
}

// poetryClause translates one Poetry clause to PEP 440 clauses.
func poetryClause(c string) ([]string, error) {
	c = strings.TrimSpace(c)
	switch {
	case c == "*" || c == "":
		return nil, nil
	case strings.HasPrefix(c, "^"):
		v, ok := pyversion.Parse(strings.TrimPrefix(c, "^"))
		if !ok {
			return nil, fmt.Errorf("%q is not a version", c)
		}
		rel := v.Release()
		// The upper bound bumps the first non-zero number (the last one
		// given when all are zero).
		i := slices.IndexFunc(rel, func(n int) bool { return n != 0 })
		if i < 0 {
			i = len(rel) - 1
		}
		return []string{">=" + v.String(), "<" + bump(rel, i)}, nil
	case strings.HasPrefix(c, "~") && !strings.HasPrefix(c, "~="):
		v, ok := pyversion.Parse(strings.TrimPrefix(c, "~"))
		if !ok {
			return nil, fmt.Errorf("%q is not a version", c)
		}
		rel := v.Release()
		i := min(1, len(rel)-1) // ~1 is >=1,<2; ~1.2 and ~1.2.3 bump the minor
		if len(rel) == 1 {
			i = 0
		}
		return []string{">=" + v.String(), "<" + bump(rel, i)}, nil
	case strings.TrimLeft(c, "<>=!~") != c:
		return []string{c}, nil
	case strings.HasSuffix(c, ".*"):
		return []string{"==" + c}, nil
	}
	return []string{"==" + c}, nil
}

// bump returns rel with number i incremented and those after it dropped,
// as a version ("1.2.3", 0 → "2").
func bump(rel []int, i int) string {
	parts := make([]string, i+1)
	for j := range i {
		parts[j] = strconv.Itoa(rel[j])
	}
	parts[i] = strconv.Itoa(rel[i] + 1)
	return strings.Join(parts, ".")
}
