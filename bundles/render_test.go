package bundles_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// loadFixture returns the bundles of testdata/formats/{published,novelapi}.jsonl by name.
func loadFixture(t testing.TB) map[string]*bundles.Bundle {
	t.Helper()
	out := map[string]*bundles.Bundle{}
	for _, f := range []string{"published.jsonl", "novelapi.jsonl"} {
		bs, _, err := bundles.ReadBundles(filepath.Join("testdata", "formats", f), jsonl.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range bs {
			out[bs[i].APIName] = &bs[i]
		}
	}
	return out
}

// checkGolden compares got with testdata/golden/<rel>, rewriting it under -update.
func checkGolden(t *testing.T, rel, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", rel)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bundles -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden (go test ./bundles -update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing lines of want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || (i >= len(w)) != (i >= len(g)) {
			fmt.Fprintf(&sb, "line %d:\n-want %q\n+got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return sb.String()
}

var goldenAPIs = []string{"numpy.unstack", "numpy.sort", "scipy.integrate.tanhsinh"}

func TestRender_Golden(t *testing.T) {
	fx := loadFixture(t)
	for _, api := range goldenAPIs {
		for _, c := range bundles.AllConditions() {
			t.Run(api+"/"+string(c), func(t *testing.T) {
				checkGolden(t, filepath.Join("render", api, string(c)+".txt"), bundles.Render(fx[api], c))
			})
		}
	}
}

// TestRender_Protocol pins renderings written by hand from
// docs/protocol.md §2.2, independent of the golden files.
func TestRender_Protocol(t *testing.T) {
	fx := loadFixture(t)
	tests := []struct {
		name string
		api  string
		cond bundles.Condition
		want string
	}{
		{"None", "numpy.unstack", bundles.CondNone, ""},
		{"SName", "numpy.unstack", bundles.CondSName, "API: numpy.unstack"},
		{"SParamTruthiness", "numpy.sort", bundles.CondS, "API: numpy.sort\n\n" +
			"Parameters:\n" +
			"  - a: Array to be sorted.\n" +
			"  - axis (int or None), default=-1: Axis along which to sort. If None, the array is flattened before sorting.\n" +
			"  - kind, default=None: Sorting algorithm: 'quicksort', 'mergesort', 'heapsort' or 'stable'.\n" +
			"  - order\n" +
			"  - stable (bool), default=None: Sort stability. If True, the returned array keeps the relative order of equal values."},
		{"MOnlyChangelog", "numpy.sort", bundles.CondM, "Conceptual background:\n" +
			"Changelog notes: <p>numpy.sort and numpy.argsort gained a <code>stable</code> keyword & parameter in 2.0.0.</p>"},
		{"EmptyC", "numpy.sort", bundles.CondC, ""},
		{"StaticExample", "numpy.sort", bundles.CondE, "Example 1:\n```python\nimport numpy as np\n\na = np.array([3, 1, 2, 1])\nprint(np.sort(a, stable=True))\n\n```"},
		{"FailedExampleSkipped", "scipy.integrate.tanhsinh", bundles.CondE,
			"Example 1:\n```python\nimport numpy as np\nfrom scipy.integrate import tanhsinh\n\nres = tanhsinh(np.exp, 0, 1)\nprint(res.integral, res.success)\n\n```\n\n" +
				"Example 2:\n```python\nimport numpy as np\nfrom scipy.integrate import tanhsinh\n\ndef f(x, c):\n    return np.exp(-c * x**2)\n\nres = tanhsinh(f, -np.inf, np.inf, args=([1.0, 2.0],))\nprint(res.integral)\n\n```"},
		{"MReferences", "scipy.integrate.tanhsinh", bundles.CondM, "Conceptual background:\n" +
			"Evaluates a definite integral with double-exponential (tanh-sinh) quadrature.\n" +
			"The substitution x = tanh(pi/2 sinh t) clusters nodes near the endpoints, so endpoint singularities are handled well.\n\n" +
			"Related work: A comparison of three high-precision quadrature schemes; Tanh-sinh high-precision quadrature"},
		{"SC", "numpy.unstack", bundles.CondSC, "API: numpy.unstack\n\n" +
			"Parameters:\n" +
			"  - x (ndarray): The array to be unstacked.\n" +
			"  - axis (int), default=0: Axis along which the array will be split. Default: ``0``.\n\n" +
			"Implementation source:\n```python\n" +
			"def unstack(x, /, *, axis=0):\n    x = asanyarray(x)\n    xs = moveaxis(x, axis, 0)\n    return tuple(xs)\n\n" +
			"# --- helper: numpy._core.shape_base._unstack_dispatcher ---\ndef _unstack_dispatcher(x, /, *, axis=None):\n    return (x,)\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bundles.Render(fx[tt.api], tt.cond); got != tt.want {
				t.Errorf("Render(%s, %s):\n%s", tt.api, tt.cond, lineDiff(tt.want, got))
			}
		})
	}
}

func TestRender_FullIsOrderedJoin(t *testing.T) {
	fx := loadFixture(t)
	b := fx["scipy.integrate.tanhsinh"]
	var parts []string
	for _, c := range []bundles.Condition{bundles.CondS, bundles.CondE, bundles.CondM, bundles.CondC} {
		parts = append(parts, bundles.Render(b, c))
	}
	if got, want := bundles.Render(b, bundles.CondFull), strings.Join(parts, "\n\n"); got != want {
		t.Errorf("Full is not S, E, M, C joined by a blank line:\n%s", lineDiff(want, got))
	}
	if got := bundles.RenderComponents(b, bundles.CompM|bundles.CompSName); got != bundles.Render(b, bundles.CondSName)+"\n\n"+bundles.Render(b, bundles.CondM) {
		t.Errorf("RenderComponents(S_name+M) = %q", got)
	}
	if got := bundles.RenderComponents(b, bundles.CompSParam); !strings.HasPrefix(got, "Parameters:\n  - f (callable): ") {
		t.Errorf("RenderComponents(S_param) = %q", got)
	}
}

func TestRenderNonEmpty(t *testing.T) {
	b := &bundles.Bundle{APIName: "a.b", SName: "a.b"}
	if _, err := bundles.RenderNonEmpty(b, bundles.CondC); !errors.Is(err, bundles.ErrEmptyKnowledge) {
		t.Errorf("err = %v, want ErrEmptyKnowledge", err)
	}
	if s, err := bundles.RenderNonEmpty(b, bundles.CondNone); s != "" || err != nil {
		t.Errorf("none: %q, %v", s, err)
	}
	if s, err := bundles.RenderNonEmpty(b, bundles.CondS); s != "API: a.b" || err != nil {
		t.Errorf("S: %q, %v", s, err)
	}
}
