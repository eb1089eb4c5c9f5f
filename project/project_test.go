package project_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/private/privatetest"
	"github.com/novelapi/novelapi/project"
)

// decl is one expected declaration: kind, where, the versions it allows
// and does not allow.
type decl struct {
	kind, where, text string
	allows, denies    []string
	pin, local        string
}

func check(t *testing.T, p *project.Project, lib string, want []decl) {
	t.Helper()
	got, ok := p.Lookup(lib)
	if !ok {
		t.Fatalf("Lookup(%q): not declared; project declares %v", lib, p.Libraries())
	}
	if len(got) != len(want) {
		t.Fatalf("Lookup(%q) = %d declarations %+v; want %d", lib, len(got), got, len(want))
	}
	for i, w := range want {
		r := got[i]
		if r.Kind != w.kind || r.Where() != w.where || w.text != "" && r.Text != w.text || r.Local != w.local {
			t.Errorf("Lookup(%q)[%d] = %s at %s %q local %q; want %s at %s %q local %q", lib, i, r.Kind, r.Where(), r.Text, r.Local, w.kind, w.where, w.text, w.local)
		}
		for _, vs := range []struct {
			list []string
			want bool
		}{{w.allows, true}, {w.denies, false}} {
			for _, s := range vs.list {
				v, _ := pyversion.Parse(s)
				if r.Allows(v) != vs.want {
					t.Errorf("%s (%s) allows %s: %v; want %v", r.Text, r.Where(), s, !vs.want, vs.want)
				}
			}
		}
		pin, ok := r.Pin()
		if gotPin := map[bool]string{true: pin.String()}[ok]; gotPin != w.pin {
			t.Errorf("%s (%s).Pin() = %q; want %q", r.Text, r.Where(), gotPin, w.pin)
		}
	}
}

