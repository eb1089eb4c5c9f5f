package private_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/private"
	"github.com/novelapi/novelapi/private/privatetest"
	"github.com/novelapi/novelapi/sandbox"
)

// baseEnv returns the CI environment trixie-sci from the real store, the
// base the layers of these tests go over (skipping, or failing in CI,
// when it is not built).
func baseEnv(t *testing.T) (*debenv.Store, *sandbox.Environment) {
	t.Helper()
	st := debenv.OpenStore(privatetest.Home(t))
	env, err := st.Get("trixie-sci")
	if err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if _, err := sandbox.NewBwrap(sandbox.BwrapConfig{}); err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return st, env
}

// testEnvName returns a layered environment name no other run uses, and
// removes that environment when the test ends.
func testEnvName(t *testing.T, st *debenv.Store) string {
	name := fmt.Sprintf("ptest-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { st.Remove(t.Context(), name) })
	return name
}

func open(t *testing.T, path string) *private.Source {
	t.Helper()
	s, err := private.Open(t.Context(), path, private.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestLayer_LoadsFromLayer layers boltons (a source tree) over trixie-sci:
// the new environment imports it from the layer, its metadata reports its
// version, the manifest records where it came from, and the base is left
// as it was.
func TestLayer_LoadsFromLayer(t *testing.T) {
	st, base := baseEnv(t)
	src := open(t, privatetest.Tree(t, privatetest.Installed(t, "trixie", "python3-boltons")))
	name := testEnvName(t, st)
	start := time.Now()
	env, err := private.Layer(t.Context(), st, private.LayerConfig{Name: name, Base: base, Sources: []*private.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("layered %s over %s in %v", name, base.Name, time.Since(start).Round(time.Millisecond))
	if env.Manifest.Base != base.Name || env.Manifest.Versions["boltons"] != "25.0.0" {
		t.Errorf("manifest base %q, versions %v", env.Manifest.Base, env.Manifest.Versions)
	}
	lib, ok := env.Manifest.Library("boltons")
	if !ok || lib.Source != src.Path || lib.Import != "boltons" || lib.Dist != "boltons" {
		t.Errorf("manifest library %+v (found %v)", lib, ok)
	}
	site := filepath.Join(env.Root, private.SiteDir(env.Manifest.Python))
	if _, err := os.Stat(filepath.Join(site, "boltons-25.0.0.dist-info", "METADATA")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(base.Root, private.SiteDir(env.Manifest.Python), "boltons")); err == nil {
		t.Errorf("the base environment got the layer's files")
	}
	// Same sources, same base: the environment is reused.
	again, err := private.Layer(t.Context(), st, private.LayerConfig{Name: name, Base: base, Sources: []*private.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Manifest.BuiltAt.Equal(env.Manifest.BuiltAt) {
		t.Errorf("layer rebuilt: built at %v, then %v", env.Manifest.BuiltAt, again.Manifest.BuiltAt)
	}
}

// TestLayer_ImportFails: jsonlines without its dependency attrs does not
// load; the error names the missing module and no environment is left.
// With attrs layered too (a private library depending on another), it
// loads.
func TestLayer_ImportFails(t *testing.T) {
	st, base := baseEnv(t)
	jsonlines := open(t, privatetest.Wheel(t, privatetest.Installed(t, "trixie", "python3-jsonlines"), t.TempDir(), "py3-none-any"))
	name := testEnvName(t, st)
	_, err := private.Layer(t.Context(), st, private.LayerConfig{Name: name, Base: base, Sources: []*private.Source{jsonlines}})
	if err == nil || !strings.Contains(err.Error(), "No module named 'attr'") || !strings.Contains(err.Error(), "does not load over trixie-sci") {
		t.Fatalf("Layer without attrs: %v", err)
	}
	if _, gerr := st.Get(name); gerr == nil {
		t.Errorf("a half-added environment %s is in the store", name)
	}
	attrs := open(t, privatetest.Installed(t, "trixie", "python3-attr"))
	env, err := private.Layer(t.Context(), st, private.LayerConfig{Name: name, Base: base, Sources: []*private.Source{jsonlines, attrs}})
	if err != nil {
		t.Fatal(err)
	}
	if env.Manifest.Versions["jsonlines"] != "4.0.0" || env.Manifest.Versions["attrs"] != "25.3.0" {
		t.Errorf("versions %v", env.Manifest.Versions)
	}
}

// TestLayer_WheelForAnotherPython: a wheel tagged for CPython 3.11 with
// compiled parts is refused over trixie's Python 3.13.
func TestLayer_WheelForAnotherPython(t *testing.T) {
	st, base := baseEnv(t)
	whl := open(t, privatetest.Wheel(t, privatetest.Installed(t, "trixie", "python3-boltons"), t.TempDir(), "cp311-cp311-manylinux_2_17_x86_64"))
	_, err := private.Layer(t.Context(), st, private.LayerConfig{Name: testEnvName(t, st), Base: base, Sources: []*private.Source{whl}})
	if err == nil || !strings.Contains(err.Error(), "for another Python: the environment has CPython 3.13") {
		t.Fatalf("Layer of a cp311 wheel: %v", err)
	}
}
