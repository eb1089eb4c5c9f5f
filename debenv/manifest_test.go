package debenv_test

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

// storeEnv returns the built environment name from the store under
// $NOVELAPI_HOME (default the user cache dir + /novelapi). It skips when the
// environment is missing, but fails when NOVELAPI_REQUIRE_SANDBOX=1 (CI).
func storeEnv(t *testing.T, name string) *sandbox.Environment {
	t.Helper()
	home := os.Getenv("NOVELAPI_HOME")
	if home == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		home = filepath.Join(c, "novelapi")
	}
	e, err := debenv.OpenStore(home).Get(name)
	if err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("environment %s required (NOVELAPI_REQUIRE_SANDBOX=1): %v", name, err)
		}
		t.Skipf("environment %s missing (build it with `novelapi env build`): %v", name, err)
	}
	return e
}

// distVersion reads the Version of distribution dist from its metadata in
// the environment's dist-packages, i.e. what is really installed.
func distVersion(t *testing.T, root, dist string) string {
	t.Helper()
	pats := []string{dist + "-*.dist-info/METADATA", dist + "-*.egg-info/PKG-INFO", dist + "-*.egg-info"}
	for _, p := range pats {
		m, _ := filepath.Glob(filepath.Join(root, "usr/lib/python3/dist-packages", p))
		for _, f := range m {
			fi, err := os.Stat(f)
			if err != nil || fi.IsDir() {
				continue
			}
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "Version: "); ok {
					fh.Close()
					return v
				}
			}
			fh.Close()
		}
	}
	t.Fatalf("no metadata for %s in %s", dist, root)
	return ""
}

// TestEnvironmentManifest checks the manifests of the test environments
// against what is really installed in them.
func TestEnvironmentManifest(t *testing.T) {
	tests := []struct {
		env, suite, python string
		want               map[string]string // library → version prefix
	}{
		{"trixie-sci", "trixie", "3.13.", map[string]string{"numpy": "2.2.", "scipy": "1.15.", "pandas": "2.2."}},
		{"bookworm-sci", "bookworm", "3.11.", map[string]string{"numpy": "1.24.", "scipy": "1.10.", "pandas": "1.5."}},
		{"sid-onnx", "sid", "3.14.", map[string]string{"numpy": "2.4.", "onnxruntime": "1.23"}},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			e := storeEnv(t, tt.env)
			m := e.Manifest
			if m.Suite != tt.suite || m.Name != tt.env {
				t.Errorf("manifest name/suite = %s/%s; want %s/%s", m.Name, m.Suite, tt.env, tt.suite)
			}
			if !strings.HasPrefix(m.Python, tt.python) {
				t.Errorf("python = %q; want %s*", m.Python, tt.python)
			}
			minor := strings.TrimSuffix(tt.python, ".")
			if _, err := os.Stat(filepath.Join(e.Root, "usr/bin/python"+minor)); err != nil {
				t.Errorf("python%s not in the root filesystem: %v", minor, err)
			}
			if m.Key != debenv.Key(m.Suite, m.Requested) {
				t.Errorf("key %s is not Key(suite, requested)", m.Key)
			}
			if m.SizeBytes < 50<<20 || m.BuiltAt.IsZero() {
				t.Errorf("size %d, built %v: implausible", m.SizeBytes, m.BuiltAt)
			}
			for _, p := range m.Requested {
				if m.Packages[p] == "" {
					t.Errorf("requested package %s missing from the package list", p)
				}
			}
			for lib, prefix := range tt.want {
				il, ok := m.Library(lib)
				if !ok {
					t.Fatalf("manifest records no details of %s (rebuild with `novelapi env build`)", lib)
				}
				got := m.Versions[lib]
				if !strings.HasPrefix(got, prefix) || il.Version != got {
					t.Errorf("%s version = %q (details %q); want %s*", lib, got, il.Version, prefix)
				}
				if il.Dist != lib || il.Import != lib || !slices.Equal(il.Imports, []string{lib}) || il.Error != "" {
					t.Errorf("%s details = %+v; want dist, import and imports %s, no error", lib, il, lib)
				}
				if real := distVersion(t, e.Root, il.Dist); real != got {
					t.Errorf("%s: manifest says %s, installed metadata says %s", lib, got, real)
				}
				if deb := m.Packages[il.Packages[0]]; !strings.Contains(deb, got) {
					t.Errorf("%s: Debian package %s %s does not carry version %s", lib, il.Packages[0], deb, got)
				}
			}
			for _, d := range []string{"job", "out", "tmp"} {
				if fi, err := os.Stat(filepath.Join(e.Root, d)); err != nil || !fi.IsDir() {
					t.Errorf("/%s missing from the root filesystem", d)
				}
			}
			if m, _ := filepath.Glob(filepath.Join(e.Root, "var/lib/apt/lists/*Packages*")); len(m) > 0 {
				t.Errorf("apt lists left in the root filesystem: %v", m)
			}
			if tt.suite == "sid" {
				if !slices.Equal(m.AptOptions, []string{"Acquire::Check-Valid-Until=false"}) ||
					len(m.Sources) != 1 || !strings.HasSuffix(m.Sources[0], " sid main") {
					t.Errorf("sid manifest: apt options %v, sources %v; want Check-Valid-Until=false and sid's line", m.AptOptions, m.Sources)
				}
			}
		})
	}
}