func read(t *testing.T, dir string) *project.Project {
	t.Helper()
	p, err := project.Read(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Requirements files made of the Requires-Dist lines of Debian's
// python3-pandas and python3-scipy: markers, an included file, constraints
// with a continuation line and a comment.
func TestRead_Requirements(t *testing.T) {
	p := read(t, "requirements")
	if len(p.Warnings) != 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	// No virtual environment: the Python is unknown, so each of pandas'
	// marker lines counts, and so does scipy's range.
	check(t, p, "numpy", []decl{
		{kind: project.KindRequirements, where: "requirements.txt:3", text: `numpy>=1.22.4; python_version < "3.11"`, allows: []string{"1.22.4"}, denies: []string{"1.22.3"}},
		{kind: project.KindRequirements, where: "requirements.txt:4", allows: []string{"1.23.2"}},
		{kind: project.KindRequirements, where: "requirements.txt:5", allows: []string{"1.26.0"}, denies: []string{"1.25.2"}},
		{kind: project.KindRequirements, where: "requirements-scipy.txt:2", text: "numpy<2.5,>=1.23.5", allows: []string{"2.2.4"}, denies: []string{"2.5.0", "2.5.0rc1"}},
	})
	check(t, p, "python_dateutil", []decl{
		{kind: project.KindRequirements, where: "requirements.txt:6", allows: []string{"2.9.0", "3.0.0"}},
		{kind: project.KindRequirements, where: "constraints.txt:2", pin: "2.9.0", allows: []string{"2.9.0"}, denies: []string{"3.0.0"}},
	})
	check(t, p, "pytz", []decl{
		{kind: project.KindRequirements, where: "requirements.txt:7"},
		{kind: project.KindRequirements, where: "constraints.txt:4", text: "pytz==2025.2", pin: "2025.2"},
	})
	if want := []string{"requirements.txt", "requirements-scipy.txt", "constraints.txt"}; !slices.Equal(p.Files, want) {
		t.Errorf("Files = %v; want %v", p.Files, want)
	}
}

// A virtual environment's installed versions (the real METADATA of
// Debian trixie's numpy and scipy) win over the requirements file's range,
// and its Python decides markers.
func TestRead_Installed(t *testing.T) {
	p := read(t, "venv")
	if p.Python != "3.13.5" {
		t.Errorf("Python = %q; want 3.13.5", p.Python)
	}
	check(t, p, "numpy", []decl{{kind: project.KindInstalled, where: ".venv/lib/python3.13/site-packages/numpy-2.2.4.dist-info/METADATA:3", text: "numpy 2.2.4", pin: "2.2.4"}})
	check(t, p, "SciPy", []decl{{kind: project.KindInstalled, where: ".venv/lib/python3.13/site-packages/scipy-1.15.3.dist-info/METADATA:3", pin: "1.15.3"}})
}

func TestRead_Pyproject(t *testing.T) {
	p := read(t, "pyproject")
	check(t, p, "numpy", []decl{{kind: project.KindPyproject, where: "pyproject.toml:9", text: "numpy<2.5,>=1.23.5", allows: []string{"1.23.5", "2.4.6"}, denies: []string{"2.5.0"}}})
	check(t, p, "array_api_strict", []decl{{kind: project.KindPyproject, where: "pyproject.toml:13", allows: []string{"2.1.0"}, denies: []string{"2.1.1"}}})
	check(t, p, "sphinx", []decl{{kind: project.KindPyproject, where: "pyproject.toml:16", denies: []string{"8.0.0"}}})
	if _, ok := p.Lookup("pandas"); ok {
		t.Error("pandas is declared by no file but Lookup found it")
	}
}

// Poetry: pyproject.toml's caret, tilde and "||" constraints, and
// poetry.lock, whose locked version wins; a directory source is local.
func TestRead_Poetry(t *testing.T) {
	p := read(t, "poetry")
	check(t, p, "numpy", []decl{{kind: project.KindPoetryLock, where: "poetry.lock:5", text: "numpy 2.2.4", pin: "2.2.4"}})
	check(t, p, "boltons", []decl{{kind: project.KindPoetryLock, where: "poetry.lock:29", pin: "25.0.0", local: "../boltons"}})
	check(t, p, "pytz", []decl{{kind: project.KindPyproject, where: "pyproject.toml:14", text: `pytz = "~2025.2"`, allows: []string{"2025.2", "2025.2.1"}, denies: []string{"2025.3", "2026.1"}}})
	check(t, p, "python-dateutil", []decl{{kind: project.KindPyproject, where: "pyproject.toml:15", allows: []string{"2.9.0", "3.0.0", "3.9"}, denies: []string{"2.9.1", "4.0"}}})
	check(t, p, "pytest", []decl{{kind: project.KindPyproject, where: "pyproject.toml:18", allows: []string{"8.0"}}})
}

// uv.lock locks numpy at one version per Python: the declaration allows
// both; a path source is local.
func TestRead_UVLock(t *testing.T) {
	p := read(t, "uv")
	check(t, p, "numpy", []decl{{kind: project.KindUVLock, where: "uv.lock:16", text: "numpy 2.1.3 | 2.2.4", allows: []string{"2.1.3", "2.2.4"}, denies: []string{"2.2.0"}}})
	check(t, p, "scipy", []decl{{kind: project.KindUVLock, where: "uv.lock:49", pin: "1.15.3"}})
	check(t, p, "boltons", []decl{{kind: project.KindUVLock, where: "uv.lock:11", pin: "25.0.0", local: "../boltons"}})
}

// A line that does not parse is a warning naming file and line, kept for
// the library it seems to declare; the lines after it are read.
func TestRead_BadLines(t *testing.T) {
	p := read(t, "bad")
	want := []string{
		`requirements.txt:2: requirement "numpy>=2.x": version specifier ">=2.x" is not PEP 440`,
		`requirements.txt:3: "./vendor/orbit" installs a path or URL that names no distribution (add #egg=NAME): its version is not known`,
	}
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ws := p.WarningsFor("numpy"); len(ws) != 2 || ws[0].Name != "numpy" {
		t.Errorf("WarningsFor(numpy) = %v", ws)
	}
	if _, ok := p.Lookup("numpy"); ok {
		t.Error("numpy's unreadable line was taken as a declaration")
	}
	check(t, p, "scipy", []decl{{kind: project.KindRequirements, where: "requirements.txt:4", pin: "1.15.3"}})
}

// A pyproject.toml that is not TOML fails the whole project, naming file
// and line: none of its versions is known.
func TestRead_BadTOML(t *testing.T) {
	_, err := project.Read("testdata/badtoml")
	fe, ok := errors.AsType[*project.FileError](err)
	if !ok || fe.File != "pyproject.toml" || fe.Line != 5 {
		t.Fatalf("Read = %v; want a FileError at pyproject.toml:5", err)
	}
	if _, err := project.Read("testdata/bad/requirements.txt"); !errors.Is(err, project.ErrNotDir) {
		t.Errorf("Read(file) = %v; want ErrNotDir", err)
	}
}

func TestPoetryConstraint(t *testing.T) {
	tests := []struct {
		in     string
		allows []string
		denies []string
	}{
		{"^1.2.3", []string{"1.2.3", "1.9"}, []string{"2.0", "1.2.2"}},
		{"^0.2.3", []string{"0.2.9"}, []string{"0.3.0"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4"}},
		{"^0", []string{"0.9"}, []string{"1.0"}},
		{"~1.2.3", []string{"1.2.9"}, []string{"1.3.0"}},
		{"~1", []string{"1.9"}, []string{"2.0"}},
		{"1.2.*", []string{"1.2.7"}, []string{"1.3"}},
		{"1.2.3", []string{"1.2.3"}, []string{"1.2.4"}},
		{">= 1.2, < 1.5", []string{"1.4"}, []string{"1.5"}},
		{">=1.2 <1.5", []string{"1.4"}, []string{"1.5"}},
		{"*", []string{"0.1", "99"}, nil},
		{"^1.0 || ^3.0", []string{"1.5", "3.1"}, []string{"2.0"}},
	}
	for _, tt := range tests {
		specs, err := project.PoetryConstraint(tt.in)
		if err != nil {
			t.Errorf("PoetryConstraint(%q): %v", tt.in, err)
			continue
		}
		r := project.Requirement{Specifiers: specs}
		for _, s := range tt.allows {
			if v, _ := pyversion.Parse(s); !r.Allows(v) {
				t.Errorf("%q does not allow %s", tt.in, s)
			}
		}
		for _, s := range tt.denies {
			if v, _ := pyversion.Parse(s); r.Allows(v) {
				t.Errorf("%q allows %s", tt.in, s)
			}
		}
	}
	if _, err := project.PoetryConstraint("^x.y"); err == nil {
		t.Error(`PoetryConstraint("^x.y") did not fail`)
	}
}

// A project made at run time from the Debian environments' own files: a
// virtual environment holding trixie-sci's installed numpy dist-info and a
// requirements.txt of sid's pandas Requires-Dist lines.
func TestRead_DebianEnvironments(t *testing.T) {
	home := privatetest.Home(t)
	dist := func(env, glob string) string {
		m, _ := filepath.Glob(filepath.Join(home, "envs", env, "rootfs/usr/lib/python3/dist-packages", glob, "METADATA"))
		if len(m) == 0 {
			t.Skipf("no %s in environment %s under %s", glob, env, home)
		}
		return m[0]
	}
	numpy, pandas := dist("trixie-sci", "numpy-*.dist-info"), dist("sid-sci", "pandas-*.dist-info")
	dir := t.TempDir()
	site := filepath.Join(dir, "venv", "lib", "python3.13", "site-packages", filepath.Base(filepath.Dir(numpy)))
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, numpy, filepath.Join(site, "METADATA"))
	if err := os.WriteFile(filepath.Join(dir, "venv", "pyvenv.cfg"), []byte("version_info = 3.13.5.final.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var reqs []string
	data, err := os.ReadFile(pandas)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if r, ok := strings.CutPrefix(l, "Requires-Dist: "); ok {
			reqs = append(reqs, r)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte(strings.Join(reqs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) > 0 {
		t.Errorf("warnings over pandas' own Requires-Dist: %v", p.Warnings)
	}
	got, ok := p.Lookup("numpy")
	if !ok || got[0].Kind != project.KindInstalled {
		t.Fatalf("numpy: %+v; want the installed version", got)
	}
	if p.Python != "3.13.5" {
		t.Errorf("Python = %q", p.Python)
	}
	// Without the installed numpy, the requirements file decides: under
	// the venv's Python 3.13 only pandas' python_version >= "3.12" line.
	if err := os.RemoveAll(filepath.Join(dir, "venv", "lib")); err != nil {
		t.Fatal(err)
	}
	p2, err := project.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = p2.Lookup("numpy")
	if len(got) != 1 || !strings.Contains(got[0].Text, `python_version >= "3.12"`) {
		t.Errorf("numpy under Python 3.13: %+v; want pandas' python_version >= 3.12 line only", got)
	}
	// Extras are not installed: pandas' optional pyarrow is not declared.
	if r, ok := p2.Lookup("pyarrow"); ok {
		t.Errorf("pyarrow (extra only) declared: %+v", r)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
