// Package privatetest gives tests real private libraries: pure-Python
// libraries taken from Debian's binary packages (whose files are an
// unpacked wheel), laid out the ways a user hands a library to novelapi
// add: an installed tree, a wheel, a source tree with a pyproject.toml, an
// sdist. Nothing here is written for a test; only the packaging around the
// library's own files is.
package privatetest

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"io"
	"io/fs"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
)

// Home returns $NOVELAPI_HOME or the user's cache dir + /novelapi, where
// the Debian indexes and .deb files are cached between runs.
func Home(t testing.TB) string {
	t.Helper()
	if h := os.Getenv("NOVELAPI_HOME"); h != "" {
		return h
	}
	c, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c, "novelapi")
}

// Installed returns a directory laid out as site-packages holding the
// Debian package pkg of suite (python3-boltons from trixie: boltons/ and
// boltons-25.0.0.dist-info/), unpacked by debenv.Store.Unpack. It
// skips when the archive cannot be reached, and fails instead under
// NOVELAPI_REQUIRE_SANDBOX=1 (CI).
func Installed(t testing.TB, suite, pkg string) string {
	t.Helper()
	site := filepath.Join(Unpacked(t, suite, pkg), "usr/lib/python3/dist-packages")
	if _, err := os.Stat(site); err != nil {
		t.Fatalf("%s installs nothing under /usr/lib/python3/dist-packages: %v", pkg, err)
	}
	return site
}

// Unpacked returns the directory holding the files of the Debian package
// pkg of suite as it installs them (usr/...), unpacked by
// debenv.Store.Unpack; it skips or fails as [Installed] does.
func Unpacked(t testing.TB, suite, pkg string) string {
	t.Helper()
	need := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		need("dpkg-deb not found: %v", err)
	}
	// A package unpacked before is used without reading the suite's
	// index again (parsing it takes seconds).
	st := debenv.OpenStore(Home(t))
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(st.Dir), "debfiles", suite, pkg+"_*"))
	var dir string
	if len(dirs) == 1 && !strings.HasSuffix(dirs[0], ".lock") {
		dir = dirs[0]
	} else {
		ix, err := st.PackageIndex(t.Context(), suite, debenv.IndexConfig{})
		if err != nil {
			need("Debian %s's package index: %v", suite, err)
		}
		p, ok := ix.Package(pkg)
		if !ok {
			t.Fatalf("Debian %s has no package %s", suite, pkg)
		}
		if dir, err = st.Unpack(t.Context(), suite, p, debenv.IndexConfig{}); err != nil {
			need("fetch %s from Debian %s: %v", pkg, suite, err)
		}
	}
	return dir
}

// Metadata returns the core metadata of the one *.dist-info or *.egg-info
// in site: its headers and the raw file.
func Metadata(t testing.TB, site string) (textproto.MIMEHeader, []byte) {
	t.Helper()
	infos, _ := filepath.Glob(filepath.Join(site, "*.dist-info", "METADATA"))
	eggs, _ := filepath.Glob(filepath.Join(site, "*.egg-info", "PKG-INFO"))
	infos = append(infos, eggs...)
	if len(infos) != 1 {
		t.Fatalf("%s: want one metadata file, have %v", site, infos)
	}
	raw, err := os.ReadFile(infos[0])
	if err != nil {
		t.Fatal(err)
	}
	h, err := textproto.NewReader(bufio.NewReader(strings.NewReader(string(raw)))).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		t.Fatal(err)
	}
	return h, raw
}

// Wheel zips site into dir as NAME-VERSION-TAGS.whl (tags "py3-none-any"
// for a pure library) and returns its path.
func Wheel(t testing.TB, site, dir, tags string) string {
	t.Helper()
	h, _ := Metadata(t, site)
	path := filepath.Join(dir, strings.ReplaceAll(h.Get("Name"), "-", "_")+"-"+h.Get("Version")+"-"+tags+".whl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	walk(t, site, func(rel string, r io.Reader) {
		w, err := zw.Create(rel)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, r); err != nil {
			t.Fatal(err)
		}
	})
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Tree lays site's modules out as a source tree in a new directory:
// src/PKG/... and a pyproject.toml whose [project] has the metadata's
// name, version and Requires-Dist (without markers that name an extra).
// It returns the tree's directory.
func Tree(t testing.TB, site string) string {
	t.Helper()
	h, _ := Metadata(t, site)
	return tree(t, site, "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n",
		"version = \""+h.Get("Version")+"\"\n", "")
}