// TestProbe runs the build's probe (Python inside the environment, under
// bwrap) on the real trixie-sci root filesystem: distribution and import
// names come from the packages' own files (numpy ships neither
// top_level.txt nor RECORD, pandas an egg-info with top_level.txt,
// python3-dateutil a dist-info named python_dateutil), and the libraries
// that cannot load say why while the others are read.
func TestProbe(t *testing.T) {
	e := storeEnv(t, "trixie-sci")
	libs := []debenv.Library{
		{Name: "numpy", Packages: []string{"python3-numpy"}},
		{Name: "pandas", Packages: []string{"python3-pandas"}},
		{Name: "dateutil", Packages: []string{"python3-dateutil"}},
		{Name: "tzdata", Packages: []string{"tzdata"}},
		{Name: "boltons", Packages: []string{"python3-boltons"}},
		{Name: "scipy", Packages: []string{"python3-scipy"}, Import: "scipy.nonexistent"},
	}
	py, got, err := debenv.Probe(t, e.Root, libs)
	if err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") != "1" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("SKIPPING: bwrap unavailable: %v", err)
		}
		t.Fatal(err)
	}
	if py != e.Manifest.Python {
		t.Errorf("probe python %q; manifest %q", py, e.Manifest.Python)
	}
	tests := []struct {
		lib, dist, version, imp, err string
	}{
		{"numpy", "numpy", e.Manifest.Versions["numpy"], "numpy", ""},
		{"pandas", "pandas", e.Manifest.Versions["pandas"], "pandas", ""},
		{"dateutil", "python-dateutil", e.Manifest.Packages["python3-dateutil"][:5], "dateutil", ""},
		{"tzdata", "", "", "", "package tzdata installs no Python module"},
		{"boltons", "", "", "", "package python3-boltons is not installed"},
		{"scipy", "scipy", e.Manifest.Versions["scipy"], "scipy.nonexistent", "import scipy.nonexistent: ModuleNotFoundError"},
	}
	for _, tt := range tests {
		t.Run(tt.lib, func(t *testing.T) {
			r := got[tt.lib]
			if r.Dist != tt.dist || !strings.HasPrefix(r.Version, tt.version) || r.Import != tt.imp {
				t.Errorf("%s = %+v; want dist %q, version %q*, import %q", tt.lib, r, tt.dist, tt.version, tt.imp)
			}
			if tt.err == "" && r.Error != "" || !strings.Contains(r.Error, tt.err) {
				t.Errorf("%s error = %q; want %q", tt.lib, r.Error, tt.err)
			}
			if tt.err == "" && (len(r.Imports) == 0 || r.Imports[0] != tt.imp) {
				t.Errorf("%s imports = %v; want %s first", tt.lib, r.Imports, tt.imp)
			}
		})
	}
}

// TestSidOnnx checks the sid traps on a real sid environment with
// python3-onnxruntime: its dependency libre2-11-absl20260526 is a virtual
// package only libre2-11 provides (debootstrap's --include cannot resolve
// it; apt inside the new system does), and onnxruntime aborts at import
// without /proc, which every sandbox run mounts.
func TestSidOnnx(t *testing.T) {
	e := storeEnv(t, "sid-onnx")
	if e.Manifest.Packages["libre2-11"] == "" {
		t.Error("libre2-11 (provider of libre2-11-absl20260526) not installed")
	}
	runner, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") != "1" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("SKIPPING: bwrap unavailable: %v", err)
		}
		t.Fatal(err)
	}
	res, err := runner.Run(t.Context(), sandbox.Spec{
		Environment: e,
		Argv: []string{"python3", "-I", "-c",
			"import onnxruntime as ort; print(ort.__version__, ort.get_device(), ','.join(ort.get_available_providers()))"},
		Limits: sandbox.Limits{Wall: 2 * time.Minute, Memory: 2 << 30, PIDs: 256},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSpace(string(res.Stdout))
	if res.ExitCode != 0 || !strings.HasPrefix(out, e.Manifest.Versions["onnxruntime"]+" CPU") || !strings.Contains(out, "CPUExecutionProvider") {
		t.Errorf("import onnxruntime: exit %d, stdout %q, stderr %q; want its version, CPU and CPUExecutionProvider",
			res.ExitCode, out, res.Stderr)
	}
}
