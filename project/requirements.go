package project

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/private"
)

// MaxIncludes bounds the requirements files one project reads through -r
// and -c, so that a cycle or a runaway chain ends.
const MaxIncludes = 32

// readRequirements reads requirements.txt, the other requirements*.txt of
// the project's top directory and requirements/*.txt, in that order, with
// the files they include (-r, -c) inside the project.
func (p *Project) readRequirements() error {
	var files []string
	if m, _ := filepath.Glob(filepath.Join(p.Dir, "requirements*.txt")); len(m) > 0 {
		files = append(files, m...)
	}
	if m, _ := filepath.Glob(filepath.Join(p.Dir, "requirements", "*.txt")); len(m) > 0 {
		files = append(files, m...)
	}
	for i, f := range files {
		files[i], _ = filepath.Rel(p.Dir, f)
	}
	slices.SortStableFunc(files, func(a, b string) int {
		// requirements.txt first: the file a project's runtime installs.
		switch {
		case a == b:
			return 0
		case a == "requirements.txt":
			return -1
		case b == "requirements.txt":
			return 1
		}
		return strings.Compare(a, b)
	})
	seen := map[string]bool{}
	for _, f := range files {
		if err := p.readRequirementsFile(f, seen); err != nil {
			return err
		}
	}
	return nil
}

// wheelName matches a wheel's file name (PEP 427): name, version, tags.
var wheelName = regexp.MustCompile(`^([A-Za-z0-9_.]+)-([^-]+)(-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$`)

// urlRequirement matches PEP 508's URL form: name, extras, "@", URL.
var urlRequirement = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*@\s*(\S+)\s*$`)

// leadingName is the distribution name a line that does not parse seems to
// declare.
var leadingName = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)

// readRequirementsFile reads one requirements file (pip's format: one
// PEP 508 requirement a line, '\' continuations, '#' comments, options)
// and the files it includes. seen guards against reading a file twice.
func (p *Project) readRequirementsFile(rel string, seen map[string]bool) error {
	if seen[rel] || len(seen) >= MaxIncludes {
		return nil
	}
	seen[rel] = true
	data, ok, err := p.readFile(rel)
	if err != nil || !ok {
		return err
	}
	lines := splitLines(data)
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := lines[i]
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + lines[i]
		}
		line = stripComment(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "-") {
			if err := p.requirementsOption(rel, start, line, seen); err != nil {
				return err
			}
			continue
		}
		p.requirementLine(rel, start, line, "")
	}
	return nil
}

// stripComment removes a '#' comment (at the start or after whitespace, as
// pip reads it) and surrounding space.
func stripComment(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return ""
	}
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, "\t#"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// requirementsOption handles an option line: -r/-c include a file, -e an
// editable install; the others (index URLs, hashes policy) say nothing
// about versions.
func (p *Project) requirementsOption(rel string, n int, line string, seen map[string]bool) error {
	opt, arg := line, ""
	if i := strings.IndexAny(line, " \t="); i >= 0 {
		opt, arg = line[:i], strings.TrimSpace(strings.TrimLeft(line[i:], " \t="))
	} else if len(line) > 2 && line[1] != '-' {
		opt, arg = line[:2], line[2:] // "-rbase.txt"
	}
	switch opt {
	case "-r", "--requirement", "-c", "--constraint":
		target := filepath.Join(filepath.Dir(rel), arg)
		if filepath.IsAbs(arg) || !filepath.IsLocal(target) {
			p.warn(rel, n, "", "%s %s is outside the project and was not read", opt, arg)
			return nil
		}
		if _, err := os.Stat(filepath.Join(p.Dir, target)); err != nil {
			p.warn(rel, n, "", "%s %s: no such file in the project", opt, arg)
			return nil
		}
		return p.readRequirementsFile(target, seen)
	case "-e", "--editable":
		p.requirementLine(rel, n, arg, arg)
	}
	return nil
}

// requirementLine records one requirement: a PEP 508 line, a "name @ URL"
// line, a wheel file (its name and version pinned) or, for an editable or
// path install, a local one named by "#egg=NAME". editable is the path of
// an -e line, "" otherwise.
func (p *Project) requirementLine(rel string, n int, line, editable string) {
	// Per-requirement options (--hash=..., --config-settings ...) follow
	// the requirement.
	if i := strings.Index(line, " --"); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	req := Requirement{Kind: KindRequirements, File: rel, Line: n, Text: line}
	if spec, marker, _ := strings.Cut(line, ";"); editable == "" {
		if m := urlRequirement.FindStringSubmatch(spec); m != nil {
			// PEP 508 URL form: "name @ file:///src/mylib".
			req.Name, req.Local, req.Marker = m[1], localPath(m[2]), strings.TrimSpace(marker)
			if wm := wheelName.FindStringSubmatch(path.Base(m[2])); wm != nil {
				p.pinWheel(req, wm)
				return
			}
			p.add(req)
			return
		}
	}
	if editable != "" || strings.ContainsAny(strings.SplitN(line, ";", 2)[0], "/\\") || strings.HasPrefix(line, ".") {
		// A path or URL with no PEP 508 name.
		loc, frag, _ := strings.Cut(line, "#")
		if wm := wheelName.FindStringSubmatch(path.Base(strings.TrimSpace(loc))); wm != nil {
			req.Name, req.Local = wm[1], localPath(strings.TrimSpace(loc))
			p.pinWheel(req, wm)
			return
		}
		if egg := eggName(frag); egg != "" {
			req.Name, req.Local = egg, localPath(strings.TrimSpace(loc))
			p.add(req)
			return
		}
		p.warn(rel, n, "", "%q installs a path or URL that names no distribution (add #egg=NAME): its version is not known", line)
		return
	}
	r, err := private.ParseRequirement(line)
	if err != nil {
		name := ""
		if m := leadingName.FindStringSubmatch(line); m != nil {
			name = m[1]
		}
		p.warn(rel, n, name, "%v", err)
		return
	}
	spec, err := pyversion.ParseSpecifierSet(r.Specifier)
	if err != nil {
		p.warn(rel, n, r.Name, "%v", err)
		return
	}
	req.Name, req.Marker, req.Specifiers = r.Name, r.Marker, specs(spec)
	p.add(req)
}

// pinWheel records a requirement on a wheel file: its name and version.
func (p *Project) pinWheel(req Requirement, m []string) {
	spec, err := exact(m[2])
	if err != nil {
		p.warn(req.File, req.Line, m[1], "wheel version %q: %v", m[2], err)
		return
	}
	req.Specifiers = specs(spec)
	p.add(req)
}

// eggName returns NAME of a URL fragment "egg=NAME" (pip's name for a path
// or VCS requirement), "" when there is none.
func eggName(frag string) string {
	v, err := url.ParseQuery(frag)
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(v.Get("egg"), "[")
	return name
}

// localPath returns the path of a file URL, loc itself when it is a path,
// and "" for a remote URL.
func localPath(loc string) string {
	if u, err := url.Parse(loc); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		if u.Scheme == "file" {
			return u.Path
		}
		return ""
	}
	return loc
}
