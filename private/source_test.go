package private_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/private"
	"github.com/novelapi/novelapi/private/privatetest"
)

// TestOpen_Kinds hands Debian's boltons 25.0.0 (a utility library of 17k
// lines) and jsonlines 4.0.0 (which depends on attrs) over as an installed
// tree, a wheel, a source tree with a pyproject.toml and an sdist: each
// reads as the same library.
func TestOpen_Kinds(t *testing.T) {
	boltons := privatetest.Installed(t, "trixie", "python3-boltons")
	jsonlines := privatetest.Installed(t, "trixie", "python3-jsonlines")
	tmp := t.TempDir()
	tests := []struct {
		name, path, kind string
		dist, version    string
		imports          []string
		requires         []string
		file             string
	}{
		{"InstalledTree", boltons, private.KindInstalled, "boltons", "25.0.0", []string{"boltons"}, nil, "boltons/iterutils.py"},
		{"Wheel", privatetest.Wheel(t, boltons, tmp, "py3-none-any"), private.KindWheel, "boltons", "25.0.0", []string{"boltons"}, nil, "boltons-25.0.0.dist-info/METADATA"},
		{"SourceTree", privatetest.Tree(t, boltons), private.KindTree, "boltons", "25.0.0", []string{"boltons"}, nil, "boltons/iterutils.py"},
		{"Sdist", privatetest.Sdist(t, boltons, tmp), private.KindSdist, "boltons", "25.0.0", []string{"boltons"}, nil, "boltons/iterutils.py"},
		{"DependentTree", privatetest.Tree(t, jsonlines), private.KindTree, "jsonlines", "4.0.0", []string{"jsonlines"}, []string{"attrs>=19.2.0"}, "jsonlines/jsonlines.py"},
		{"DependentWheel", privatetest.Wheel(t, jsonlines, tmp, "py3-none-any"), private.KindWheel, "jsonlines", "4.0.0", []string{"jsonlines"}, []string{"attrs>=19.2.0"}, "jsonlines/__init__.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := private.Open(t.Context(), tt.path, private.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Kind != tt.kind || s.Name != tt.dist || s.Version != tt.version {
				t.Errorf("kind, name, version = %q, %q, %q; want %q, %q, %q", s.Kind, s.Name, s.Version, tt.kind, tt.dist, tt.version)
			}
			if !slices.Equal(s.Imports, tt.imports) || s.Import != tt.imports[0] {
				t.Errorf("imports %v (main %q), want %v", s.Imports, s.Import, tt.imports)
			}
			var reqs []string
			for _, r := range s.Requires {
				reqs = append(reqs, r.Name+r.Specifier)
			}
			if !slices.Equal(reqs, tt.requires) {
				t.Errorf("requires %v, want %v", reqs, tt.requires)
			}
			if _, ok := s.Files[tt.file]; !ok {
				t.Errorf("files lack %s (have %d files)", tt.file, len(s.Files))
			}
			for rel := range s.Files {
				if strings.Contains(rel, "__pycache__") || strings.HasSuffix(rel, ".pyc") {
					t.Errorf("installs %s", rel)
				}
			}
		})
	}
}

// TestOpen_EggInfo reads bookworm's boltons 21.0.0, which Debian ships with
// an egg-info rather than a dist-info.
func TestOpen_EggInfo(t *testing.T) {
	s, err := private.Open(t.Context(), privatetest.Installed(t, "bookworm", "python3-boltons"), private.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Name != "boltons" || s.Version != "21.0.0" || s.Import != "boltons" {
		t.Errorf("got %s %s (import %s), want boltons 21.0.0", s.Name, s.Version, s.Import)
	}
}

// TestOpen_GitRevision reads two revisions of one git tree: the library's
// 21.0.0 committed first, then its 25.0.0.
func TestOpen_GitRevision(t *testing.T) {
	old := privatetest.Tree(t, privatetest.Installed(t, "bookworm", "python3-boltons"))
	cur := privatetest.Tree(t, privatetest.Installed(t, "trixie", "python3-boltons"))
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		privatetest.Git(t, repo, args...)
	}
	git("init", "-q")
	copyTree(t, old, repo)
	git("add", "-A")
	git("commit", "-q", "-m", "21.0.0")
	git("tag", "v21")
	if err := os.RemoveAll(filepath.Join(repo, "src")); err != nil {
		t.Fatal(err)
	}
	copyTree(t, cur, repo)
	git("add", "-A")
	git("commit", "-q", "-m", "25.0.0")
	for _, tt := range []struct{ rev, want string }{{"v21", "21.0.0"}, {"HEAD", "25.0.0"}, {"", "25.0.0"}} {
		s, err := private.Open(t.Context(), repo, private.OpenOptions{Rev: tt.rev})
		if err != nil {
			t.Fatal(err)
		}
		if s.Version != tt.want {
			t.Errorf("rev %q: version %s, want %s", tt.rev, s.Version, tt.want)
		}
		if tt.rev != "" && (len(s.Revision) != 40 || !strings.HasSuffix(s.Label(), "@"+s.Revision)) {
			t.Errorf("rev %q: revision %q, label %q", tt.rev, s.Revision, s.Label())
		}
		s.Close()
	}
}

