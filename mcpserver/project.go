package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/project"
)

// MatchApproximate is the match of a version chosen for a project whose
// declared version is not indexed: the nearest indexed version is served
// (docs/projects.md §3).
const MatchApproximate = "approximate"

// projectParam is the argument of search_apis and get_api naming the
// agent's project directory.
var projectParam = param{name: "project", kind: "string", aliases: []string{"project_dir", "projectDir", "project_path", "projectPath", "project_root", "projectRoot", "workspace", "cwd"}}

// projectDescription describes the project argument.
const projectDescription = `Your project's directory (absolute path), to get the version of each library it uses: from an installed *.dist-info in a virtual environment inside it, uv.lock, poetry.lock, requirements*.txt or pyproject.toml. The answer names the file and line the version came from, and says APPROXIMATE when that version is not indexed (the nearest is served). An explicit version argument wins. Omit it when the server was started with --project, or to get the latest versions.`

// readProject reads the project dir an agent named (or, when dir is "",
// the server's Config.Project); nil when neither is set. A directory
// outside the server's read roots is refused before any file system call
// on it, as evaluate's paths are ([Server.checkReadPath]). A project that
// cannot be read (a file that does not parse, a directory gone) is an
// argument error naming file and line when the agent named it and asked
// for no version; when it is the server's default, or the call names a
// version (which wins over a project), it is a note and the call is
// served without a project (docs/projects.md §2).
func (s *Server) readProject(tool, dir, version string) (p *project.Project, note string, err error) {
	byServer := dir == ""
	if byServer {
		dir = s.cfg.Project
		if dir == "" {
			return nil, "", nil
		}
	} else {
		roots := s.readRoots()
		if s.cfg.Project != "" {
			if abs, err := filepath.Abs(s.cfg.Project); err == nil {
				roots = append(roots, abs)
			}
		}
		abs, err := filepath.Abs(dir)
		if err != nil || !slices.ContainsFunc(roots, func(r string) bool { return within(r, abs) }) {
			return nil, "", argErrorf("%s: project %q is outside the directories this server reads files from (%s); ask the user to start the server with --project DIR or --allow-path DIR",
				tool, truncate(dir, 200), strings.Join(roots, ", "))
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil && !slices.ContainsFunc(roots, func(r string) bool { return within(r, real) }) {
			return nil, "", argErrorf("%s: project %q leads outside the directories this server reads files from", tool, truncate(dir, 200))
		}
	}
	p, err = project.Read(dir)
	if err == nil {
		return p, "", nil
	}
	var why string
	switch fe, isFile := errors.AsType[*project.FileError](err); {
	case isFile:
		why = fmt.Sprintf("project %s: %s does not parse, so the versions it declares are unknown", truncate(dir, 200), oneLine(fe.Error()))
	case errors.Is(err, project.ErrNotDir), errors.Is(err, fs.ErrNotExist):
		why = fmt.Sprintf("project %q is not a directory", truncate(dir, 200))
	default:
		return nil, "", fmt.Errorf("read project %s: %w", dir, err)
	}
	switch {
	case version != "":
		return nil, why + "; the version asked for is served", nil
	case byServer:
		return nil, "the server's " + why + "; the latest indexed versions are served (ask the user to fix it)", nil
	}
	return nil, "", argErrorf("%s: %s: fix it, or omit project to get the latest versions", tool, why)
}

// distNames returns the distribution names a library key may be declared
// under in a project: the key, its import or distribution spelling
// (importToDist) and the import names bundles recorded for it.
func (c *catalog) distNames(lib string) []string {
	names := []string{lib}
	if d, ok := importToDist[strings.ToLower(lib)]; ok {
		names = append(names, d)
	}
	for imp, d := range importToDist {
		if normLibrary(d) == normLibrary(lib) {
			names = append(names, imp)
		}
	}
	for imp, key := range c.libAlias {
		if key == lib {
			names = append(names, imp)
			if d, ok := importToDist[strings.ToLower(imp)]; ok {
				names = append(names, d)
			}
		}
	}
	return names
}

// projectChoice resolves the version of lib that the project p declares
// among available (docs/projects.md §3): ok is false when p does not
// mention lib, and the caller serves what it would without a project.
//
//   - a pin (==, a locked or installed version) that is indexed → MatchExact;
//   - a range with an indexed version in it → the newest (finals
//     preferred), MatchRange;
//   - neither → the indexed version nearest the pin or the range's bound
//     (pyversion.Nearest), MatchApproximate with the reason;
//   - only lines that could not be read → the latest, MatchApproximate,
//     the reason naming them.
//
// Several declarations of one kind (a requirement and a constraint) must
// all hold.
func projectChoice(p *project.Project, names []string, available []string) (versionChoice, bool) {
	decls, ok := p.Lookup(names...)
	warns := p.WarningsFor(names...)
	var named []project.Warning
	for _, w := range warns {
		if w.Name != "" {
			named = append(named, w)
		}
	}
	if !ok && len(named) == 0 {
		return versionChoice{}, false
	}
	c := versionChoice{Available: pyversion.Sort(available)}
	var parsed []pyversion.Version
	for _, a := range c.Available {
		if v, ok := pyversion.Parse(a); ok {
			parsed = append(parsed, v)
		}
	}
	latest := resolveVersion("", available).Served
	if !ok {
		c.From, c.Served, c.Match = named[0].File, latest, MatchApproximate
		if named[0].Line > 0 {
			c.From = fmt.Sprintf("%s:%d", named[0].File, named[0].Line)
		}
		c.Reason = fmt.Sprintf("%s could not be read (%s), so the version the project uses is unknown; the latest indexed, %s, is served", c.From, truncate(oneLine(named[0].Msg), maxProjectNoteChars), orUnknown(latest))
		return c, true
	}
	var where, texts, specs []string
	for _, d := range decls {
		where = append(where, d.Where())
		texts = append(texts, d.Text)
		var alts []string // a version is allowed by any of them
		for _, s := range d.Specifiers {
			if s.String() != "" {
				alts = append(alts, s.String())
			}
		}
		if len(alts) > 0 {
			specs = append(specs, strings.Join(alts, " or "))
		}
	}
	c.From, c.Declared, c.Requested = strings.Join(where, ", "), strings.Join(texts, "; "), strings.Join(specs, " and ")
	allowed := func(v pyversion.Version) bool {
		for _, d := range decls {
			if !d.Allows(v) {
				return false
			}
		}
		return true
	}
	var pin *pyversion.Version
	for _, d := range decls {
		if v, ok := d.Pin(); ok {
			pin = &v
			break
		}
	}
	if s := highest(parsed, allowed); s != "" {
		c.Served, c.Match = s, MatchRange
		if pin != nil {
			c.Match = MatchExact
		}
		return c, true
	}
	c.Match = MatchApproximate
	anchor := pin
	if anchor == nil {
		for _, d := range decls {
			if v, ok := d.Anchor(); ok {
				anchor = &v
				break
			}
		}
	}
	avail := make([]string, len(c.Available))
	for i, a := range c.Available {
		avail[i] = orUnknown(a)
	}
	if anchor != nil {
		if v, ok := pyversion.Nearest(*anchor, parsed); ok {
			c.Served = v.String()
			c.Reason = fmt.Sprintf("no indexed version satisfies %s (indexed: %s); %s, the nearest to %s, is served and may differ from the version the project uses",
				c.Declared, strings.Join(avail, ", "), c.Served, anchor.String())
			return c, true
		}
	}
	c.Served = latest
	c.Reason = fmt.Sprintf("no indexed version satisfies %s (indexed: %s); the latest, %s, is served and may differ from the version the project uses",
		c.Declared, strings.Join(avail, ", "), orUnknown(latest))
	return c, true
}

// MaxProjectNotes bounds the notes about unreadable project lines that one
// answer carries; the rest are counted in one more note per file
// (docs/projects.md §2).
const MaxProjectNotes = 3

// maxProjectNoteChars bounds one such note: a line of binary junk is one
// long line.
const maxProjectNoteChars = 240

// projectNotes returns the notes a project adds to an answer about the
// libraries libs (docs/projects.md §2): the lines of its files that could
// not be read and name one of libs, and the lines that name no library
// when one of libs is not declared by the project (the line may be its
// declaration) or libs is empty. A line naming no library does not concern
// a library the project declares elsewhere, so it is not repeated on
// answers about that library. At most MaxProjectNotes notes, each cut to
// maxProjectNoteChars, then one note per file counting the rest.
func projectNotes(p *project.Project, cat *catalog, libs []string) []string {
	if p == nil {
		return nil
	}
	var names []string
	undeclared := len(libs) == 0
	for _, l := range libs {
		dn := cat.distNames(l)
		names = append(names, dn...)
		if _, ok := p.Lookup(dn...); !ok {
			undeclared = true
		}
	}
	var out []string
	more := map[string]int{}
	var files []string
	for _, w := range p.WarningsFor(names...) {
		if w.Name == "" && !undeclared {
			continue
		}
		if len(out) < MaxProjectNotes {
			out = append(out, truncate(oneLine("project "+p.Dir+": "+w.String()), maxProjectNoteChars))
			continue
		}
		if more[w.File] == 0 {
			files = append(files, w.File)
		}
		more[w.File]++
	}
	for _, f := range files {
		out = append(out, fmt.Sprintf("project %s: and %d more unreadable lines in %s", p.Dir, more[f], f))
	}
	return out
}

// chooseVersion resolves the version of lib to serve among its bundles of
// source kind ("" any): the explicit version argument when given
// (resolveVersion), else what the project p declares (projectChoice), else
// the latest indexed.
func chooseVersion(cat *catalog, lib, kind, version string, p *project.Project) versionChoice {
	avail := cat.versionsFrom(lib, kind)
	if version == "" && p != nil {
		if c, ok := projectChoice(p, cat.distNames(lib), avail); ok {
			return c
		}
	}
	return resolveVersion(version, avail)
}

// chooseSources resolves the version of lib per source (docs/private.md
// §4): a library of one source gets one choice, as before sources; a
// private library and a Debian one of the same name get one each, served
// side by side, private first, unless source names one ("debian",
// "private", or a whole label), or the project installs the library from a
// local path (a private library then), or only some sources have the
// version asked for (those are kept). An empty result means source matches
// none of lib's sources.
func chooseSources(cat *catalog, lib, version, source string, p *project.Project) []versionChoice {
	kinds := cat.kinds[lib]
	if !cat.hasSource(lib, source) {
		return nil
	}
	if source != "" {
		want, _, _ := strings.Cut(source, ":")
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k != want })
		if len(kinds) == 0 {
			return nil
		}
	}
	if len(kinds) <= 1 && source == "" {
		return []versionChoice{chooseVersion(cat, lib, "", version, p)}
	}
	if p != nil && version == "" && source == "" && slices.Contains(kinds, index.SourcePrivate) {
		if decls, ok := p.Lookup(cat.distNames(lib)...); ok && slices.ContainsFunc(decls, func(d project.Requirement) bool { return d.Local != "" }) {
			kinds = []string{index.SourcePrivate}
		}
	}
	var out, good []versionChoice
	for _, k := range kinds {
		vc := chooseVersion(cat, lib, k, version, p)
		vc.Source = k
		out = append(out, vc)
		if vc.Match != MatchFallback && vc.Match != MatchApproximate {
			good = append(good, vc)
		}
	}
	if len(good) > 0 {
		return good
	}
	return out
}

// filesRead lists the project files p read, for messages.
func filesRead(p *project.Project) string {
	if len(p.Files) == 0 {
		return "none of requirements*.txt, pyproject.toml, uv.lock, poetry.lock or a virtual environment's *.dist-info"
	}
	return strings.Join(p.Files, ", ")
}

// sourceParam is the argument of search_apis and get_api choosing between
// a private library and a Debian one of the same name.
var sourceParam = param{name: "source", kind: "string", aliases: []string{"origin", "provenance"}}

// sourceDescription describes the source argument.
const sourceDescription = `Where the library comes from, when it is indexed from several (list_libraries shows them): "debian" (a Debian release), "private" (a library the user added with novelapi add, e.g. an in-house fork named like a public one), or a whole label such as "private:/src/numpy". Omit to be served each side by side, labelled.`

// sourceShown returns b's source label when vc says its library is served
// from a chosen source or several, "" otherwise.
func sourceShown(b *bundles.Bundle, vc versionChoice) string {
	if vc.Source == "" {
		return ""
	}
	return index.SourceOf(b)
}