// DynamicTree lays site out as [Tree] does, but with the version declared
// dynamic, as by a project whose build computes its version from git
// tags: tool "setuptools-scm" ([tool.setuptools_scm]; pluggy's build uses
// it) or "versioneer" ([tool.versioneer]; toolz's build uses it),
// naming as the version file the package's _version.py, which a Debian
// package holds as the tool generated it (a checkout holds it once built
// or installed editable). It returns the tree's directory.
func DynamicTree(t testing.TB, site, tool string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(site, "*", "_version.py"))
	if len(files) != 1 {
		t.Fatalf("%s: want one PKG/_version.py, have %v", site, files)
	}
	vfile := "src/" + filepath.Base(filepath.Dir(files[0])) + "/_version.py"
	var build, section string
	switch tool {
	case "setuptools-scm":
		build = "[build-system]\nrequires = [\"setuptools>=64\", \"setuptools-scm>=8\"]\nbuild-backend = \"setuptools.build_meta\"\n"
		section = "\n[tool.setuptools_scm]\nversion_file = \"" + vfile + "\"\n"
	case "versioneer":
		build = "[build-system]\nrequires = [\"setuptools\", \"versioneer[toml]\"]\nbuild-backend = \"setuptools.build_meta\"\n"
		section = "\n[tool.versioneer]\nVCS = \"git\"\nstyle = \"pep440\"\nversionfile_source = \"" + vfile + "\"\ntag_prefix = \"\"\n"
	default:
		t.Fatalf("DynamicTree: unknown tool %q", tool)
	}
	return tree(t, site, build, "dynamic = [\"version\"]\n", section)
}

// tree writes site's modules under src/ of a new directory, and a
// pyproject.toml of the build-system table build, a [project] table with
// the version line and the metadata's name and dependencies, and the
// tables tool.
func tree(t testing.TB, site, build, version, tool string) string {
	t.Helper()
	h, _ := Metadata(t, site)
	dir := t.TempDir()
	walk(t, site, func(rel string, r io.Reader) {
		if top := strings.SplitN(rel, "/", 2)[0]; strings.HasSuffix(top, ".dist-info") || strings.HasSuffix(top, ".egg-info") {
			return
		}
		dst := filepath.Join(dir, "src", filepath.FromSlash(rel))
		copyTo(t, dst, r)
	})
	var deps []string
	for _, d := range h.Values("Requires-Dist") {
		if !strings.Contains(d, "extra") {
			deps = append(deps, `"`+strings.ReplaceAll(d, `"`, `'`)+`"`)
		}
	}
	pp := build + "\n[project]\nname = \"" + h.Get("Name") + "\"\n" + version + "dependencies = [" + strings.Join(deps, ", ") + "]\n" + tool
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(pp), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Project lays a library out as its project is: the source tree of
// [Tree] without the package's test folders (PKG/tests/), which go to
// tests/ at the top, and docs/ with the reST sources of the rendered pages
// under docDir, the -doc package's documentation directory
// (html/_sources/NAME.rst.txt becomes docs/NAME.rst, as Sphinx read it). It
// returns the project's directory. toolz 1.0.0 (python3-toolz and
// python-toolz-doc) laid out so is its upstream project but for where its
// tests are (upstream: toolz/tests/).
func Project(t testing.TB, site, docDir string) string {
	t.Helper()
	dir := Tree(t, site)
	tests, _ := filepath.Glob(filepath.Join(dir, "src", "*", "tests"))
	if len(tests) != 1 {
		t.Fatalf("%s: want one package test folder src/PKG/tests, have %v", site, tests)
	}
	if err := os.Rename(tests[0], filepath.Join(dir, "tests")); err != nil {
		t.Fatal(err)
	}
	srcs, _ := filepath.Glob(filepath.Join(docDir, "html", "_sources"))
	if len(srcs) != 1 {
		t.Fatalf("%s: no html/_sources", docDir)
	}
	walk(t, srcs[0], func(rel string, r io.Reader) {
		if !strings.HasSuffix(rel, ".rst.txt") {
			return
		}
		dst := filepath.Join(dir, "docs", filepath.FromSlash(strings.TrimSuffix(rel, ".txt")))
		copyTo(t, dst, r)
	})
	return dir
}

// Sdist packs the source tree made by [Tree] as NAME-VERSION.tar.gz in
// dir, with the metadata as PKG-INFO, and returns its path.
func Sdist(t testing.TB, site, dir string) string {
	t.Helper()
	h, raw := Metadata(t, site)
	tree := Tree(t, site)
	if err := os.WriteFile(filepath.Join(tree, "PKG-INFO"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	top := h.Get("Name") + "-" + h.Get("Version")
	path := filepath.Join(dir, top+".tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	walk(t, tree, func(rel string, r io.Reader) {
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + rel, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range []io.Closer{tw, zw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// walk calls fn with each regular file under root (slash path relative to
// copyTo writes what r holds to dst, making its directory.
func copyTo(t testing.TB, dst string, r io.Reader) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// root, contents), skipping __pycache__.
func walk(t testing.TB, root string, fn func(rel string, r io.Reader)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "__pycache__" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fn(filepath.ToSlash(rel), f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Git runs git in dir with a fixed identity and fails the test on error.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=novelapi test", "-c", "user.email=test@invalid", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}
