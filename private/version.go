package private

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/novelapi/novelapi/internal/pyversion"
)

// versionTool is what a source tree says about the tool that computes its
// version at build time (docs/private.md §1): its name, the version files
// it declares it writes, and the prefix of its version tags.
type versionTool struct {
	name  string   // "setuptools-scm", "hatch-vcs", "versioneer"; "" when none is named
	files []string // declared version files, relative to the tree
	// prefix is versioneer's tag_prefix; nil means the default: an
	// optional "NAME-" and "v" before the version, as setuptools-scm's
	// default tag_regex allows.
	prefix *string
}

// buildTool reads the tree's pyproject.toml, setup.cfg and setup.py for
// the tool that computes its version.
func buildTool(dir string) versionTool {
	var vt versionTool
	var pp struct {
		BuildSystem struct {
			Requires []string `toml:"requires"`
		} `toml:"build-system"`
		Tool struct {
			SetuptoolsSCM *struct {
				VersionFile string `toml:"version_file"`
				WriteTo     string `toml:"write_to"`
			} `toml:"setuptools_scm"`
			Hatch struct {
				Version struct {
					Source string `toml:"source"`
				} `toml:"version"`
				Build struct {
					Hooks struct {
						VCS *struct {
							VersionFile string `toml:"version-file"`
						} `toml:"vcs"`
					} `toml:"hooks"`
				} `toml:"build"`
			} `toml:"hatch"`
			Versioneer *struct {
				VersionfileSource string `toml:"versionfile_source"`
				TagPrefix         string `toml:"tag_prefix"`
			} `toml:"versioneer"`
		} `toml:"tool"`
	}
	requires := func(name string) bool {
		return slices.ContainsFunc(pp.BuildSystem.Requires, func(r string) bool {
			req, err := ParseRequirement(r)
			return err == nil && NormalizeName(req.Name) == name
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "pyproject.toml")); err == nil {
		toml.Decode(string(b), &pp) // readTree reports a malformed file
		switch t := pp.Tool; {
		case t.SetuptoolsSCM != nil || requires("setuptools-scm"):
			vt.name = "setuptools-scm"
			if s := t.SetuptoolsSCM; s != nil {
				vt.files = append(vt.files, s.VersionFile, s.WriteTo)
			}
		case t.Hatch.Version.Source == "vcs" || requires("hatch-vcs"):
			vt.name = "hatch-vcs"
			if v := t.Hatch.Build.Hooks.VCS; v != nil {
				vt.files = append(vt.files, v.VersionFile)
			}
		case t.Versioneer != nil || requires("versioneer"):
			vt.name = "versioneer"
			if v := t.Versioneer; v != nil {
				vt.files = append(vt.files, v.VersionfileSource)
				vt.prefix = &v.TagPrefix
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "setup.cfg")); err == nil && vt.name == "" {
		if m := versioneerSection.FindSubmatch(b); m != nil {
			vt.name = "versioneer"
			for l := range strings.Lines(string(m[1])) {
				k, v, ok := strings.Cut(l, "=")
				v = strings.Trim(strings.TrimSpace(v), `"'`)
				switch strings.TrimSpace(k) {
				case "versionfile_source":
					vt.files = append(vt.files, v)
				case "tag_prefix":
					if ok {
						vt.prefix = &v
					}
				}
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "setup.py")); err == nil && vt.name == "" {
		switch {
		case strings.Contains(string(b), "use_scm_version"):
			vt.name = "setuptools-scm"
		case strings.Contains(string(b), "versioneer"):
			vt.name = "versioneer"
		}
	}
	vt.files = slices.DeleteFunc(vt.files, func(f string) bool { return f == "" })
	return vt
}

// versioneerSection is setup.cfg's [versioneer] section.
var versioneerSection = regexp.MustCompile(`(?ms)^\[versioneer\]\s*$(.*?)(?:^\[|\z)`)

// dynamicVersion sets the version of a source tree that declares none
// (docs/private.md §1): given (add's --version) when not "", else a
// literal version in the main package's version files or in the files the
// build tool declares it writes, else the version tag of the commit read
// (of the tree's HEAD, or of the revision). It fails naming what was
// looked at and that --version gives it.
func (s *Source) dynamicVersion(ctx context.Context, dir string, tops map[string][]string, given string) error {
	if given != "" {
		s.Version, s.VersionFrom = given, "--version"
		return nil
	}
	vt := buildTool(dir)
	var looked []string
	for root, names := range tops {
		if !slices.Contains(names, s.Import) {
			continue
		}
		looked = append(looked, filepath.Join(root, s.Import+".py"))
		for _, f := range []string{"__init__.py", "_version.py", "version.py", "__about__.py"} {
			looked = append(looked, filepath.Join(root, s.Import, f))
		}
	}
	for _, f := range vt.files {
		if f = filepath.Clean(f); !slices.Contains(looked, f) {
			looked = append(looked, f)
		}
	}
	for _, f := range looked {
		if v := versionInFile(filepath.Join(dir, f)); v != "" {
			s.Version, s.VersionFrom = v, f
			return nil
		}
	}
	repo, commit := s.Path, "HEAD"
	if s.Revision != "" {
		commit = s.Revision
	}
	tag, why := gitVersionTag(ctx, repo, commit, vt.prefix)
	if tag != "" && s.Revision == "" {
		// The work tree is read, not the commit: a tracked file changed
		// since it makes the tag wrong, as git describe --dirty (and so
		// setuptools-scm and versioneer) would say.
		if changed := gitChanged(ctx, repo); len(changed) > 0 {
			tag, why = "", fmt.Sprintf("the work tree has uncommitted changes since tag %s (%s), so that tag does not name it", why, strings.Join(changed, ", "))
		}
	}
	if tag != "" {
		s.Version, s.VersionFrom = tag, "git tag "+why
		return nil
	}
	tool := "its build computes it"
	if vt.name != "" {
		tool = vt.name + " computes it at build time"
	}
	return fmt.Errorf("%s: the version is dynamic (%s) and none was found: no literal version in %s, and %s: pass it with --version VERSION",
		s.Name, tool, strings.Join(looked, ", "), why)
}

// versionInFile returns the version a Python file states: a literal
// assignment (`__version__ = "1.2"`, setuptools-scm's generated
// `__version__ = version = '1.5.0'`) or the "version" of versioneer's
// generated version_json; "" when it states none.
func versionInFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if m := versionLiteral.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	if m := versioneerJSON.FindSubmatch(b); m != nil {
		var v struct {
			Version string  `json:"version"`
			Error   *string `json:"error"`
		}
		if json.Unmarshal(m[1], &v) == nil && v.Error == nil && v.Version != "0+unknown" {
			return v.Version
		}
	}
	return ""
}

// versioneerJSON finds the version_json that versioneer writes into the
// version file of an sdist or a build.
var versioneerJSON = regexp.MustCompile(`(?s)\bversion_json\s*=\s*'''\s*(\{.*?\})\s*'''`)

// gitChanged returns the tracked paths of the git work tree at repo that
// differ from its HEAD (git status --porcelain --untracked-files=no; at
// most 5, then "..."), or nil.
func gitChanged(ctx context.Context, repo string) []string {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return nil
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if len(line) < 4 {
			continue
		}
		if len(paths) == 5 {
			paths = append(paths, "...")
			break
		}
		paths = append(paths, line[3:])
	}
	return paths
}

// gitVersionTag returns the version named by a tag of commit in the git
// repository at repo (the highest, when several are), and the tag; or ""
// and why there is none, for an error message.
func gitVersionTag(ctx context.Context, repo, commit string, prefix *string) (version, tag string) {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "tag", "--points-at", commit).Output()
	if err != nil {
		return "", repo + " is not a git work tree whose tags could name it"
	}
	var best pyversion.Version
	for t := range strings.Lines(string(out)) {
		t = strings.TrimSpace(t)
		v, ok := tagVersion(t, prefix)
		if !ok {
			continue
		}
		if pv, _ := pyversion.Parse(v); version == "" || pv.Compare(best) > 0 {
			version, tag, best = v, t, pv
		}
	}
	if version != "" {
		return version, tag
	}
	short := commit
	if out, err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--short=12", commit).Output(); err == nil {
		short = strings.TrimSpace(string(out))
	}
	d, err := exec.CommandContext(ctx, "git", "-C", repo, "describe", "--tags", "--long", commit).Output()
	if err != nil {
		return "", fmt.Sprintf("commit %s has no version tag, nor has any commit before it", short)
	}
	return "", fmt.Sprintf("commit %s has no version tag (git describe --tags: %s)", short, strings.TrimSpace(string(d)))
}

// tagVersion returns the PEP 440 version a git tag names: after prefix
// when given (versioneer's tag_prefix), else after an optional "NAME-"
// and "v".
func tagVersion(tag string, prefix *string) (string, bool) {
	var v string
	if prefix != nil {
		rest, ok := strings.CutPrefix(tag, *prefix)
		if !ok {
			return "", false
		}
		v = rest
	} else if m := defaultTag.FindStringSubmatch(tag); m != nil {
		v = m[1]
	}
	if _, ok := pyversion.Parse(v); !ok || v == "" {
		return "", false
	}
	return v, true
}

// defaultTag is setuptools-scm's default tag_regex, less its local part.
var defaultTag = regexp.MustCompile(`^(?:[\w-]+-)?[vV]?(\d[^+]*)(?:\+.*)?$`)