// TestOpen_BadInput: what the user sees for paths that are not a library.
func TestOpen_BadInput(t *testing.T) {
	empty := t.TempDir()
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	noPkg := t.TempDir()
	if err := os.WriteFile(filepath.Join(noPkg, "pyproject.toml"), []byte("[project]\nname = \"ghost\"\nversion = \"1.0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badToml := t.TempDir()
	if err := os.WriteFile(filepath.Join(badToml, "pyproject.toml"), []byte("[project\nname = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		notProject bool
		want       string
	}{
		{"EmptyDir", empty, true, "no pyproject.toml, setup.cfg, setup.py or *.dist-info"},
		{"TextFile", notes, true, "a wheel (*.whl) or an sdist"},
		{"NoPackage", noPkg, true, "ghost but no package was found"},
		{"BadToml", badToml, false, "pyproject.toml: toml: line 2"},
		{"Missing", filepath.Join(empty, "nope"), false, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := private.Open(t.Context(), tt.path, private.OpenOptions{})
			if err == nil {
				s.Close()
				t.Fatalf("Open(%s) succeeded", tt.path)
			}
			if errors.Is(err, private.ErrNotProject) != tt.notProject || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open(%s) = %v; want ErrNotProject %v and %q", tt.path, err, tt.notProject, tt.want)
			}
		})
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSource_DocsAndTests: a project's own docs/ and tests/ are found in a
// source tree (toolz 1.0.0 laid out as its project, privatetest.Project),
// in the same tree at a git revision (named PATH@COMMIT), and not in a
// wheel or an installed tree, which have no project.
func TestSource_DocsAndTests(t *testing.T) {
	site := privatetest.Installed(t, "trixie", "python3-toolz")
	tree := privatetest.Project(t, site, filepath.Join(privatetest.Unpacked(t, "trixie", "python-toolz-doc"), "usr/share/doc/python-toolz-doc"))
	privatetest.Git(t, tree, "init", "-q")
	privatetest.Git(t, tree, "add", "-A")
	privatetest.Git(t, tree, "commit", "-q", "-m", "1.0.0")
	for _, rev := range []string{"", "HEAD"} {
		s, err := private.Open(t.Context(), tree, private.OpenOptions{Rev: rev})
		if err != nil {
			t.Fatal(err)
		}
		label := tree
		if rev != "" {
			label = tree + "@" + s.Revision
		}
		if dir, l := s.Docs(); l != label+"/docs" || !strings.HasPrefix(dir, s.Project) {
			t.Errorf("rev %q: docs %q named %q; want %s/docs", rev, dir, l, label)
		} else if _, err := os.Stat(filepath.Join(dir, "curry.rst")); err != nil {
			t.Errorf("rev %q: %v", rev, err)
		}
		if dir, l := s.Tests(); l != label+"/tests" {
			t.Errorf("rev %q: tests %q named %q; want %s/tests", rev, dir, l, label)
		} else if _, err := os.Stat(filepath.Join(dir, "test_functoolz.py")); err != nil {
			t.Errorf("rev %q: %v", rev, err)
		}
		if _, ok := s.Files["toolz/tests/test_functoolz.py"]; ok {
			t.Errorf("rev %q: the project's tests are installed", rev)
		}
		s.Close()
	}
	for _, path := range []string{site, privatetest.Wheel(t, site, t.TempDir(), "py3-none-any")} {
		s, err := private.Open(t.Context(), path, private.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if dir, _ := s.Docs(); dir != "" || s.Project != "" {
			t.Errorf("%s: docs %q, project %q; want none", path, dir, s.Project)
		}
		if dir, _ := s.Tests(); dir != "" {
			t.Errorf("%s: tests %q; want none", path, dir)
		}
		s.Close()
	}
}

// TestOpen_DynamicVersion reads source trees that declare their version
// dynamic (privatetest.DynamicTree): Debian's toolz 1.0.0, whose build
// uses versioneer, and pluggy 1.5.0, whose build uses setuptools-scm. The
// version comes from the version file the tool generated; without one (a
// fresh checkout), from the git tag of the commit read, else --version
// gives it, and the error says so. A declared version must equal
// --version.
func TestOpen_DynamicVersion(t *testing.T) {
	toolz := privatetest.DynamicTree(t, privatetest.Installed(t, "trixie", "python3-toolz"), "versioneer")
	pluggySite := privatetest.Installed(t, "trixie", "python3-pluggy")
	pluggy := privatetest.DynamicTree(t, pluggySite, "setuptools-scm")
	// A checkout of pluggy: the generated version file is not committed.
	checkout := privatetest.DynamicTree(t, pluggySite, "setuptools-scm")
	if err := os.Remove(filepath.Join(checkout, "src/pluggy/_version.py")); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) { t.Helper(); privatetest.Git(t, checkout, args...) }
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "release")
	git("tag", "1.5.0")
	tagged := func() string {
		out, err := exec.Command("git", "-C", checkout, "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}()

	tests := []struct {
		name, path string
		opts       private.OpenOptions
		want, from string
	}{
		{"VersioneerFile", toolz, private.OpenOptions{}, "1.0.0", "src/toolz/_version.py"},
		{"SetuptoolsSCMFile", pluggy, private.OpenOptions{}, "1.5.0", "src/pluggy/_version.py"},
		{"GitTag", checkout, private.OpenOptions{}, "1.5.0", "git tag 1.5.0"},
		{"GitTagOfRevision", checkout, private.OpenOptions{Rev: tagged}, "1.5.0", "git tag 1.5.0"},
		{"Given", pluggy, private.OpenOptions{Version: "1.5.1.dev2"}, "1.5.1.dev2", "--version"},
		{"GivenAgreesWithDeclared", privatetest.Tree(t, pluggySite), private.OpenOptions{Version: "1.5.0"}, "1.5.0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := private.Open(t.Context(), tt.path, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Version != tt.want || s.VersionFrom != tt.from {
				t.Errorf("version %q from %q; want %q from %q", s.Version, s.VersionFrom, tt.want, tt.from)
			}
		})
	}

	// A work tree changed since the tag is not the tagged release.
	readme := filepath.Join(checkout, "pyproject.toml")
	orig, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(readme, append(orig, "# changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := private.Open(t.Context(), checkout, private.OpenOptions{}); err == nil {
		s.Close()
		t.Errorf("Open of a changed work tree read version %s from %q", s.Version, s.VersionFrom)
	} else if w := "the work tree has uncommitted changes since tag 1.5.0 (pyproject.toml)"; !strings.Contains(err.Error(), w) {
		t.Errorf("Open: %v\nwant %q", err, w)
	}
	// The tagged revision itself is read from git, whatever the work tree holds.
	if s, err := private.Open(t.Context(), checkout, private.OpenOptions{Rev: tagged}); err != nil {
		t.Errorf("Open of the tagged revision of a changed work tree: %v", err)
	} else {
		s.Close()
	}
	if err := os.WriteFile(readme, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// A commit past the tag has no version but the one --version gives.
	if err := os.WriteFile(filepath.Join(checkout, "CHANGELOG.rst"), []byte("unreleased\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "after the release")
	// A tree outside any git work tree, without its version file.
	nogit := privatetest.DynamicTree(t, pluggySite, "setuptools-scm")
	if err := os.Remove(filepath.Join(nogit, "src/pluggy/_version.py")); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name, path string
		opts       private.OpenOptions
		want       []string
	}{
		{"PastTheTag", checkout, private.OpenOptions{}, []string{"pluggy: the version is dynamic (setuptools-scm computes it at build time)",
			"src/pluggy/_version.py", "has no version tag (git describe --tags: 1.5.0-1-g", "pass it with --version VERSION"}},
		{"NotGit", nogit, private.OpenOptions{}, []string{"is not a git work tree whose tags could name it: pass it with --version VERSION"}},
		{"DisagreesWithDeclared", privatetest.Tree(t, pluggySite), private.OpenOptions{Version: "2.0"}, []string{"pluggy declares version 1.5.0 (pyproject.toml), not 2.0"}},
		{"WheelDisagrees", privatetest.Wheel(t, pluggySite, t.TempDir(), "py3-none-any"), private.OpenOptions{Version: "2.0"}, []string{"declares version 1.5.0 (pluggy-1.5.0.dist-info/METADATA), not 2.0"}},
		{"NotPEP440", pluggy, private.OpenOptions{Version: "one"}, []string{`version "one" is not a PEP 440 version`}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			s, err := private.Open(t.Context(), tt.path, tt.opts)
			if err == nil {
				s.Close()
				t.Fatalf("Open read %s %s", s.Name, s.Version)
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Open: %v\nwant %q", err, w)
				}
			}
		})
	}
	s, err := private.Open(t.Context(), checkout, private.OpenOptions{Version: "1.5.1.dev1"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
